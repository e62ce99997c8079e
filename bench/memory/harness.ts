/**
 * Memory under concurrency: the Worker's own app (createApp().fetch, as workerd runs it) in one
 * Node process whose heap is capped at 128 MB like an isolate, answering N concurrent 5,000-entry
 * log queries against a real VictoriaLogs. Every answer is read to its end, as a client would.
 * The heap is sampled every few milliseconds (peak `heapUsed`, garbage included) and after a full
 * collection every 50 ms (peak live heap); both are reported above the idle baseline. Prints one
 * `RESULT {json}` line per round.
 *
 * Run through bench/memory/run.mjs (starts VictoriaLogs with the compat dataset, bundles this
 * file, runs Node with --expose-gc --max-old-space-size=128).
 */
import { createApp } from "../../src/app";
import type { Env } from "../../src/config";
import { watchHeap } from "../lib/heap-watch";

declare const process: {
  env: Record<string, string | undefined>;
  memoryUsage(): { heapUsed: number; rss: number };
  stdout: { write(s: string): void };
};

const MB = 1024 * 1024;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const env: Env = {
  ORIGIN_URL: process.env.ORIGIN_URL,
  TENANCY: "single",
  CACHE: "off",
  DISCOVER_LOG_LEVELS: process.env.DISCOVER_LOG_LEVELS ?? "true",
} as Env;
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;

const ROUNDS = [
  { name: "selector only", query: '{namespace=~".+"}' },
  {
    name: "json parser + line_format",
    query: '{app=~"checkout|payments|api-gateway"} | json | line_format "{{.level}} {{.path}} {{__line__}}"',
  },
  {
    name: "json parser + label_format (a label of each entry's own)",
    query: '{app=~"checkout|payments|api-gateway"} | json | label_format a="{{.msg}}{{.msg}}"',
  },
  // Last: before labels counted against the text budget, it ran the process out of memory.
  {
    name: "label_format of 1 MB per entry (refused)",
    query: '{app=~".+"} | label_format big="{{ repeat 1000000 \\"x\\" }}"',
  },
];

async function round(name: string, query: string): Promise<void> {
  const app = createApp();
  // Every 2 ms, and what is still reachable: a full collection every 50 ms, then the heap's size.
  const stopWatching = watchHeap(2, 50);
  const started = performance.now();
  const statuses: Record<string, number> = {};
  let entries = 0;
  let bodyBytes = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, i) => {
      // Distinct windows, so no two requests could share work.
      const end = 1769925600 - i * 7;
      const qs = new URLSearchParams({ query, start: String(end - 6 * 3600), end: String(end), limit: "5000" });
      const res = await app.fetch(new Request(`http://loki.local/loki/api/v1/query_range?${qs}`), env, ctx);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      const counted = await countEntries(res);
      bodyBytes += counted.bytes;
      entries += counted.entries;
    }),
  );
  const heap = stopWatching();
  const seconds = (performance.now() - started) / 1000;
  const result = {
    name,
    query,
    concurrency: CONCURRENCY,
    statuses,
    entries,
    bodyMB: +(bodyBytes / MB).toFixed(1),
    seconds: +seconds.toFixed(2),
    ...heap,
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

/**
 * Reads an answer to its end as a client would, counting its entries (`["<19-digit ns>",`) chunk by
 * chunk, so the harness itself holds no whole answer: the heap measures the Worker.
 */
async function countEntries(res: Response): Promise<{ bytes: number; entries: number }> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let bytes = 0;
  let entries = 0;
  let carry = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    const text = carry + value;
    entries += text.match(/\["\d{19}",/g)?.length ?? 0;
    // A match cut at the chunk's end is found again with the next chunk; one found whole is not.
    const tail = text.slice(-24);
    carry = /\["\d{19}",/.test(tail) ? "" : tail;
  }
  return { bytes, entries };
}

async function main(): Promise<void> {
  for (const r of ROUNDS) await round(r.name, r.query);
}

await main();

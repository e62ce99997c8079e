/**
 * Run by label-heavy.test.ts in a Node whose heap is capped at 128 MB like an isolate
 * (bench/lib/capped-node.mjs): the Worker's app answers label-heavy log queries against the real
 * VictoriaLogs at ORIGIN_URL. Prints one `RESULT {json}` line per case: statuses, answer bytes,
 * and the peak heap above the idle baseline (live: after a full collection every 50 ms). A case
 * that runs the process out of memory prints nothing more: the test sees the process die.
 */
import { createApp } from "../../../src/app";
import type { Env } from "../../../src/config";
import { watchHeap } from "../../../bench/lib/heap-watch";

declare const process: {
  env: Record<string, string | undefined>;
  memoryUsage(): { heapUsed: number };
  stdout: { write(s: string): void };
};

const END = 1769925600;
const env = { ORIGIN_URL: process.env.ORIGIN_URL, TENANCY: "single", CACHE: "off" } as Env;
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;

const BIG_LABEL = '{app=~".+"} | label_format big="{{ repeat 1000000 \\"x\\" }}"';
const LABEL_HEAVY = '{app=~"checkout|payments|api-gateway"} | json | label_format a="{{.msg}}{{.msg}}"';

interface Answer {
  status: number;
  bytes: number;
  /** The first bytes of the answer, for the test's messages. */
  head: string;
}

/**
 * One query over 6 h ending `end` (query_range, or `path` with `limitParam` for its limit), its
 * answer read to the end chunk by chunk (nothing kept).
 */
async function ask(
  app: ReturnType<typeof createApp>,
  query: string,
  limit: number,
  end = END,
  path = "query_range",
  limitParam = "limit",
  tenant?: string,
): Promise<Answer> {
  const qs = new URLSearchParams({
    query,
    start: String(end - 6 * 3600),
    end: String(end),
    [limitParam]: String(limit),
  });
  const request = new Request(`http://loki.local/loki/api/v1/${path}?${qs}`, {
    headers: tenant ? { "X-Scope-OrgID": tenant } : {},
  });
  const res = await app.fetch(request, tenant ? { ...env, TENANCY: "header" } : env, ctx);
  const reader = res.body!.getReader();
  let bytes = 0;
  let head = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (head.length < 200) head += new TextDecoder().decode(value.subarray(0, 200));
    bytes += value.length;
  }
  return { status: res.status, bytes, head: head.slice(0, 200) };
}

/** Runs `work`, sampling the heap, and prints its RESULT line. */
async function measured(name: string, work: () => Promise<Answer[]>): Promise<void> {
  const stopWatching = watchHeap(2, 50);
  const started = performance.now();
  const answers = await work();
  const { peakHeapGrowthMB, peakLiveGrowthMB } = stopWatching();
  const statuses: Record<string, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  const result = {
    name,
    statuses,
    bodyBytes: answers.reduce((n, a) => n + a.bytes, 0),
    head: answers[0]?.head,
    seconds: +((performance.now() - started) / 1000).toFixed(2),
    peakHeapGrowthMB,
    peakLiveGrowthMB,
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

const app = createApp();
const concurrency = Number(process.env.LABEL_HEAVY_CONCURRENCY ?? 30);
for (const limit of [100, 2000]) {
  await measured(`big label, limit ${limit}`, async () => [await ask(app, BIG_LABEL, limit)]);
}
// The same labels on metric samples: a series per row, each with a 1 MB label.
await measured("metric, big label per sample", async () => [
  await ask(
    app,
    'count_over_time({app=~".+"} | label_format big="{{ __timestamp__ }}{{ repeat 1000000 \\"x\\" }}" [1m])',
    60,
    END,
    "query_range",
    "step",
  ),
]);
// Under the text budget one at a time (15 entries of 1 Mi characters), eight at once would not fit.
await measured("big label under the budget x8", () =>
  Promise.all(Array.from({ length: 8 }, (_, i) => ask(app, BIG_LABEL, 15, END - i * 7))),
);
await measured("detected_fields, big label x8", () =>
  Promise.all(
    Array.from({ length: 8 }, (_, i) => ask(app, BIG_LABEL, 15, END - i * 7, "detected_fields", "line_limit")),
  ),
);
// Lines of 100 KB in the data (tenant BIG_LINES_TENANT, pushed by the test): 160 of them fit the
// budget, ten such queries at once would hold 160 MB.
if (process.env.BIG_LINES_TENANT) {
  const tenant = process.env.BIG_LINES_TENANT;
  await measured("big lines x10", () =>
    Promise.all(Array.from({ length: 10 }, () => ask(app, '{app="big"}', 160, END, "query_range", "limit", tenant))),
  );
}
await measured(`label-heavy x${concurrency}`, () =>
  // Distinct windows, so no two requests could share work.
  Promise.all(Array.from({ length: concurrency }, (_, i) => ask(app, LABEL_HEAVY, 5000, END - i * 7))),
);

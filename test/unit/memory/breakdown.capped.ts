/**
 * Bucketed stats answers under a Worker isolate's 128 MB (see breakdown.test.ts): the Worker's own
 * app in a Node process whose heap is capped like an isolate, against a VictoriaLogs holding a day
 * of lines from 700 pods. Each shape is asked once, its answer read to the end, the heap
 * sampled every few milliseconds; `held rows` shapes measure what a decoded answer's rows keep
 * alive (after full collections), as parsed objects and as a StatsTable. Prints one
 * `RESULT {json}` line per shape. ONLY=<index> runs one shape alone.
 */
import { createApp } from "../../../src/app";
import type { Env } from "../../../src/config";
import { StatsTable, eachNdjsonRow } from "../../../src/origin/stats-table";
import { readStatsAnswer } from "../../../src/origin/stats-answer";
import type { VLRow } from "../../../src/origin/rows";
import { watchHeap } from "../../../bench/lib/heap-watch";

declare const process: {
  env: Record<string, string | undefined>;
  memoryUsage(): { heapUsed: number; arrayBuffers: number };
  cpuUsage(previous?: { user: number; system: number }): { user: number; system: number };
  stdout: { write(s: string): void };
};
declare const gc: () => void;

const MB = 1024 * 1024;
const end = Number(process.env.DATA_END_S);
const env: Env = { ORIGIN_URL: process.env.ORIGIN_URL, TENANCY: "single", CACHE: "off" } as Env;
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
const DAY = 86_400;

interface Shape {
  name: string;
  path: string;
  params: Record<string, string>;
  headers?: Record<string, string>;
  /** Results cache on: the answer's chunks are encoded and kept for their writes (no Cache API or KV here). */
  cached?: boolean;
}

const BREAKDOWN: Shape = {
  name: "Drilldown sum by (pod) (count_over_time [1m]) over 24h, 500 series × 1,440 steps",
  path: "query_range",
  params: {
    query: 'sum(count_over_time({namespace="shop", pod!=""} [1m])) by (pod)',
    start: String(end - DAY + 60),
    end: String(end),
    step: "60",
  },
  headers: { "X-Query-Tags": "Source=grafana-lokiexplore-app" },
};

const SHAPES: Shape[] = [
  BREAKDOWN,
  { ...BREAKDOWN, name: "the same, results cache on", cached: true },
  {
    name: "volume_range targetLabels=pod step 2m over 24h",
    path: "index/volume_range",
    params: {
      query: '{namespace="shop"}',
      targetLabels: "pod",
      start: String(end - DAY),
      end: String(end),
      step: "120",
    },
  },
];

async function run(shape: Shape): Promise<void> {
  const app = createApp();
  const stopWatching = watchHeap(2);
  // Typed arrays' and answers' buffers live outside the JS heap but inside the isolate's memory.
  const buffersAtStart = process.memoryUsage().arrayBuffers;
  let peakBuffers = buffersAtStart;
  const bufferSampler = setInterval(() => {
    peakBuffers = Math.max(peakBuffers, process.memoryUsage().arrayBuffers);
  }, 2);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const qs = new URLSearchParams(shape.params);
  const res = await app.fetch(
    new Request(`http://loki.local/loki/api/v1/${shape.path}?${qs}`, { headers: shape.headers }),
    shape.cached ? { ...env, CACHE: "on" } : env,
    ctx,
  );
  const body = await res.text();
  const { peakHeapGrowthMB } = stopWatching();
  clearInterval(bufferSampler);
  const used = process.cpuUsage(cpu);
  const error = res.status === 200 ? undefined : body;
  const answer = res.status === 200 ? (JSON.parse(body) as { data: { result: { values?: unknown[] }[] } }) : undefined;
  const result = {
    name: shape.name,
    status: res.status,
    error,
    series: answer?.data.result.length,
    points: answer?.data.result.reduce((n, s) => n + (s.values?.length ?? 1), 0),
    bodyMB: +(body.length / MB).toFixed(1),
    seconds: +((performance.now() - started) / 1000).toFixed(2),
    cpuSeconds: +((used.user + used.system) / 1e6).toFixed(2),
    peakHeapGrowthMB,
    peakBuffersGrowthMB: +((peakBuffers - buffersAtStart) / MB).toFixed(1),
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

/** An origin answer of `rows` (bucket, pod) rows, as VictoriaLogs sends a bucketed count. */
function bucketAnswer(rows: number, groups: number): string {
  const lines: string[] = [];
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < rows; i++) {
    const minute = Math.floor(i / groups);
    const time = new Date(start + minute * 60_000).toISOString().replace(".000Z", "Z");
    lines.push(
      JSON.stringify({ _time: time, pod: `pod-${String(i % groups).padStart(4, "0")}`, __v: String(1 + (i % 7)) }),
    );
  }
  return lines.join("\n");
}

/** Live heap kept by `hold` (after full collections), per row. */
async function heldPerRow(name: string, text: string, rows: number, hold: (text: string) => unknown): Promise<void> {
  // V8 frees the backing stores of collected ArrayBuffers (typed arrays, fetched answers) on a
  // concurrent sweeper: a second collection after a pause counts only what is still alive.
  const used = async () => {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return heapUsed + arrayBuffers;
  };
  const before = await used();
  const held = hold(text);
  const after = await used();
  const result = {
    name,
    rows,
    bytesPerRow: Math.round((after - before) / rows),
    textMB: +(text.length / MB).toFixed(1),
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  if (held === undefined) throw new Error("nothing held");
}

const HELD_ROWS = 200_000;
const heldShapes = [
  () =>
    heldPerRow("held rows: parsed objects", bucketAnswer(HELD_ROWS, 500), HELD_ROWS, (text) => {
      const rows: VLRow[] = [];
      eachNdjsonRow(text, (row) => rows.push(row));
      return rows;
    }),
  () =>
    heldPerRow("held rows: StatsTable", bucketAnswer(HELD_ROWS, 500), HELD_ROWS, (text) => {
      const table = new StatsTable(["__v"]);
      readStatsAnswer(text, table);
      return table;
    }),
];

const only = process.env.ONLY === undefined ? undefined : Number(process.env.ONLY);
for (const [i, shape] of SHAPES.entries()) if (only === undefined || only === i) await run(shape);
for (const [i, held] of heldShapes.entries()) if (only === undefined || only === SHAPES.length + i) await held();

/**
 * Metric answers under a Worker isolate's 128 MB: the Worker's own app (`createApp().fetch`, as
 * workerd runs it) in a Node process whose heap is capped like an isolate, against a VictoriaLogs
 * holding the rows metric.test.ts loaded (high-cardinality logfmt lines, many pods). Each shape is
 * asked once, its answer read to the end; the heap is sampled every few milliseconds. Prints one
 * `RESULT {json}` line per shape (status, error message, seconds, CPU seconds, peak heap growth).
 * ONLY=<index> runs one shape alone.
 */
import { createApp } from "../../../src/app";
import type { Env } from "../../../src/config";
import { watchHeap } from "../../../bench/lib/heap-watch";

declare const process: {
  env: Record<string, string | undefined>;
  memoryUsage(): { heapUsed: number };
  cpuUsage(previous?: { user: number; system: number }): { user: number; system: number };
  stdout: { write(s: string): void };
};

const MB = 1024 * 1024;
const end = Number(process.env.DATA_END_S);
const env: Env = { ORIGIN_URL: process.env.ORIGIN_URL, TENANCY: "single", CACHE: "off" } as Env;
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;

interface Shape {
  name: string;
  path: string;
  params: Record<string, string>;
}

const DAY = 86_400;
const SHAPES: Shape[] = [
  {
    name: "quantile_over_time [24h], every parsed label a series, step 60s",
    path: "query_range",
    params: {
      query: 'quantile_over_time(0.99, {env="load"} | logfmt | unwrap duration(dur) [24h])',
      start: String(end - DAY),
      end: String(end),
      step: "60",
    },
  },
  {
    name: "quantile_over_time [24h] by (env), step 8s",
    path: "query_range",
    params: {
      query: 'quantile_over_time(0.99, {env="load"} | logfmt | unwrap duration(dur) [24h]) by (env)',
      start: String(end - DAY),
      end: String(end),
      step: "8",
    },
  },
  {
    name: "count_over_time | logfmt [1h] over 3h",
    path: "query_range",
    params: { query: 'count_over_time({env="load"} | logfmt [1h])', start: String(end - 3 * 3600), end: String(end) },
  },
  {
    name: "max by (env) (count_over_time | logfmt [1h]) over 3h",
    path: "query_range",
    params: {
      query: 'max by (env) (count_over_time({env="load"} | logfmt [1h]))',
      start: String(end - 3 * 3600),
      end: String(end),
      step: "14",
    },
  },
  {
    name: "sum by (pod) (count_over_time | logfmt [1h]), 300 series × 1,440 steps",
    path: "query_range",
    params: {
      query: 'sum by (pod) (count_over_time({env="load"} | logfmt [1h]))',
      start: String(end - DAY + 60),
      end: String(end),
      step: "60",
    },
  },
  {
    name: "volume_range targetLabels=pod step 8s over 24h",
    path: "index/volume_range",
    params: { query: '{env="load"}', targetLabels: "pod", start: String(end - DAY), end: String(end), step: "8" },
  },
];

async function run(shape: Shape): Promise<void> {
  const app = createApp();
  const stopWatching = watchHeap(2);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const qs = new URLSearchParams(shape.params);
  const res = await app.fetch(new Request(`http://loki.local/loki/api/v1/${shape.path}?${qs}`), env, ctx);
  const body = await res.text();
  const { peakHeapGrowthMB } = stopWatching();
  const used = process.cpuUsage(cpu);
  // Loki's errors are plain text; answers are JSON.
  const error = res.status === 200 ? undefined : body;
  const series =
    res.status === 200 ? (JSON.parse(body) as { data: { result: unknown[] } }).data.result.length : undefined;
  const result = {
    name: shape.name,
    status: res.status,
    error,
    series,
    bodyMB: +(body.length / MB).toFixed(1),
    seconds: +((performance.now() - started) / 1000).toFixed(2),
    cpuSeconds: +((used.user + used.system) / 1e6).toFixed(2),
    peakHeapGrowthMB,
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

const only = process.env.ONLY === undefined ? undefined : Number(process.env.ONLY);
for (const [i, shape] of SHAPES.entries()) if (only === undefined || only === i) await run(shape);

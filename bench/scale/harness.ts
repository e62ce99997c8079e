/**
 * One request of the scale benchmark through the Worker's own app (createApp().fetch, the code
 * workerd runs) in this Node process, its heap capped at 128 MB like an isolate. Measured around
 * the request: wall time until the answer's last byte, and the process's CPU time
 * (process.cpuUsage: user + system, every thread of the process, so the HTTP client's reading and
 * decompressing of the origin's answers is included). What the Worker read and evaluated comes from
 * its own telemetry line (origin bytes, rows scanned), as Workers Logs would show it.
 *
 * A warm-up request of the same shape over five minutes of other data goes first, so JIT
 * compilation and the connection to the origin are not charged to the measured one. Requests that
 * answer within 2 s are measured three times (median); longer ones once. Prints one
 * `RESULT {json}` line. Run through bench/scale/run.mjs, which kills the process at its timeout.
 */
import { createApp } from "../../src/app";
import type { Env } from "../../src/config";

declare const process: {
  env: Record<string, string | undefined>;
  cpuUsage(): { user: number; system: number };
  stdout: { write(s: string): void };
};

interface Case {
  path: string;
  params: Record<string, string>;
  warmup: Record<string, string>;
}

interface TelemetryLine {
  message?: string;
  origin?: { requests: number; bytes: number };
  scanned?: { rows: number };
}

const spec = JSON.parse(process.env.SCALE_CASE ?? "{}") as Case;
const env = {
  ORIGIN_URL: process.env.ORIGIN_URL,
  TENANCY: "single",
  // No cache layer at all: every request reads and evaluates its rows, as a first load does.
  CACHE: "off",
  // What evaluating the rows costs is what is measured: the budget would refuse the largest ranges
  // of the shapes evaluated in the Worker (1.5 M rows at 7 d) before they are read.
  MAX_LOCAL_ROWS: "0",
} as Env;

// The Worker's telemetry goes to console.log (Workers Logs); here it is kept, not printed.
const lines: TelemetryLine[] = [];
console.log = (...args: unknown[]) => {
  const text = args.map(String).join(" ");
  try {
    lines.push(JSON.parse(text) as TelemetryLine);
  } catch {
    // not a telemetry line
  }
};

async function once(params: Record<string, string>) {
  const app = createApp();
  const pending: Promise<unknown>[] = [];
  const ctx = {
    waitUntil: (p: Promise<unknown>) => void pending.push(p),
    passThroughOnException() {},
    props: {},
  } as unknown as ExecutionContext;
  lines.length = 0;
  const url = `http://loki.local${spec.path}?${new URLSearchParams(params)}`;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await app.fetch(new Request(url, { headers: { "Cache-Control": "no-cache" } }), env, ctx);
  const body = await res.text();
  const wallMs = performance.now() - t0;
  const cpu1 = process.cpuUsage();
  // The telemetry line is written after the answer (waitUntil); it is not part of the request's time.
  await Promise.allSettled(pending);
  const line = lines.find((l) => l.message === "request");
  return {
    status: res.status,
    error: res.status === 200 ? undefined : body.slice(0, 300),
    wallMs,
    cpuMs: (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / 1000,
    answerBytes: body.length,
    originRequests: line?.origin?.requests,
    originBytes: line?.origin?.bytes,
    rowsEvaluated: line?.scanned?.rows,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  await once(spec.warmup);
  const first = await once(spec.params);
  const runs = [first];
  if (first.status === 200 && first.wallMs < 2000) runs.push(await once(spec.params), await once(spec.params));
  const result = {
    ...first,
    runs: runs.length,
    wallMs: median(runs.map((r) => r.wallMs)),
    cpuMs: median(runs.map((r) => r.cpuMs)),
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

await main();

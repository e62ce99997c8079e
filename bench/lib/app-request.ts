/**
 * One request through the Worker's own app (createApp().fetch, the code workerd runs) in a Node
 * process of a benchmark, measured around the request: wall time until the answer's last byte and
 * the process's CPU time (process.cpuUsage: the Worker's JavaScript and the HTTP client reading the
 * origin's answers). What the Worker read and evaluated comes from its own telemetry line (origin
 * requests and bytes, rows scanned), as Workers Logs would show it; the line is written after the
 * answer (waitUntil), so waiting for it is not part of the request's time.
 */
import { createApp } from "../../src/app";
import type { Env } from "../../src/config";

declare const process: { cpuUsage(): { user: number; system: number } };

interface TelemetryLine {
  message?: string;
  origin?: { requests: number; bytes: number };
  scanned?: { rows: number };
}

// One app for the process, as src/index.ts builds one per isolate: a new app per request would
// charge every request its router's construction, which no deployed request pays.
const app = createApp();

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

export interface AppAnswer {
  status: number;
  body: string;
  wallMs: number;
  cpuMs: number;
  originRequests?: number;
  originBytes?: number;
  rowsEvaluated?: number;
}

/** `around` runs right before the request and right after its last byte (other measurements). */
export async function appRequest(
  env: Env,
  path: string,
  params: Record<string, string>,
  headers: Record<string, string>,
  around?: { before(): void; after(): void },
): Promise<AppAnswer> {
  const pending: Promise<unknown>[] = [];
  const ctx = {
    waitUntil: (p: Promise<unknown>) => void pending.push(p),
    passThroughOnException() {},
    props: {},
  } as unknown as ExecutionContext;
  lines.length = 0;
  const url = `http://loki.local${path}?${new URLSearchParams(params)}`;
  around?.before();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await app.fetch(new Request(url, { headers }), env, ctx);
  const body = await res.text();
  const wallMs = performance.now() - t0;
  const cpu1 = process.cpuUsage();
  around?.after();
  await Promise.allSettled(pending);
  const line = lines.find((l) => l.message === "request");
  return {
    status: res.status,
    body,
    wallMs,
    cpuMs: (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / 1000,
    originRequests: line?.origin?.requests,
    originBytes: line?.origin?.bytes,
    rowsEvaluated: line?.scanned?.rows,
  };
}

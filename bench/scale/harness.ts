/**
 * One request of the scale benchmark through the Worker's own app (createApp().fetch, the code
 * workerd runs) in this Node process, its heap capped at 128 MB like an isolate. Measured around
 * the request: wall time until the answer's last byte, and the process's CPU time
 * (process.cpuUsage: user + system, every thread of the process, so the HTTP client's reading and
 * decompressing of the origin's answers is included). What the Worker read and evaluated comes from
 * its own telemetry line (origin bytes, rows scanned), as Workers Logs would show it.
 *
 * Warm-up requests of the same shape over other data go first, so JIT compilation and the
 * connection to the origin are not charged to the measured one: WARMUPS of them, over a window as
 * long as the measured one up to an hour (bench/scale/run.mjs). One request over five minutes left
 * the code mostly unoptimised: the next requests of an hour still cost 2-10x the CPU they settle at
 * (an isolate serving traffic runs its hot paths optimised). Requests that answer within 2 s are
 * measured three times (median); longer ones once. Prints one `RESULT {json}` line. Run through
 * bench/scale/run.mjs, which kills the process at its timeout.
 */
import type { Env } from "../../src/config";
import { appRequest } from "../lib/app-request";

declare const process: {
  env: Record<string, string | undefined>;
  stdout: { write(s: string): void };
};

interface Case {
  path: string;
  params: Record<string, string>;
  /** The request's own headers (`X-Scope-OrgID` for a shape across tenants). */
  headers?: Record<string, string>;
  warmup: Record<string, string>;
}

const spec = JSON.parse(process.env.SCALE_CASE ?? "{}") as Case;
const env = {
  ORIGIN_URL: process.env.ORIGIN_URL,
  // A shape naming its tenants is served as behind a gateway that authenticated the caller.
  TENANCY: spec.headers?.["X-Scope-OrgID"] ? "header" : "single",
  // No cache layer at all: every request reads and evaluates its rows, as a first load does.
  CACHE: "off",
  // What evaluating the rows costs is what is measured: the budget would refuse the largest ranges
  // of the shapes evaluated in the Worker (1.5 M rows at 7 d) before they are read.
  MAX_LOCAL_ROWS: "0",
} as Env;

async function once(params: Record<string, string>) {
  const answer = await appRequest(env, spec.path, params, { ...spec.headers, "Cache-Control": "no-cache" });
  const { body, ...measured } = answer;
  return {
    ...measured,
    error: answer.status === 200 ? undefined : body.slice(0, 300),
    answerBytes: body.length,
  };
}

/** Enough for V8 to have optimised the request's hot paths (measured: the CPU no longer falls after). */
const WARMUPS = 10;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  for (let i = 0; i < WARMUPS; i++) await once(spec.warmup);
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

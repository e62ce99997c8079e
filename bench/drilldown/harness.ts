/**
 * One Drilldown request through the Worker's own app (createApp().fetch, the code workerd runs) in
 * this Node process, its heap capped at 128 MB like an isolate, cold: no cache layer and
 * `Cache-Control: no-cache`, one run. Measured around the request: wall time until the answer's
 * last byte, this process's CPU time (process.cpuUsage: the Worker's JavaScript and the HTTP
 * client reading the origin's answers), the heap's peak above idle (bench/lib/heap-watch.ts; no
 * collection forced meanwhile, which would be charged to the request's CPU), and
 * the CPU time the VictoriaLogs process spent meanwhile (utime + stime from /proc/<pid>/stat: the
 * benchmark's own VictoriaLogs, serving nothing else). What the answer holds is summarised:
 * series, fields or labels, and Loki's warnings.
 *
 * A warm-up request of the same shape over five minutes of other data goes first, so JIT
 * compilation and the connection to the origin are not charged to the measured one. Prints one
 * `RESULT {json}` line. Run through bench/drilldown/run.mjs, which kills the process at its timeout.
 */
import type { Env } from "../../src/config";
import { appRequest } from "../lib/app-request";
import { watchHeap, type HeapPeaks } from "../lib/heap-watch";

declare const process: {
  env: Record<string, string | undefined>;
  stdout: { write(s: string): void };
  getBuiltinModule(id: "node:fs"): { readFileSync(path: string, encoding: "utf8"): string };
};

interface Case {
  path: string;
  params: Record<string, string>;
  headers: Record<string, string>;
  warmup: Record<string, string>;
}

/** Linux's clock ticks a second (`getconf CLK_TCK`), the unit of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = 100;

const spec = JSON.parse(process.env.DRILLDOWN_CASE ?? "{}") as Case;
const vlPid = process.env.VL_PID;
const env = {
  ORIGIN_URL: process.env.ORIGIN_URL,
  TENANCY: "single",
  // No cache layer at all: every request reads and evaluates its rows, as a first load does.
  CACHE: "off",
} as Env;

/** CPU seconds VictoriaLogs has used so far: fields 14 and 15 of its stat line, after the command's parentheses. */
function victoriaLogsCpuS(): number | undefined {
  if (!vlPid) return undefined;
  const stat = process.getBuiltinModule("node:fs").readFileSync(`/proc/${vlPid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is the state (field 3), so utime (14) and stime (15) are at 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** What the answer holds: series of a metric answer, fields, labels; and Loki's warnings. */
function summarise(body: string): { items: number; warnings?: string[] } {
  const json = JSON.parse(body) as {
    data?: { result?: unknown[] };
    fields?: unknown[];
    detectedLabels?: unknown[];
    warnings?: string[];
  };
  const items = json.data?.result?.length ?? json.fields?.length ?? json.detectedLabels?.length ?? 0;
  return { items, ...(json.warnings ? { warnings: json.warnings } : {}) };
}

async function once(params: Record<string, string>, measure: boolean) {
  const headers = { ...spec.headers, "Cache-Control": "no-cache" };
  let stopHeap: (() => HeapPeaks) | undefined;
  let vl0: number | undefined;
  let vl1: number | undefined;
  let heap: HeapPeaks | undefined;
  const answer = await appRequest(env, spec.path, params, headers, {
    before() {
      stopHeap = measure ? watchHeap(5) : undefined;
      vl0 = victoriaLogsCpuS();
    },
    after() {
      vl1 = victoriaLogsCpuS();
      heap = stopHeap?.();
    },
  });
  const { body, ...measured } = answer;
  return {
    ...measured,
    error: answer.status === 200 ? undefined : body.slice(0, 300),
    ...(answer.status === 200 ? summarise(body) : {}),
    vlCpuMs: vl0 === undefined || vl1 === undefined ? undefined : Math.round((vl1 - vl0) * 1000),
    heap,
    answerBytes: body.length,
  };
}

async function main(): Promise<void> {
  await once(spec.warmup, false);
  const result = await once(spec.params, true);
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

await main();

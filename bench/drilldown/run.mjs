// `npm run bench:drilldown`: a Logs Drilldown session on one namespace at real cardinality (5,000
// pods, ~50,000 trace ids an hour, 15 services, 25 h of data; bench/drilldown/generate.mjs) in a
// real VictoriaLogs: the six calls Drilldown makes (bench/drilldown/shapes.mjs) at 30 m, 1 h, 2 h,
// 3 h, 6 h and 24 h, each cold through the Worker's app in a Node process with a 128 MB heap
// (bench/drilldown/harness.ts) and against VictoriaLogs directly with the comparable LogsQL.
// Reports whether each answer has data, its series and Loki's partial-answer warning, latency, CPU
// of the Worker and of VictoriaLogs for each, and the Worker's peak heap; writes
// bench/results/drilldown.{md,json,svg}.
//
// BENCH_QUICK=1: the 30 m and 1 h ranges only (drilldown-quick.*). BENCH_SHAPES=pod,trace_id and
// BENCH_RANGES="30 m,24 h" pick shapes and ranges; BENCH_TIMEOUT_S the per-request limit (default
// 120 s), past which a request is reported as not finished; BENCH_REPORT_ONLY=1 writes the report
// again from the measurements the last run kept. The loaded data stays in the cache directory and
// is reused by later runs. Everything on 127.0.0.1; VictoriaLogs is this run's own process.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCappedNode } from "../lib/capped-node.mjs";
import { measureRangeByRange, runBenchmark, runFacts, warmOrigin } from "../lib/runner.mjs";
import { NAMESPACE, PODS, TRACE_IDS_PER_HOUR } from "./generate.mjs";
import { drilldownOrigin } from "./origin.mjs";
import { markdown, svg } from "./report.mjs";
import { RANGES, SHAPES } from "./shapes.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const quick = process.env.BENCH_QUICK === "1";
const HOURS = 25;
const ROWS_PER_HOUR = 130_000;
// Fixed, so that the cached data stays valid between runs.
const END_MS = Date.UTC(2026, 2, 11);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S || 120) * 1000;
const pick = (name) => process.env[name]?.split(",").map((s) => s.trim());
const onlyShapes = pick("BENCH_SHAPES");
const onlyRanges = pick("BENCH_RANGES") ?? (quick ? ["30 m", "1 h"] : undefined);
const shapes = onlyShapes ? SHAPES.filter((s) => onlyShapes.includes(s.id)) : SHAPES;
const ranges = onlyRanges ? RANGES.filter((r) => onlyRanges.includes(r.name)) : RANGES;
const outName = quick || onlyShapes || onlyRanges ? "drilldown-quick" : "drilldown";
const say = (m) => process.stdout.write(`[drilldown] ${m}\n`);

/** CPU seconds process `pid` has used so far (utime + stime of /proc/<pid>/stat, in 1/100 s). */
function cpuSecondsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A request as a URL on `base`. */
const urlOf = (base, req) => `${base}${req.path}?${new URLSearchParams(req.params)}`;

/** What a VictoriaLogs answer holds: series of stats_query_range, names of the metadata calls. */
function itemsOf(text) {
  try {
    const json = JSON.parse(text);
    return json.data?.result?.length ?? json.values?.length;
  } catch {
    return undefined;
  }
}

/** Answers larger than this are counted in bytes, not parsed. */
const PARSE_LIMIT = 64 * 1024 * 1024;

/** VictoriaLogs direct, once, read to its last byte; its CPU time for the request from /proc. */
async function timeVictoriaLogs(vl, req) {
  const cpu0 = cpuSecondsOf(vl.pid);
  const t0 = performance.now();
  try {
    const res = await fetch(urlOf(vl.url, req), { signal: AbortSignal.timeout(TIMEOUT_MS) });
    const chunks = [];
    let bytes = 0;
    for await (const chunk of res.body ?? []) {
      bytes += chunk.length;
      if (bytes <= PARSE_LIMIT) chunks.push(chunk);
    }
    const ms = performance.now() - t0;
    const cpuMs = Math.round((cpuSecondsOf(vl.pid) - cpu0) * 1000);
    const text = bytes <= PARSE_LIMIT ? Buffer.concat(chunks).toString("utf8") : "";
    if (res.status !== 200) return { status: res.status, error: text.slice(0, 300), ms, cpuMs };
    return { status: 200, ms, cpuMs, bytes, items: bytes <= PARSE_LIMIT ? itemsOf(text) : undefined };
  } catch (err) {
    const cpuMs = Math.round((cpuSecondsOf(vl.pid) - cpu0) * 1000);
    if (err instanceof Error && err.name === "TimeoutError") return { dnf: true, cpuMs };
    // VictoriaLogs ends an answer it is still writing when the query outlives its own
    // -search.maxQueryDuration (30 s by default): the connection breaks mid-answer.
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return { error: `connection broke after ${Math.round(performance.now() - t0)} ms (${String(err)}${cause})`, cpuMs };
  }
}

/** The Worker in its own capped process, killed at the timeout (warm-up included). */
async function timeWorker(vl, shape, w) {
  const warmup = shape.loki({ start: DATA.startS, end: DATA.startS + 300, step: w.step }).params;
  const req = shape.loki(w);
  const spec = { path: req.path, params: req.params, headers: req.headers ?? {}, warmup };
  const started = Date.now();
  const cpu0 = cpuSecondsOf(vl.pid);
  const { exit, results } = await runCappedNode(
    join(root, "bench", "drilldown", "harness.ts"),
    { ORIGIN_URL: vl.url, VL_PID: String(vl.pid), DRILLDOWN_CASE: JSON.stringify(spec) },
    // The warm-up fits in the margin.
    { timeoutMs: TIMEOUT_MS + 15_000 },
  );
  const r = results[0];
  if (r && r.wallMs <= TIMEOUT_MS) return r;
  const vlCpuMs = Math.round((cpuSecondsOf(vl.pid) - cpu0) * 1000);
  if (r || exit === "SIGKILL") return { dnf: true, seconds: Math.round((Date.now() - started) / 1000), vlCpuMs };
  // A capped heap that ran out ends the process with an error of its own.
  return { crashed: `exit ${exit} (heap limit of 128 MB?)`, vlCpuMs };
}

/** What the data holds where the session looks: rows, pods and trace ids in the last hour and day. */
async function cardinalities(vl) {
  const out = {};
  for (const [name, seconds] of [
    ["1 h", 3600],
    ["24 h", 86_400],
  ]) {
    const q = `{namespace="${NAMESPACE}"} | stats count() rows, count_uniq(pod) pods, count_uniq(trace_id) traces, count_uniq(service_name) services`;
    const params = new URLSearchParams({ query: q, start: String(DATA.endS - seconds), end: String(DATA.endS) });
    const res = await fetch(`${vl.url}/select/logsql/query?${params}`);
    const text = await res.text();
    if (!res.ok) throw new Error(`cardinality query: HTTP ${res.status}: ${text.slice(0, 300)}`);
    out[name] = Object.fromEntries(Object.entries(JSON.parse(text)).map(([k, v]) => [k, Number(v)]));
  }
  return out;
}

/** @type {{ startS: number, endS: number }} */
let DATA;

async function main() {
  const origin = await drilldownOrigin({ hours: HOURS, rowsPerHour: ROWS_PER_HOUR, endMs: END_MS, say });
  const vl = origin.vl;
  DATA = { startS: origin.startMs / 1000, endS: origin.endMs / 1000 };
  await warmOrigin(vl.url);
  const meta = {
    mode: outName === "drilldown" ? "full" : "subset",
    rows: origin.rows,
    hours: HOURS,
    pods: PODS,
    streams: origin.streams.length,
    traceIdsPerHourTarget: TRACE_IDS_PER_HOUR,
    tracePoolPerHour: origin.tracePoolPerHour,
    measured: await cardinalities(vl),
    loadSeconds: origin.loadSeconds,
    pushedMB: origin.pushedMB,
    loadedNow: origin.loadedNow,
    ...runFacts(root, TIMEOUT_MS),
  };
  say(`data: ${JSON.stringify(meta.measured)}`);
  await measureRangeByRange({
    root,
    name: outName,
    report: { markdown, svg },
    meta,
    ranges,
    endS: DATA.endS,
    shapes,
    measure: async (shape, range, w) => {
      const worker = await timeWorker(vl, shape, w);
      const vlResult = await timeVictoriaLogs(vl, shape.vl(w));
      say(
        `${range.name} ${shape.id}: Worker ${worker.wallMs?.toFixed(0) ?? (worker.dnf ? "DNF" : worker.crashed)} ms` +
          (worker.status && worker.status !== 200 ? ` HTTP ${worker.status} ${worker.error}` : "") +
          `, ${worker.items ?? "-"} items${worker.warnings ? " (partial)" : ""}, CPU ${worker.cpuMs?.toFixed(0) ?? "-"} ms, VL CPU ${worker.vlCpuMs ?? "-"} ms, heap +${worker.heap?.peakHeapGrowthMB ?? "-"} MB; ` +
          `VL direct ${vlResult.ms?.toFixed(0) ?? (vlResult.dnf ? "DNF" : `HTTP ${vlResult.status}`)} ms, CPU ${vlResult.cpuMs ?? "-"} ms`,
      );
      /** @type {import("./report.mjs").Case} */
      const c = {
        shape: shape.id,
        name: shape.name,
        kind: shape.kind,
        range: range.name,
        step: range.step,
        worker,
        vl: vlResult,
      };
      return c;
    },
  });
  say(`written to bench/results/${outName}.md, .json and .svg`);
}

runBenchmark({ tag: "drilldown", root, name: outName, report: { markdown, svg }, main });

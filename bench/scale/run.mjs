// `npm run bench:scale`: Grafana's and Drilldown's default queries (bench/scale/shapes.mjs) at 1 h,
// 24 h and 7 d over a generated dataset of 10 M rows (bench/scale/generate.mjs) in a real
// VictoriaLogs. Each shape and range is timed against VictoriaLogs direct (the LogsQL that computes
// the comparable aggregation) and through the Worker's app in a Node process with a 128 MB heap
// (bench/scale/harness.ts), cold: no cache layer, `Cache-Control: no-cache`. Reports the ratio,
// rows the Worker evaluated, origin bytes, the Worker's CPU per request, and a projection to a
// service logging 100 M rows a day; writes bench/results/scale.md and scale.svg.
//
// BENCH_QUICK=1: 1 M rows (scale-quick.md, .svg). BENCH_ROWS overrides the row count;
// BENCH_TIMEOUT_S the per-request limit (default 120 s), past which a request is reported as not
// finished; BENCH_SHAPES=explore-volume,patterns picks shapes, BENCH_RANGES=1h,24h ranges (their
// names without spaces); BENCH_REPORT_ONLY=1 writes the report again from the measurements the last
// run kept (scale.json). The loaded data stays in the cache directory and is reused by later runs of
// the same size. Everything on 127.0.0.1.

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { countRows } from "../../scripts/lib/victorialogs.mjs";
import { runCappedNode } from "../lib/capped-node.mjs";
import { measureRangeByRange, runBenchmark, runFacts, srcCommit, warmOrigin } from "../lib/runner.mjs";
import { scaleOrigin } from "./origin.mjs";
import { markdown, svg } from "./report.mjs";
import { RANGES, SHAPES } from "./shapes.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const quick = process.env.BENCH_QUICK === "1";
const ROWS = Number(process.env.BENCH_ROWS || (quick ? 1_000_000 : 10_000_000));
const DAYS = 7;
// Fixed, so that the cached data stays valid between runs.
const END_MS = Date.UTC(2026, 2, 11);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S || 120) * 1000;
const only = process.env.BENCH_SHAPES?.split(",").map((s) => s.trim());
const shapes = only ? SHAPES.filter((s) => only.includes(s.id)) : SHAPES;
const onlyRanges = process.env.BENCH_RANGES?.split(",").map((s) => s.trim());
const ranges = onlyRanges ? RANGES.filter((r) => onlyRanges.includes(r.name.replace(/\s/g, ""))) : RANGES;
const outName = quick ? "scale-quick" : "scale";
const say = (m) => process.stdout.write(`[scale] ${m}\n`);

/** A request as a URL on `base`. */
const urlOf = (base, req) => `${base}${req.path}?${new URLSearchParams(req.params)}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * VictoriaLogs direct: once, and twice more when it answered within 2 s, each read to its last
 * byte; a request past the timeout is reported as not finished. `times` are the runs' times.
 */
async function timeVictoriaLogs(base, req) {
  const times = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    try {
      const res = await fetch(urlOf(base, req), { signal: AbortSignal.timeout(TIMEOUT_MS) });
      const body = await res.text();
      if (res.status !== 200) return { status: res.status, error: body.slice(0, 300) };
    } catch (err) {
      if (err instanceof Error && err.name === "TimeoutError") return { dnf: true };
      throw err;
    }
    times.push(performance.now() - t0);
    if (times[0] >= 2000) break;
  }
  return { status: 200, ms: median(times), runs: times.length, times };
}

/**
 * VictoriaLogs direct timed before and after the Worker's request (`measureWorker`), its figure the
 * median of both sides' runs: on a shared machine the load drifts over the seconds a shape takes,
 * and timing one side only charged the drift to the ratio (a shape's 1 h ratio moved by 1.5x
 * between runs while nothing it ran changed).
 */
async function timeAround(base, req, measureWorker) {
  const before = await timeVictoriaLogs(base, req);
  const worker = await measureWorker();
  if (before.ms === undefined) return { vlResult: before, worker };
  const after = await timeVictoriaLogs(base, req);
  if (after.ms === undefined) return { vlResult: after, worker };
  const times = [...before.times, ...after.times];
  return { vlResult: { status: 200, ms: median(times), runs: times.length }, worker };
}

/** The Worker in its own capped process, killed at the timeout (warm-up and repeats included). */
async function timeWorker(originUrl, shape, w) {
  // Other data (the dataset's start), over as long a window as the measured one up to an hour:
  // the hot loops must run over as many rows as a measured request's for V8 to optimise them.
  const warmupS = Math.min(w.end - w.start, 3600);
  const warmup = shape.loki({ start: DATA.startS, end: DATA.startS + warmupS, step: w.step }).params;
  const spec = { ...shape.loki(w), warmup };
  const started = Date.now();
  const { exit, results } = await runCappedNode(
    join(root, "bench", "scale", "harness.ts"),
    { ORIGIN_URL: originUrl, SCALE_CASE: JSON.stringify(spec) },
    // The warm-up and the repeats of a fast request fit in the margin.
    { timeoutMs: TIMEOUT_MS + 15_000 },
  );
  const r = results[0];
  if (r && r.wallMs <= TIMEOUT_MS) return r;
  if (r || exit === "SIGKILL") return { dnf: true, seconds: Math.round((Date.now() - started) / 1000) };
  // A capped heap that ran out ends the process with an error of its own.
  return { crashed: `exit ${exit} (heap limit of 128 MB?)` };
}

/** @type {{ startS: number, endS: number }} */
let DATA;

async function main() {
  const origin = await scaleOrigin({ rows: ROWS, days: DAYS, endMs: END_MS, say });
  const vl = origin.vl.url;
  DATA = { startS: origin.startMs / 1000, endS: origin.endMs / 1000 };
  const meta = {
    mode: quick ? "quick" : "full",
    rows: origin.rows,
    days: DAYS,
    streams: origin.streams.length,
    loadSeconds: origin.loadSeconds,
    pushedMB: origin.pushedMB,
    loadedNow: origin.loadedNow,
    ...runFacts(root, TIMEOUT_MS),
  };
  await warmOrigin(vl);
  await measureRangeByRange({
    root,
    name: outName,
    report: { markdown, svg },
    meta,
    ranges,
    endS: DATA.endS,
    shapes,
    measure: async (shape, range, w) => {
      const matching = await countRows(vl, shape.selector, { start: String(w.start), end: String(w.end) });
      const { vlResult, worker } = await timeAround(vl, shape.vl(w), () => timeWorker(vl, shape, w));
      say(
        `${range.name} ${shape.id}: VL ${vlResult.ms?.toFixed(0) ?? "-"} ms, Worker ${worker.wallMs?.toFixed(0) ?? (worker.dnf ? "DNF" : worker.crashed)} ms` +
          (worker.status && worker.status !== 200 ? ` HTTP ${worker.status} ${worker.error}` : "") +
          `, CPU ${worker.cpuMs?.toFixed(0) ?? "-"} ms, rows ${worker.rowsEvaluated ?? "-"}, origin ${worker.originBytes ?? "-"} B`,
      );
      /** @type {import("./report.mjs").Case} */
      const c = {
        shape: shape.id,
        name: shape.name,
        pushed: shape.pushed,
        rowsReported: shape.rowsReported,
        range: range.name,
        matching,
        vl: vlResult,
        worker,
      };
      return c;
    },
  });
  say(`written to bench/results/${outName}.md and .svg`);
}

runBenchmark({
  tag: "scale",
  root,
  name: outName,
  report: { markdown, svg },
  main,
  amend: (meta) => (meta.srcCommit ??= srcCommit(root)),
});

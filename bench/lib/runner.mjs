// What the end-to-end benchmarks (bench/scale, bench/drilldown) do around their own measurements:
// the facts every report states about its run, the range-by-range loop that keeps the results
// written as they come, and the script's entry point (measure, or write the report again).

import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { runAllCleanups } from "../../scripts/lib/cleanup.mjs";
import { VICTORIA_LOGS_RELEASE } from "../../scripts/lib/victorialogs.mjs";
import { rewriteResults, writeResults } from "./results.mjs";

/**
 * The last commit that changed the Worker's code: what the figures are figures of.
 * @param {string} root the repository's root
 */
export function srcCommit(root) {
  return execFileSync("git", ["log", "-1", "--format=%h", "--", "src"], { cwd: root, encoding: "utf8" }).trim();
}

/**
 * The run's facts every report states, beside the benchmark's own.
 * @param {string} root
 * @param {number} timeoutMs the per-request limit
 */
export function runFacts(root, timeoutMs) {
  return {
    timeoutS: timeoutMs / 1000,
    node: process.version,
    cores: availableParallelism(),
    victoriaLogs: VICTORIA_LOGS_RELEASE,
    srcCommit: srcCommit(root),
    started: new Date().toISOString(),
  };
}

/**
 * One query through VictoriaLogs first, so that its own start-up work (stream index, caches of part
 * headers) is not charged to the first case.
 * @param {string} vlUrl
 */
export async function warmOrigin(vlUrl) {
  await fetch(`${vlUrl}/select/logsql/query?${new URLSearchParams({ query: "* | stats count()" })}`).then((r) =>
    r.text(),
  );
}

/**
 * @typedef {{ name: string, seconds: number, step: number }} Range
 * @typedef {{ start: number, end: number, step: number }} Window
 */

/**
 * Measures every shape at every range ending at `endS`, range by range, and writes the results
 * after each range: if a long run is stopped, the shorter ranges are complete.
 * @template S
 * @param {{ root: string, name: string, report: Parameters<typeof writeResults>[2], meta: object, ranges: Range[], endS: number, shapes: S[], measure: (shape: S, range: Range, w: Window) => Promise<object> }} run
 */
export async function measureRangeByRange({ root, name, report, meta, ranges, endS, shapes, measure }) {
  /** @type {object[]} */
  const cases = [];
  /** @param {boolean} final */
  const write = (final) =>
    writeResults(root, name, report, cases, { ...meta, finished: final ? new Date().toISOString() : undefined });
  for (const range of ranges) {
    const w = { start: endS - range.seconds, end: endS, step: range.step };
    for (const shape of shapes) cases.push(await measure(shape, range, w));
    await write(false);
  }
  await write(true);
}

/**
 * The benchmark script's entry point: measures (`main`), or with BENCH_REPORT_ONLY=1 writes the
 * report again from the measurements the last run kept; cleans up either way (processes started,
 * temporary directories), and exits 1 on an error.
 * @param {{ tag: string, root: string, name: string, report: Parameters<typeof writeResults>[2], main: () => Promise<void>, amend?: (meta: any) => void }} bench
 */
export function runBenchmark({ tag, root, name, report, main, amend }) {
  /** @param {string} m */
  const say = (m) => process.stdout.write(`[${tag}] ${m}\n`);
  const reportOnly = async () => {
    await rewriteResults(root, name, report, amend);
    say(`written again from bench/results/${name}.json`);
  };
  (process.env.BENCH_REPORT_ONLY === "1" ? reportOnly() : main())
    .then(() => runAllCleanups())
    .catch(async (err) => {
      process.stderr.write(`[${tag}] ${err instanceof Error ? err.stack : String(err)}\n`);
      await runAllCleanups();
      process.exit(1);
    });
}

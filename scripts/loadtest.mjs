// `npm run loadtest -- --url https://...`: runs the benchmark's k6 workloads (bench/e2e/workloads.js,
// bench/e2e/k6/workload.js) against any deployment of the Worker, one after another, with thresholds:
// no failed request, and each workload's p95 under its bound. Exits 1 if any threshold is crossed.
// The token reaches k6 through its environment, never its arguments or this script's output.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { obtainK6 } from "./lib/k6.mjs";
import { parseLoadtestOptions, USAGE, wantsHelp } from "./lib/loadtest-options.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const message = (/** @type {unknown} */ err) => (err instanceof Error ? err.message : String(err));

if (wantsHelp(process.argv.slice(2))) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

/** @type {import("./lib/loadtest-options.mjs").LoadtestOptions} */
let options;
try {
  options = parseLoadtestOptions(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`[loadtest] ${message(err)}\n${USAGE}\n`);
  process.exit(2);
}

/** @type {string} */
let k6;
try {
  k6 = await obtainK6();
} catch (err) {
  // One line saying what to do: a stack trace would only point into this script.
  process.stderr.write(`[loadtest] ${message(err)}\n`);
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), "loki-vl-loadtest-"));
const dataEnd = Math.floor(Date.now() / 1000);
const dataStart = dataEnd - options.rangeSeconds;
process.stdout.write(
  `[loadtest] ${options.url}: ${options.workloads.join(", ")}, ${options.duration} each, windows in the last ${options.rangeSeconds / 3600} h\n`,
);

/** @param {string} workload @returns {Promise<{ code: number | null, summary?: any }>} */
function runWorkload(workload) {
  const summaryFile = join(work, `${workload}.json`);
  /** @type {Record<string, string | undefined>} */
  const env = {
    ...process.env,
    K6_NO_USAGE_REPORT: "true",
    BASE: options.url,
    TARGET: "worker",
    WORKLOAD: workload,
    DATA_START: String(dataStart),
    DATA_END: String(dataEnd),
    DURATION: options.duration,
    THRESHOLDS: "1",
    P95_MS: String(options.p95Ms[workload]),
    AUTH_TOKEN: options.token,
    TENANT: options.tenant,
  };
  const args = ["run", "--quiet", "--no-usage-report", "--summary-export", summaryFile];
  args.push(join(root, "bench", "e2e", "k6", "workload.js"));
  return new Promise((resolve) => {
    const child = spawn(k6, args, { env, stdio: ["ignore", "ignore", "inherit"] });
    child.on("error", (err) => {
      process.stderr.write(`[loadtest] could not run ${k6}: ${err.message}\n`);
      resolve({ code: 127 });
    });
    child.on("exit", (code) => {
      let summary;
      try {
        summary = JSON.parse(readFileSync(summaryFile, "utf8"));
      } catch {
        // k6 wrote no summary (it failed before measuring): the exit code tells.
      }
      resolve({ code, summary });
    });
  });
}

let failed = false;
const rows = [];
try {
  for (const workload of options.workloads) {
    const { code, summary } = await runWorkload(workload);
    const m = summary?.metrics ?? {};
    const requests = m.http_reqs?.count ?? 0;
    const errorRate = m.http_req_failed?.value ?? (requests > 0 ? 0 : 1);
    const p95 = m.http_req_duration?.["p(95)"];
    // 99: k6's exit code for crossed thresholds; anything else non-zero is a k6 or script failure.
    const verdict = code === 0 ? "ok" : code === 99 ? "THRESHOLD" : `k6 exit ${code}`;
    if (code !== 0) failed = true;
    rows.push(
      `| ${workload} | ${requests} | ${(errorRate * 100).toFixed(2)}% | ${p95 === undefined ? "–" : p95.toFixed(0)} | ${options.p95Ms[workload]} | ${verdict} |`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(
  ["", "| workload | requests | failed | p95 ms | p95 bound | result |", "|---|---|---|---|---|---|", ...rows, ""].join(
    "\n",
  ),
);
process.exit(failed ? 1 : 0);

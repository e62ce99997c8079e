// `npm test`: lint and format check, typecheck, bundle size and startup budgets, unit tests in Node, then end-to-end
// tests inside workerd. Stops at the first failing step with its exit code, and always ends with one plain
// "N passed, N failed" line.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readReport } from "./lib/test-report.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const reportDir = mkdtempSync(join(tmpdir(), "loki-vl-test-"));

/**
 * @typedef {{ name: string, cmd: string, args: string[], report?: string, skipUnless?: string }} Step
 * @typedef {{ name: string, status: "ok" | "failed" | "skipped", seconds: number, passed?: number, failed?: number, brokenFiles?: number, skippedTests?: number, skipped?: import("./lib/test-report.mjs").SkippedInFile[], note?: string }} Outcome
 */

/** @param {string} config @param {string} reportName @returns {string[]} */
const vitestArgs = (config, reportName) => [
  "vitest",
  "run",
  "--config",
  config,
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${join(reportDir, reportName)}`,
];

/** @type {Step[]} */
const steps = [
  { name: "lint", cmd: "npm", args: ["run", "lint"] },
  { name: "typecheck", cmd: "npm", args: ["run", "typecheck"] },
  { name: "budgets", cmd: "node", args: ["scripts/check-budgets.mjs"] },
  { name: "unit tests", cmd: "npx", args: vitestArgs("vitest.unit.config.ts", "unit.json"), report: "unit.json" },
  {
    name: "worker tests",
    cmd: "npx",
    args: vitestArgs("vitest.worker.config.ts", "worker.json"),
    report: "worker.json",
    skipUnless: "vitest.worker.config.ts",
  },
];

/** @param {Step} step @returns {Promise<number>} */
function runStep(step) {
  return new Promise((resolve) => {
    const child = spawn(step.cmd, step.args, { cwd: root, stdio: "inherit" });
    child.on("error", (err) => {
      process.stderr.write(`[test] could not run ${step.cmd}: ${err.message}\n`);
      resolve(127);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** @param {string} name */
const readCounts = (name) => readReport(join(reportDir, name), root);

/** @type {Outcome[]} */
const outcomes = [];
let exitCode = 0;
for (const step of steps) {
  if (step.skipUnless && !existsSync(join(root, step.skipUnless))) {
    process.stdout.write(`\n[test] skipping ${step.name}: ${step.skipUnless} does not exist yet\n`);
    outcomes.push({ name: step.name, status: "skipped", seconds: 0, note: `no ${step.skipUnless}` });
    continue;
  }
  process.stdout.write(`\n[test] ${step.name}: ${step.cmd} ${step.args.join(" ")}\n`);
  const started = Date.now();
  const code = await runStep(step);
  const seconds = (Date.now() - started) / 1000;
  const counts = step.report ? readCounts(step.report) : undefined;
  const failedByCounts = counts !== undefined && (counts.failed > 0 || counts.brokenFiles > 0);
  /** @type {Outcome} */
  const outcome = { name: step.name, status: code === 0 && !failedByCounts ? "ok" : "failed", seconds, ...counts };
  if (counts && counts.brokenFiles > 0)
    outcome.note = `${counts.brokenFiles} test file(s) failed outside any test: a load error or a failed hook`;
  outcomes.push(outcome);
  if (outcome.status === "failed") {
    exitCode = code === 0 ? 1 : code;
    break;
  }
}

const passed = outcomes.reduce((sum, o) => sum + (o.passed ?? 0), 0);
const failed = outcomes.reduce((sum, o) => sum + (o.failed ?? 0) + (o.brokenFiles ?? 0), 0);
const skippedTests = outcomes.reduce((sum, o) => sum + (o.skippedTests ?? 0), 0);
const notRun = steps.slice(outcomes.length).map((s) => s.name);

process.stdout.write("\n[test] summary\n");
for (const o of outcomes) {
  const counts = o.passed !== undefined ? `  ${o.passed} passed, ${o.failed} failed, ${o.skippedTests} skipped` : "";
  const note = o.note ? `  (${o.note})` : "";
  process.stdout.write(
    `  ${o.status.padEnd(7)} ${o.name.padEnd(13)} ${o.seconds.toFixed(1).padStart(6)} s${counts}${note}\n`,
  );
}
for (const name of notRun) process.stdout.write(`  not run ${name}\n`);
if (skippedTests > 0) process.stdout.write(`  (${skippedTests} tests skipped)\n`);
for (const o of outcomes) {
  for (const s of o.skipped ?? []) {
    process.stdout.write(`  ${o.name}: ${s.file}: ${s.count} skipped: ${s.reasons.join("; ")}\n`);
  }
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);

rmSync(reportDir, { recursive: true, force: true });
process.exit(exitCode);

// The counts `npm test` prints from vitest's JSON report (Jest-compatible shape): passed, failed,
// files broken outside any test, and every skipped test with the reason it gives.

import { readFileSync } from "node:fs";

/** @typedef {{ file: string, count: number, reasons: string[] }} SkippedInFile */

const SKIP_STATUSES = new Set(["skipped", "pending", "todo", "disabled"]);

/**
 * Why a test was skipped: the `(skipped: ...)` note its suite or test name carries, else its full
 * name, so every skip in the summary can be traced to the test that says why.
 * @param {{ fullName?: string, title?: string }} test
 */
function skipReason(test) {
  const name = test.fullName ?? test.title ?? "(unnamed test)";
  return /\(skipped: ([^)]*)\)/.exec(name)?.[1] ?? name;
}

/**
 * Skipped tests per file, each with its distinct reasons.
 * @param {{ name?: string, assertionResults?: { status?: string, fullName?: string, title?: string }[] }[]} files
 * @param {string} root the checkout, left off file names
 * @returns {SkippedInFile[]}
 */
export function skippedByFile(files, root) {
  return files.flatMap((file) => {
    const skipped = (file.assertionResults ?? []).filter((a) => SKIP_STATUSES.has(a.status ?? ""));
    if (skipped.length === 0) return [];
    const name = file.name ?? "(unknown file)";
    const relative = name.startsWith(root) ? name.slice(root.length + 1) : name;
    return [{ file: relative, count: skipped.length, reasons: [...new Set(skipped.map(skipReason))] }];
  });
}

/**
 * @param {string} path vitest's JSON report
 * @param {string} root the checkout, left off file names
 */
export function readReport(path, root) {
  try {
    const report = JSON.parse(readFileSync(path, "utf8"));
    return {
      passed: Number(report.numPassedTests ?? 0),
      failed: Number(report.numFailedTests ?? 0),
      skippedTests: Number(report.numPendingTests ?? 0) + Number(report.numTodoTests ?? 0),
      skipped: Array.isArray(report.testResults) ? skippedByFile(report.testResults, root) : [],
      // A file that fails to load, or whose hook fails, adds no failed test (its tests are skipped);
      // count such files so they cannot pass unnoticed.
      brokenFiles: Array.isArray(report.testResults)
        ? report.testResults.filter(
            (/** @type {{ status?: string, assertionResults?: { status?: string }[] }} */ file) =>
              file.status === "failed" && !(file.assertionResults ?? []).some((a) => a.status === "failed"),
          ).length
        : 0,
    };
  } catch {
    return undefined;
  }
}

/**
 * The summary `npm test` prints: every skipped test is counted per file, with the reason its name
 * gives, so a skip in CI output says why it happened.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readReport, skippedByFile } from "../../../scripts/lib/test-report.mjs";

const root = "/checkout";
const work = mkdtempSync(join(tmpdir(), "test-report-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("skipped tests in the summary", () => {
  it("counts skips per file with the note their suite names carry, or their full name", () => {
    const files = [
      {
        name: "/checkout/test/unit/logql/corpus.test.ts",
        assertionResults: [
          { status: "skipped", fullName: "LogQL corpus: valid queries (skipped: no corpus) has the expected size" },
          { status: "skipped", fullName: "LogQL corpus: invalid queries (skipped: no corpus) parses" },
          { status: "passed", fullName: "something else" },
        ],
      },
      { name: "/checkout/test/unit/a.test.ts", assertionResults: [{ status: "passed", fullName: "runs" }] },
      {
        name: "/checkout/test/unit/b.test.ts",
        assertionResults: [
          { status: "todo", fullName: "b waits for the origin's fix" },
          { status: "pending", fullName: "b is pending" },
        ],
      },
    ];
    expect(skippedByFile(files, root)).toEqual([
      { file: "test/unit/logql/corpus.test.ts", count: 2, reasons: ["no corpus"] },
      { file: "test/unit/b.test.ts", count: 2, reasons: ["b waits for the origin's fix", "b is pending"] },
    ]);
  });

  it("reads a vitest JSON report into counts", () => {
    const path = join(work, "report.json");
    writeFileSync(
      path,
      JSON.stringify({
        numPassedTests: 3,
        numFailedTests: 1,
        numPendingTests: 1,
        numTodoTests: 0,
        testResults: [
          {
            name: "/checkout/test/unit/x.test.ts",
            status: "failed",
            assertionResults: [
              { status: "failed", fullName: "x fails" },
              { status: "skipped", fullName: "x (skipped: not on this platform) y" },
            ],
          },
          { name: "/checkout/test/unit/broken.test.ts", status: "failed", assertionResults: [] },
        ],
      }),
    );
    expect(readReport(path, root)).toEqual({
      passed: 3,
      failed: 1,
      skippedTests: 1,
      skipped: [{ file: "test/unit/x.test.ts", count: 1, reasons: ["not on this platform"] }],
      brokenFiles: 1,
    });
    expect(readReport(join(work, "absent.json"), root)).toBeUndefined();
  });
});

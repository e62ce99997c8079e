/**
 * Which unwrap push-downs read their guard's rows back instead of voiding the answer, and how: the
 * rows the same pipes and guard match, their added fields deleted, aggregated by the Worker as a
 * fold the origin's partial aggregate merges with.
 */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { SampleExpr } from "../../../src/logql/ast";
import { printExpr } from "../../../src/logql/printer";
import { planUnwrapPushdown } from "../../../src/plan/unwrap-pushdown";
import { parsedLabelValues } from "../../../src/plan/parser-pushdown";
import { extractedUnwrapSource } from "../../../src/plan/unwrap-extract";

const S = 1_000_000_000n;
const GRID = { start: 3600n * S, end: 7200n * S, step: 60n * S, instant: false };
const plan = (q: string) =>
  planUnwrapPushdown(parseExpr(q) as SampleExpr, GRID, undefined, parsedLabelValues, extractedUnwrapSource)!;

describe("guarded samples of the unwrap push-down", () => {
  it("folds the guard's rows as the part merges: sums before a rate divides, extremes, an average's sum and count", () => {
    const cases: [string, string, string | undefined][] = [
      [
        'sum by (app) (rate({app="x"} | json | unwrap v [5m]))',
        'sum by (app) (sum_over_time({app="x"} | json | unwrap v [5m]))',
        undefined,
      ],
      [
        'min_over_time({app="x"} | json | unwrap v [5m]) by (app)',
        'min by (app) (min_over_time({app="x"} | json | unwrap v [5m]))',
        undefined,
      ],
      [
        'max by (app) (max_over_time({app="x"} | logfmt | unwrap v [5m]))',
        'max by (app) (max_over_time({app="x"} | logfmt | unwrap v [5m]))',
        undefined,
      ],
      [
        'avg_over_time({app="x"} | json | unwrap v | __error__="" [5m]) by (app)',
        'sum by (app) (sum_over_time({app="x"} | json | unwrap v | __error__="" [5m]))',
        // Not LogQL Loki parses (an unwrapped count), but what the engine folds: the samples' count.
        'sum by (app) (count_over_time({app="x"} | json | unwrap v | __error__="" [5m]))',
      ],
    ];
    for (const [q, expr, counts] of cases) {
      const guarded = plan(q).guarded!;
      expect(printExpr(guarded.expr), q).toBe(printExpr(parseExpr(expr)));
      expect(guarded.counts && printExpr(guarded.counts), q).toBe(
        counts &&
          printExpr(parseExpr(counts.replace("count_over_time", "sum_over_time"))).replace(
            "sum_over_time",
            "count_over_time",
          ),
      );
    }
  });

  it("reads back the rows the guard flags, with the fields the pipes added deleted", () => {
    const json = plan('sum by (app) (sum_over_time({app="x"} | json | unwrap v [5m]))');
    const guard = / \| delete __guard_row \| format if \((.*)\) "1" as __guard_row/.exec(json.logsql)![1]!;
    expect(json.guarded!.logsql).toContain(` | filter ${guard} | delete __unwrap_*, __guard_*`);
    expect(json.guarded!.logsql).not.toContain("stats");
    const logfmt = plan('sum by (job) (sum_over_time({app="x"} | logfmt | unwrap v [5m]))');
    expect(logfmt.guarded!.logsql).toMatch(/ \| delete __b_\*, .*__guard_\*$/);
  });

  it("after a regexp, writes back the stored fields the extraction overwrote", () => {
    const q =
      'sum by (method) (sum_over_time({app="x"} | regexp "(?P<method>\\\\S+) (?P<size>\\\\d+) (?P<other>\\\\S+)" | unwrap size [5m]))';
    const guarded = plan(q).guarded!;
    expect(guarded.logsql).toContain('format "<__b_other>" as "other"');
    expect(guarded.logsql).toMatch(/ \| delete [^|]*__guard_exact$/);
  });

  it("leaves a quantile's, a variance's, a first's and a last's guard rows voiding the answer", () => {
    for (const q of [
      'quantile_over_time(0.9, {app="x"} | json | unwrap v [5m]) by (app)',
      'stdvar_over_time({app="x"} | json | unwrap v [5m]) by (app)',
      'last_over_time({app="x"} | json | unwrap v [5m]) by (app)',
    ]) {
      expect(plan(q).guarded, q).toBeUndefined();
    }
  });
});

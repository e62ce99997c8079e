/**
 * The rows a counting push-down's guard matches, as the Worker reads them back: the plan's rows
 * filtered by the guard, each with its stored fields only, and the part counted over them.
 */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { SampleExpr } from "../../../src/logql/ast";
import { printExpr } from "../../../src/logql/printer";
import { planParserPushdown } from "../../../src/plan/parser-pushdown";
import { planExtractPushdown } from "../../../src/plan/extract-pushdown";

const S = 1_000_000_000n;
const GRID = { start: 3600n * S, end: 7200n * S, step: 60n * S, instant: false };

describe("guardedRows", () => {
  it("reads the guard's rows of a parser push-down without the fields its pipes add", () => {
    const p = planParserPushdown(
      parseExpr('sum by (method) (rate({app="x"} |= "GET" | json | status >= 500 [5m]))') as SampleExpr,
      GRID,
    )!;
    const rows = p.guarded!.logsql;
    expect(rows.startsWith('{app="x"} _msg:~"GET" | format "<method>" as __b_method')).toBe(true);
    expect(rows).toMatch(/ \| filter .*__error__:\*.* \| delete __b_\*, __p_\*, .*__guard_\*/);
    expect(rows).not.toContain("stats");
    // A rate's counts: the caller adds them to the origin's and divides.
    expect(printExpr(p.guarded!.expr)).toBe('sum by (method)(count_over_time({app="x"} | json | status>=500[5m]))');
  });

  it("writes back the fields a regexp's groups overwrote", () => {
    const p = planExtractPushdown(
      parseExpr(
        'sum by (status) (count_over_time({app="x"} | regexp "(?P<status>\\\\d+) (?P<size>\\\\d+)" [1m]))',
      ) as SampleExpr,
      GRID,
    )!;
    const rows = p.guarded!.logsql;
    expect(rows).toContain('format "<status>" as __b_status');
    expect(rows).toContain('format "<__b_status>" as "status"');
    expect(rows).toContain('format "<__b_size>" as "size"');
    expect(rows.indexOf("| filter ")).toBeLessThan(rows.indexOf('as "status"'));
  });
});

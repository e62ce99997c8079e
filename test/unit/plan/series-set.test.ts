/**
 * Under `count`, an aggregation that makes one series per group may become a `sum`: the same series
 * with the same labels (plan/series-set.ts). That the answers agree is proved against the real
 * VictoriaLogs in test/worker/series-pushdown.test.ts; here, which forms are rewritten and which not.
 */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import { printExpr } from "../../../src/logql/printer";
import type { SampleExpr } from "../../../src/logql/ast";
import { cheaperEquivalent } from "../../../src/plan/series-set";

const rewritten = (q: string) => printExpr(cheaperEquivalent(parseExpr(q) as SampleExpr));
const R = 'count_over_time({app="a"}[5m])';

describe("cheaperEquivalent", () => {
  it("makes each group-per-series aggregation under count a sum", () => {
    for (const op of ["count", "avg", "max", "min", "stddev", "stdvar"]) {
      expect(rewritten(`count(${op} by (pod) (${R}))`)).toBe(printExpr(parseExpr(`count(sum by (pod) (${R}))`)));
    }
    expect(rewritten(`count by (ns) (count without (pod) (${R}))`)).toBe(
      printExpr(parseExpr(`count by (ns) (sum without (pod) (${R}))`)),
    );
    expect(rewritten(`count(count(${R}))`)).toBe(printExpr(parseExpr(`count(sum(${R}))`)));
  });

  it("reaches under binary operations and label_replace", () => {
    expect(rewritten(`count(max by (pod) (${R})) / 2`)).toBe(printExpr(parseExpr(`count(sum by (pod) (${R})) / 2`)));
    expect(rewritten(`label_replace(count(avg by (pod) (${R})), "x", "$1", "", "")`)).toBe(
      printExpr(parseExpr(`label_replace(count(sum by (pod) (${R})), "x", "$1", "", "")`)),
    );
  });

  it("keeps every form whose values, or whose set of series, the answer depends on", () => {
    for (const q of [
      `count(topk(3, ${R}))`,
      `count(bottomk(3, sum by (pod) (${R})))`,
      `count(count by (pod) (${R}) > 2)`,
      `sum(count by (pod) (${R}))`,
      `max(count by (pod) (${R}))`,
      `count(${R})`,
      `count(sort(${R}))`,
    ]) {
      expect(rewritten(q), q).toBe(printExpr(parseExpr(q)));
    }
  });

  it("returns the same node when nothing changes", () => {
    const expr = parseExpr(`sum by (pod) (${R})`) as SampleExpr;
    expect(cheaperEquivalent(expr)).toBe(expr);
  });
});

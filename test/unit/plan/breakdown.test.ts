import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { SampleExpr } from "../../../src/logql/ast";
import { breakdownPart } from "../../../src/plan/breakdown";
import { printExpr } from "../../../src/logql/printer";

const INNER = 'sum by (pod) (count_over_time({app="a"} [5m]))';
const part = (query: string) => printExpr(breakdownPart(parseExpr(query) as SampleExpr));

describe("breakdownPart: the subtree whose groups are the answer's series one to one", () => {
  it.each([
    [INNER, INNER],
    [`${INNER} / 60`, INNER],
    [`60 * ${INNER}`, INNER],
    [`(${INNER} - 1) * (2 + 3)`, INNER],
    [`${INNER} > bool 10`, INNER],
    [`2 ^ ${INNER} % 7`, INNER],
  ])("%s → %s", (query, expected) => {
    expect(part(query)).toBe(printExpr(parseExpr(expected) as SampleExpr));
  });

  it.each([
    // A comparison without bool drops series; label_replace may merge them; two vectors match.
    `${INNER} > 10`,
    `label_replace(${INNER}, "x", "$1", "pod", "(.*)")`,
    `${INNER} / ${INNER}`,
    `${INNER} + vector(1)`,
    `topk(3, ${INNER})`,
  ])("%s keeps the whole expression", (query) => {
    expect(part(query)).toBe(printExpr(parseExpr(query) as SampleExpr));
  });
});

/**
 * Loki's post-parse validation (`validateExpr`): every queried selector needs at least one
 * matcher that cannot match the empty string, and `sort`/`sort_desc` take no grouping labels
 * (VECTOR_AGGREGATIONS' `no-labels`).
 * Runs after construction checks, in Loki's order.
 */

import type { Expr, Matcher, SampleExpr } from "./ast";
import { semanticError } from "./errors";
import { vectorAggregation } from "./functions";
import { compileGoRegexp } from "./go-regexp";

export const ERR_EMPTY_COMPATIBLE_MATCHERS =
  'queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will';

export function validateExpr(e: Expr): void {
  if (e.kind === "LogSelector") {
    validateMatchers(e.matchers);
    return;
  }
  validateSample(e);
}

function validateSample(e: SampleExpr): void {
  switch (e.kind) {
    case "BinaryOp":
      validateSample(e.lhs);
      validateSample(e.rhs);
      return;
    case "Literal":
    case "Vector":
      return;
    case "VectorAggregation":
      if (vectorAggregation(e.op).grouping === "no-labels" && e.grouping && e.grouping.labels.length > 0) {
        // Loki's message names sort and sort_desc, the only aggregations refusing labels.
        throw semanticError("sort and sort_desc doesn't allow grouping by ");
      }
      validateSample(e.expr);
      return;
    case "RangeAggregation":
      validateMatchers(e.range.selector.matchers);
      return;
    case "LabelReplace": {
      // Loki validates only the selector its Selector() method reaches: the leftmost one.
      const matchers = leftmostMatchers(e.expr);
      if (matchers !== undefined) validateMatchers(matchers);
      return;
    }
  }
}

function leftmostMatchers(e: SampleExpr): Matcher[] | undefined {
  switch (e.kind) {
    case "RangeAggregation":
      return e.range.selector.matchers;
    case "VectorAggregation":
    case "LabelReplace":
      return leftmostMatchers(e.expr);
    case "BinaryOp":
      return leftmostMatchers(e.lhs);
    case "Literal":
    case "Vector":
      return undefined;
  }
}

export function validateMatchers(matchers: Matcher[]): void {
  if (!matchers.some((m) => !matcherMatchesEmpty(m))) throw semanticError(ERR_EMPTY_COMPATIBLE_MATCHERS);
}

/** Whether a stream matcher accepts a missing label (the empty value). */
export function matcherMatchesEmpty(m: Matcher): boolean {
  switch (m.op) {
    case "=":
      return m.value === "";
    case "!=":
      return m.value !== "";
    case "=~":
      return compileGoRegexp(`(?s:${m.value})`, { anchored: true }).test("");
    case "!~":
      return !compileGoRegexp(`(?s:${m.value})`, { anchored: true }).test("");
  }
}

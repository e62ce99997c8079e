/**
 * Loki's post-parse validation (`validateExpr`): every queried selector needs at least one
 * matcher that cannot match the empty string, and `sort`/`sort_desc` take no grouping labels
 * (VECTOR_AGGREGATIONS' `no-labels`).
 * Runs after construction checks, in Loki's order.
 */

import type { Expr, LogSelectorExpr, Matcher, SampleExpr } from "./ast";
import { semanticError } from "./errors";
import { vectorAggregation } from "./functions";
import { compileGoRegexp } from "./go-regexp";
import { children, isKind, SKIP, walk, type SyntaxNode } from "./walk";

export const ERR_EMPTY_COMPATIBLE_MATCHERS =
  'queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will';

export function validateExpr(e: Expr): void {
  walk(e, {
    LogSelector: (selector) => {
      validateMatchers(selector.matchers);
      return SKIP;
    },
    VectorAggregation: (agg) => {
      if (vectorAggregation(agg.op).grouping === "no-labels" && agg.grouping && agg.grouping.labels.length > 0) {
        // Loki's message names sort and sort_desc, the only aggregations refusing labels.
        throw semanticError("sort and sort_desc doesn't allow grouping by ");
      }
    },
    LabelReplace: (replace) => {
      // Loki validates only the selector its Selector() method reaches: the leftmost one.
      const selector = leftmostSelector(replace.expr);
      if (selector !== undefined) validateMatchers(selector.matchers);
      return SKIP;
    },
  });
}

/** The selector reached by always following the first child (Loki's `Selector()`), if there is one. */
function leftmostSelector(e: SampleExpr): LogSelectorExpr | undefined {
  let node: SyntaxNode | undefined = e;
  while (node !== undefined && !isKind(node, "LogSelector")) node = children(node)[0];
  return node;
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

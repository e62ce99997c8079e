/** Terse builders for hand-written ASTs in the metric tests (the parser is another module's job). */
import type {
  BinaryOp,
  Grouping,
  LineFilterOp,
  Matcher,
  PipelineStage,
  RangeAggregationExpr,
  RangeAggregationOp,
  SampleExpr,
  Unwrap,
  VectorAggregationExpr,
  VectorAggregationOp,
  VectorMatching,
} from "../../../../../src/logql/ast";

const UNITS: Record<string, number> = { s: 1e9, m: 60e9, h: 3600e9 };

export function ns(duration: string): number {
  const m = /^(\d+)([smh])$/.exec(duration);
  if (!m) throw new Error(`bad duration ${duration}`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

/** `app="nginx", cluster=~"us.*"` → matchers. */
export function matchers(text: string): Matcher[] {
  return [...text.matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)].map((m) => ({
    name: m[1]!,
    op: m[2] as Matcher["op"],
    value: m[3]!,
  }));
}

export function lineFilter(op: LineFilterOp, ...values: string[]): PipelineStage {
  return { kind: "LineFilter", op, values: values.map((value) => ({ type: "string", value })) };
}

export interface RangeOptions {
  offset?: string;
  pipeline?: PipelineStage[];
  grouping?: Grouping;
  param?: number;
  unwrap?: Unwrap;
}

export function range(
  op: RangeAggregationOp,
  selector: string,
  window: string,
  o: RangeOptions = {},
): RangeAggregationExpr {
  return {
    kind: "RangeAggregation",
    op,
    param: o.param,
    grouping: o.grouping,
    range: {
      kind: "LogRange",
      selector: { kind: "LogSelector", matchers: matchers(selector), pipeline: o.pipeline ?? [] },
      unwrap: o.unwrap,
      range: ns(window),
      offset: o.offset ? ns(o.offset) : 0,
      rangeText: window,
      offsetText: o.offset,
    },
  };
}

export const by = (...labels: string[]): Grouping => ({ without: false, labels });
export const without = (...labels: string[]): Grouping => ({ without: true, labels });

export function agg(
  op: VectorAggregationOp,
  expr: SampleExpr,
  grouping?: Grouping,
  param?: number,
): VectorAggregationExpr {
  return { kind: "VectorAggregation", op, expr, grouping: grouping ?? by(), param };
}

export function bin(
  op: BinaryOp,
  lhs: SampleExpr,
  rhs: SampleExpr,
  o: { bool?: boolean; matching?: VectorMatching } = {},
): SampleExpr {
  return { kind: "BinaryOp", op, lhs, rhs, returnBool: o.bool ?? false, matching: o.matching };
}

export const lit = (value: number): SampleExpr => ({ kind: "Literal", value });
export const vec = (value: number): SampleExpr => ({ kind: "Vector", value });

export function on(
  labels: string[],
  card: VectorMatching["card"] = "one-to-one",
  include: string[] = [],
): VectorMatching {
  return { on: true, labels, card, include };
}

export function ignoring(
  labels: string[],
  card: VectorMatching["card"] = "one-to-one",
  include: string[] = [],
): VectorMatching {
  return { on: false, labels, card, include };
}

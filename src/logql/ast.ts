/**
 * The typed LogQL syntax tree.
 *
 * The parser (generated from grammar/logql.peggy) builds these nodes, the printer turns them back
 * into Loki's canonical text, the planner decides what VictoriaLogs computes, and the engine
 * evaluates the rest. Every consumer switches on `kind`, so adding a node is a compile error in
 * every place that must learn about it.
 *
 * Durations are nanoseconds as `number`: whole-second durations stay exact far beyond any sensible
 * range, and arithmetic on them stays cheap. Sample timestamps are never stored in the tree.
 */

import type { RangeFunctionName, VectorAggregationName } from "./functions";

// ---------------------------------------------------------------------------------------------
// Stream selectors

export type MatchOp = "=" | "!=" | "=~" | "!~";

export interface Matcher {
  name: string;
  op: MatchOp;
  value: string;
}

// ---------------------------------------------------------------------------------------------
// Line filters: `|= "a" or "b"`, `!~ "re"`, `|> "<_> x <_>"`, `|= ip("10.0.0.0/8")`

export type LineFilterOp = "|=" | "!=" | "|~" | "!~" | "|>" | "!>";

export type LineFilterValue = { type: "string"; value: string } | { type: "ip"; cidr: string };

export interface LineFilterStage {
  kind: "LineFilter";
  op: LineFilterOp;
  /** The `or` chain: at least one value. For negative ops the line must match none of them. */
  values: LineFilterValue[];
}

// ---------------------------------------------------------------------------------------------
// Parsers

/** `name="expression"` in `| json a="b.c"` or `| logfmt a="b"`; a bare `name` has no expression. */
export interface ExtractionParam {
  label: string;
  expression?: string;
}

export interface JsonParserStage {
  kind: "JsonParser";
  params: ExtractionParam[];
}

export interface LogfmtParserStage {
  kind: "LogfmtParser";
  strict: boolean;
  keepEmpty: boolean;
  params: ExtractionParam[];
}

export interface RegexpParserStage {
  kind: "RegexpParser";
  regex: string;
}

export interface PatternParserStage {
  kind: "PatternParser";
  pattern: string;
}

export interface UnpackParserStage {
  kind: "UnpackParser";
}

// ---------------------------------------------------------------------------------------------
// Label filters: `| status >= 500 and level="error" or duration > 1s`

export type StringFilterOp = MatchOp;
export type NumericFilterOp = "==" | "=" | "!=" | ">" | ">=" | "<" | "<=";

export type LabelFilterExpr =
  | { type: "string"; name: string; op: StringFilterOp; value: string }
  | { type: "number"; name: string; op: NumericFilterOp; value: number; text: string }
  /** value in nanoseconds; `text` keeps the literal as written (`1s`, `1h30m`) for printing. */
  | { type: "duration"; name: string; op: NumericFilterOp; value: number; text: string }
  /** value in bytes; `text` keeps the literal as written (`10KB`). */
  | { type: "bytes"; name: string; op: NumericFilterOp; value: number; text: string }
  | { type: "ip"; name: string; op: "=" | "!="; cidr: string }
  /**
   * Conjunction or disjunction. `sep` records how an `and` was written (`and`, `,` or plain
   * juxtaposition) since Loki's canonical form depends on it.
   */
  | { type: "binary"; op: "and" | "or"; left: LabelFilterExpr; right: LabelFilterExpr; sep?: "and" | "," | " " }
  | { type: "paren"; expr: LabelFilterExpr };

export interface LabelFilterStage {
  kind: "LabelFilter";
  filter: LabelFilterExpr;
}

// ---------------------------------------------------------------------------------------------
// Formatting and label shaping

export interface LineFormatStage {
  kind: "LineFormat";
  template: string;
}

/** `dst=src` renames; `dst="{{ template }}"` sets from a template. */
export interface LabelFormatOp {
  dst: string;
  src: string;
  isTemplate: boolean;
}

export interface LabelFormatStage {
  kind: "LabelFormat";
  ops: LabelFormatOp[];
}

export interface DecolorizeStage {
  kind: "Decolorize";
}

/** `drop a, b="x"` / `keep a, b=~"y"`: a bare name or a matcher on the label's value. */
export type LabelSelectorItem = { name: string; matcher?: Matcher };

export interface DropStage {
  kind: "Drop";
  items: LabelSelectorItem[];
}

export interface KeepStage {
  kind: "Keep";
  items: LabelSelectorItem[];
}

export type PipelineStage =
  | LineFilterStage
  | JsonParserStage
  | LogfmtParserStage
  | RegexpParserStage
  | PatternParserStage
  | UnpackParserStage
  | LabelFilterStage
  | LineFormatStage
  | LabelFormatStage
  | DecolorizeStage
  | DropStage
  | KeepStage;

export type ParserStage =
  JsonParserStage | LogfmtParserStage | RegexpParserStage | PatternParserStage | UnpackParserStage;

// ---------------------------------------------------------------------------------------------
// Log queries

export interface LogSelectorExpr {
  kind: "LogSelector";
  matchers: Matcher[];
  pipeline: PipelineStage[];
}

// ---------------------------------------------------------------------------------------------
// Metric queries

export type UnwrapConversion = "" | "bytes" | "duration" | "duration_seconds";

export interface Unwrap {
  label: string;
  conversion: UnwrapConversion;
  /** Label filters written after the unwrap (`| unwrap x | __error__=""`). */
  postFilters: LabelFilterExpr[];
}

/** `{...} | pipeline | unwrap x [5m] offset 1h` — the argument of a range aggregation. */
export interface LogRangeExpr {
  kind: "LogRange";
  selector: LogSelectorExpr;
  unwrap?: Unwrap;
  /** Range in nanoseconds. */
  range: number;
  /** Offset in nanoseconds (0 when absent). */
  offset: number;
  /** The range literal as written (`5m`), kept for printing. */
  rangeText: string;
  /** The offset literal as written, kept for printing. */
  offsetText?: string;
}

/** The range functions: see RANGE_FUNCTIONS in ./functions.ts. */
export type RangeAggregationOp = RangeFunctionName;

export interface Grouping {
  without: boolean;
  labels: string[];
}

export interface RangeAggregationExpr {
  kind: "RangeAggregation";
  op: RangeAggregationOp;
  range: LogRangeExpr;
  /** The argument before the log range (quantile_over_time's φ; see RANGE_FUNCTIONS). */
  param?: number;
  grouping?: Grouping;
}

/** The vector aggregations: see VECTOR_AGGREGATIONS in ./functions.ts. */
export type VectorAggregationOp = VectorAggregationName;

export interface VectorAggregationExpr {
  kind: "VectorAggregation";
  op: VectorAggregationOp;
  expr: SampleExpr;
  /** The argument before the expression (topk's k; see VECTOR_AGGREGATIONS). */
  param?: number;
  grouping?: Grouping;
}

export type ArithmeticOp = "+" | "-" | "*" | "/" | "%" | "^";
export type ComparisonOp = "==" | "!=" | ">" | ">=" | "<" | "<=";
export type SetOp = "and" | "or" | "unless";
export type BinaryOp = ArithmeticOp | ComparisonOp | SetOp;

export interface VectorMatching {
  /** `on (...)` when true, `ignoring (...)` when false. */
  on: boolean;
  labels: string[];
  card: "one-to-one" | "many-to-one" | "one-to-many";
  /** Extra labels named in `group_left (...)` / `group_right (...)`. */
  include: string[];
}

export interface BinaryOpExpr {
  kind: "BinaryOp";
  op: BinaryOp;
  lhs: SampleExpr;
  rhs: SampleExpr;
  returnBool: boolean;
  matching?: VectorMatching;
}

export interface LiteralExpr {
  kind: "Literal";
  value: number;
}

export interface VectorExpr {
  kind: "Vector";
  value: number;
}

export interface LabelReplaceExpr {
  kind: "LabelReplace";
  expr: SampleExpr;
  dst: string;
  replacement: string;
  src: string;
  regex: string;
}

export type SampleExpr =
  RangeAggregationExpr | VectorAggregationExpr | BinaryOpExpr | LiteralExpr | VectorExpr | LabelReplaceExpr;

export type Expr = LogSelectorExpr | SampleExpr;

export function isLogExpr(e: Expr): e is LogSelectorExpr {
  return e.kind === "LogSelector";
}

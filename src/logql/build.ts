/**
 * Turns the grammar's concrete tree into the AST, running the checks Loki's parser actions run
 * while building nodes (aggregation parameters, unwrap rules, literal legs of set operators,
 * regex validity, ...). Children are built before parents, so the first error found is the one
 * Loki's bottom-up parser reports.
 */

import type {
  BinaryOp,
  Expr,
  Grouping,
  LabelFilterExpr,
  LabelFormatOp,
  LabelSelectorItem,
  LineFilterStage,
  LogRangeExpr,
  LogSelectorExpr,
  Matcher,
  PipelineStage,
  RangeAggregationExpr,
  RangeAggregationOp,
  SampleExpr,
  Unwrap,
  UnwrapConversion,
  VectorAggregationOp,
  VectorMatching,
} from "./ast";
import { semanticError } from "./errors";
import { type RangeFunctionFacts, type VectorAggregationFacts, rangeFunction, vectorAggregation } from "./functions";
import { formatFloat, parseFloat, parseInt } from "../core/go/strconv";
import { goRegexError, goRegexGroupNames } from "./regex";
import { arithmetic, compare } from "./arith";

// ---------------------------------------------------------------------------------------------
// The concrete tree produced by grammar/logql.peggy

type CMatcher = Matcher;
interface CLit {
  t: "lit";
  text: string;
  neg: boolean;
}
type CLabelFilter =
  | ({ t: "m" } & CMatcher)
  | { t: "num"; name: string; op: string; lit: CLit }
  | { t: "dur"; name: string; op: string; ns: number; text: string }
  | { t: "bytes"; name: string; op: string; value: number; text: string }
  | { t: "ip"; name: string; op: "=" | "!="; cidr: string }
  | { t: "and"; sep: "and" | "," | " "; l: CLabelFilter; r: CLabelFilter }
  | { t: "or"; l: CLabelFilter; r: CLabelFilter };
type CStage =
  | { t: "lf"; op: LineFilterStage["op"]; values: LineFilterStage["values"] }
  | { t: "logfmt"; flags: string[]; params: Array<{ label: string; expression?: string }> | null }
  | { t: "json"; params: Array<{ label: string; expression?: string }> | null }
  | { t: "regexp"; s: string }
  | { t: "pattern"; s: string }
  | { t: "unpack" }
  | { t: "line_format"; s: string }
  | { t: "label_format"; ops: LabelFormatOp[] }
  | { t: "decolorize" }
  | { t: "drop"; items: Array<{ name: string; matcher?: CMatcher }> }
  | { t: "keep"; items: Array<{ name: string; matcher?: CMatcher }> }
  | { t: "labelfilter"; f: CLabelFilter };
interface CDuration {
  ns: number;
  text: string;
}
interface CRange {
  t: "range";
  sel: CMatcher[];
  stages: CStage[];
  unwrap: { conv: UnwrapConversion; label: string; post: CLabelFilter[] } | null;
  range: CDuration;
  offset: CDuration | null;
}
interface CMod {
  bool: boolean;
  matching?: { on: boolean; labels: string[]; card: VectorMatching["card"]; include: string[] | null };
}
export type CNode =
  | { t: "log"; sel: CMatcher[]; stages: CStage[] }
  | { t: "paren"; e: CNode }
  | CLit
  | { t: "vec"; text: string }
  | { t: "lr"; e: CNode; dst: string; rep: string; src: string; re: string }
  | { t: "vagg"; op: VectorAggregationOp; grouping: Grouping | null; param: string | null; e: CNode }
  | { t: "ragg"; op: RangeAggregationOp; grouping: Grouping | null; param: string | null; r: CRange }
  | { t: "bin"; op: BinaryOp; mod: CMod; l: CNode; r: CNode };

// ---------------------------------------------------------------------------------------------

/** Loki's Go type names for log operands, as they appear in binary operation errors. */
function goTypeName(e: LogSelectorExpr): string {
  return e.pipeline.length === 0 ? "*syntax.MatchersExpr" : "*syntax.PipelineExpr";
}

export function buildExpr(n: CNode): Expr {
  switch (n.t) {
    case "paren":
      return buildExpr(n.e);
    case "log":
      return buildLogSelector(n.sel, n.stages);
    case "lit":
      return { kind: "Literal", value: literalValue(n) };
    case "vec": {
      const v = parseFloat(n.text);
      if (!v.ok) throw semanticError(`unable to parse vectorExpr as a float: ${v.error}`);
      return { kind: "Vector", value: v.value };
    }
    case "lr":
      return buildLabelReplace(n);
    case "vagg":
      return buildVectorAggregation(n);
    case "ragg":
      return buildRangeAggregation(n);
    case "bin":
      return buildBinary(n);
  }
}

function literalValue(n: CLit): number {
  const v = parseFloat(n.text);
  if (!v.ok) throw semanticError(`unable to parse literal as a float: ${v.error}`);
  return n.neg ? -v.value : v.value;
}

function buildMatcher(m: CMatcher): Matcher {
  if (m.op === "=~" || m.op === "!~") {
    // Prometheus compiles matcher regexes fully anchored and with `.` matching newlines.
    const err = goRegexError(`^(?s:${m.value})$`);
    if (err !== undefined) throw semanticError(err);
  }
  return { name: m.name, op: m.op, value: m.value };
}

function buildLogSelector(sel: CMatcher[], stages: CStage[]): LogSelectorExpr {
  const matchers = sel.map(buildMatcher);
  const pipeline: PipelineStage[] = [];
  for (const s of stages) buildStage(s, pipeline);
  return { kind: "LogSelector", matchers, pipeline };
}

function buildStage(s: CStage, out: PipelineStage[]): void {
  switch (s.t) {
    case "lf":
      if (s.op === "|=" || s.op === "|~" || s.op === "|>" || s.values.length === 1) {
        out.push({ kind: "LineFilter", op: s.op, values: s.values });
      } else {
        // `!= "a" or "b"` means neither: Loki rewrites it into one filter per value.
        for (const v of s.values) out.push({ kind: "LineFilter", op: s.op, values: [v] });
      }
      return;
    case "logfmt":
      out.push({
        kind: "LogfmtParser",
        strict: s.flags.includes("--strict"),
        keepEmpty: s.flags.includes("--keep-empty"),
        params: s.params ?? [],
      });
      return;
    case "json":
      out.push({ kind: "JsonParser", params: s.params ?? [] });
      return;
    case "regexp": {
      const err = goRegexError(s.s);
      if (err !== undefined) throw semanticError(`invalid regexp parser: ${err}`);
      if (goRegexGroupNames(s.s).length === 0) {
        throw semanticError("invalid regexp parser: at least one named capture must be supplied");
      }
      out.push({ kind: "RegexpParser", regex: s.s });
      return;
    }
    case "pattern": {
      const err = patternError(s.s);
      if (err !== undefined) throw semanticError(`invalid pattern parser: ${err}`);
      out.push({ kind: "PatternParser", pattern: s.s });
      return;
    }
    case "unpack":
      out.push({ kind: "UnpackParser" });
      return;
    case "line_format":
      out.push({ kind: "LineFormat", template: s.s });
      return;
    case "label_format":
      out.push({ kind: "LabelFormat", ops: s.ops.map((o) => ({ dst: o.dst, src: o.src, isTemplate: o.isTemplate })) });
      return;
    case "decolorize":
      out.push({ kind: "Decolorize" });
      return;
    case "drop":
    case "keep": {
      const items: LabelSelectorItem[] = s.items.map((i) =>
        i.matcher ? { name: i.name, matcher: buildMatcher(i.matcher) } : { name: i.name },
      );
      out.push(s.t === "drop" ? { kind: "Drop", items } : { kind: "Keep", items });
      return;
    }
    case "labelfilter":
      out.push({ kind: "LabelFilter", filter: buildLabelFilter(s.f) });
      return;
  }
}

/** Loki treats `=` and `==` alike for numeric, duration and byte filters and prints `==`. */
function numericOp(op: string): "==" | "!=" | ">" | ">=" | "<" | "<=" {
  return op === "=" ? "==" : (op as "==" | "!=" | ">" | ">=" | "<" | "<=");
}

function buildLabelFilter(f: CLabelFilter): LabelFilterExpr {
  switch (f.t) {
    case "m": {
      const m = buildMatcher(f);
      return { type: "string", name: m.name, op: m.op, value: m.value };
    }
    case "num": {
      const value = literalValue(f.lit);
      return { type: "number", name: f.name, op: numericOp(f.op), value, text: (f.lit.neg ? "-" : "") + f.lit.text };
    }
    case "dur":
      return { type: "duration", name: f.name, op: numericOp(f.op), value: f.ns, text: f.text };
    case "bytes":
      return { type: "bytes", name: f.name, op: numericOp(f.op), value: f.value, text: f.text };
    case "ip":
      return { type: "ip", name: f.name, op: f.op, cidr: f.cidr };
    case "and": {
      const left = buildLabelFilter(f.l);
      const right = buildLabelFilter(f.r);
      return { type: "binary", op: "and", left, right, sep: f.sep };
    }
    case "or": {
      const left = buildLabelFilter(f.l);
      const right = buildLabelFilter(f.r);
      return { type: "binary", op: "or", left, right };
    }
  }
}

/**
 * Loki's pattern parser rules: captures are `<name>`, `<_>` captures nothing, two captures may
 * not touch, and at least one named capture is required.
 */
function patternError(p: string): string | undefined {
  const parts = p.split(/(<[A-Za-z_][A-Za-z0-9_]*>)/);
  let named = 0;
  const seen = new Set<string>();
  let prevCapture = false;
  for (const part of parts) {
    if (part === "") continue;
    const isCapture = /^<[A-Za-z_][A-Za-z0-9_]*>$/.test(part);
    if (isCapture) {
      if (prevCapture) return "invalid expression";
      const name = part.slice(1, -1);
      if (name !== "_") {
        if (seen.has(name)) return `duplicate capture name (${name})`;
        seen.add(name);
        named++;
      }
    }
    prevCapture = isCapture;
  }
  if (named === 0) return "at least one capture is required";
  return undefined;
}

function buildUnwrap(u: NonNullable<CRange["unwrap"]>): Unwrap {
  return { label: u.label, conversion: u.conv, postFilters: u.post.map(buildLabelFilter) };
}

function buildLogRange(r: CRange): LogRangeExpr {
  const selector = buildLogSelector(r.sel, r.stages);
  const unwrap = r.unwrap ? buildUnwrap(r.unwrap) : undefined;
  const out: LogRangeExpr = {
    kind: "LogRange",
    selector,
    range: r.range.ns,
    offset: r.offset ? r.offset.ns : 0,
    rangeText: r.range.text.slice(1, -1),
  };
  if (unwrap) out.unwrap = unwrap;
  if (r.offset) out.offsetText = r.offset.text;
  return out;
}

/** The argument of a range function as Loki reads it, or its error. */
function rangeParam(
  op: RangeAggregationOp,
  kind: RangeFunctionFacts["param"],
  text: string | null,
): number | undefined {
  switch (kind) {
    case "none":
      if (text !== null) throw semanticError(`parameter ${text} not supported for operation ${op}`);
      return undefined;
    case "float": {
      if (text === null) throw semanticError(`parameter required for operation ${op}`);
      const v = parseFloat(text);
      if (!v.ok) throw semanticError(`invalid parameter for operation ${op}: ${v.error}`);
      return v.value;
    }
  }
}

/** Loki's construction checks of a range aggregation, in Loki's order, from RANGE_FUNCTIONS. */
function buildRangeAggregation(n: Extract<CNode, { t: "ragg" }>): RangeAggregationExpr {
  const range = buildLogRange(n.r);
  const facts = rangeFunction(n.op);
  const param = rangeParam(n.op, facts.param, n.param);
  if (n.grouping && !facts.grouping) throw semanticError(`grouping not allowed for ${n.op} aggregation`);
  if (range.unwrap) {
    if (facts.unwrap === "forbidden") throw semanticError(`invalid aggregation ${n.op} with unwrap`);
  } else if (facts.unwrap === "required") {
    throw semanticError(`invalid aggregation ${n.op} without unwrap`);
  }
  const out: RangeAggregationExpr = { kind: "RangeAggregation", op: n.op, range };
  if (param !== undefined) out.param = param;
  if (n.grouping) out.grouping = n.grouping;
  return out;
}

/** The argument of a vector aggregation as Loki reads it, or its error. */
function vectorParam(
  op: VectorAggregationOp,
  kind: VectorAggregationFacts["param"],
  text: string | null,
): number | undefined {
  switch (kind) {
    case "none":
      if (text !== null) throw semanticError(`unsupported parameter for operation ${op}(${text},`);
      return undefined;
    case "count": {
      if (text === null) throw semanticError(`parameter required for operation ${op}`);
      // strconv.Atoi; k is kept as a number, so beyond 2^53 it is refused like a non-integer.
      const atoi = parseInt(text, 10, 0);
      const k = atoi.ok && atoi.value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(atoi.value) : undefined;
      if (k === undefined) throw semanticError(`invalid parameter ${op}(${text},`);
      if (k <= 0) throw semanticError(`invalid parameter (must be greater than 0) ${op}(${text}`);
      return k;
    }
  }
}

/** Loki's construction checks of a vector aggregation, in Loki's order, from VECTOR_AGGREGATIONS. */
function buildVectorAggregation(n: Extract<CNode, { t: "vagg" }>): SampleExpr {
  const expr = buildExpr(n.e) as SampleExpr;
  const facts = vectorAggregation(n.op);
  const param = vectorParam(n.op, facts.param, n.param);
  // Grouping labels of `no-labels` aggregations are refused later, by validation (validate.ts).
  if (facts.grouping === "forbidden" && n.grouping) throw semanticError(`grouping not allowed for ${n.op} aggregation`);
  const out: SampleExpr = { kind: "VectorAggregation", op: n.op, expr };
  if (param !== undefined) out.param = param;
  // `by ()` groups everything into one series, exactly like no grouping; Loki prints neither.
  if (n.grouping && (n.grouping.without || n.grouping.labels.length > 0)) out.grouping = n.grouping;
  return out;
}

function buildLabelReplace(n: Extract<CNode, { t: "lr" }>): SampleExpr {
  const expr = buildExpr(n.e) as SampleExpr;
  const err = goRegexError(`^(?:${n.re})$`);
  if (err !== undefined) throw semanticError(`invalid regex in label_replace: ${err}`);
  return { kind: "LabelReplace", expr, dst: n.dst, replacement: n.rep, src: n.src, regex: n.re };
}

const SET_OPS = new Set<BinaryOp>(["and", "or", "unless"]);

function buildBinary(n: Extract<CNode, { t: "bin" }>): SampleExpr {
  const lhs = buildExpr(n.l);
  const rhs = buildExpr(n.r);
  if (lhs.kind === "LogSelector")
    throw semanticError(`unexpected type for left leg of binary operation (${n.op}): ${goTypeName(lhs)}`);
  if (rhs.kind === "LogSelector")
    throw semanticError(`unexpected type for right leg of binary operation (${n.op}): ${goTypeName(rhs)}`);
  if (SET_OPS.has(n.op)) {
    if (lhs.kind === "Literal") {
      throw semanticError(
        `unexpected literal for left leg of logical/set binary operation (${n.op}): ${formatFloat(lhs.value, "f", 6)}`,
      );
    }
    if (rhs.kind === "Literal") {
      throw semanticError(
        `unexpected literal for right leg of logical/set binary operation (${n.op}): ${formatFloat(rhs.value, "f", 6)}`,
      );
    }
  }
  if (lhs.kind === "Literal" && rhs.kind === "Literal") {
    // Loki folds scalar arithmetic at parse time; comparisons yield 1 or 0 with or without `bool`.
    return { kind: "Literal", value: foldScalar(n.op, lhs.value, rhs.value) };
  }
  const out: SampleExpr = { kind: "BinaryOp", op: n.op, lhs, rhs, returnBool: n.mod.bool };
  if (n.mod.matching) {
    const m = n.mod.matching;
    out.matching = { on: m.on, labels: m.labels, card: m.card, include: m.include ?? [] };
  }
  return out;
}

/** Literal ⊕ literal, folded as Loki does: comparisons give 1 or 0 with or without `bool`. */
export function foldScalar(op: BinaryOp, l: number, r: number): number {
  if (op === "and" || op === "or" || op === "unless") return NaN;
  if (op === "==" || op === "!=" || op === ">" || op === ">=" || op === "<" || op === "<=")
    return compare(op, l, r) ? 1 : 0;
  return arithmetic(op, l, r);
}

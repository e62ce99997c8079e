/**
 * Loki's canonical LogQL text (what `/loki/api/v1/format_query` returns and what Loki's
 * `Expr.String()` produces). Durations, numbers and strings are printed with Go's formatting
 * rules, which is why a query often prints differently from how it was written
 * (`offset 5m` → `offset 5m0s`, `vector(1)` → `vector(1.000000)`).
 */

import type {
  Expr,
  Grouping,
  LabelFilterExpr,
  LabelSelectorItem,
  LogRangeExpr,
  LogSelectorExpr,
  Matcher,
  PipelineStage,
  SampleExpr,
  ExtractionParam,
  LineFilterValue,
} from "./ast";
import { formatBytes } from "../core/go/bytes";
import { type FunctionParam, rangeFunction, vectorAggregation } from "./functions";
import { formatDuration, formatPromDuration } from "../core/go/duration";
import { formatFloat, quote as goQuote } from "../core/go/strconv";
import { labelRegexPrintsRaw } from "./label-regex-shape";

export function printExpr(e: Expr): string {
  switch (e.kind) {
    case "LogSelector":
      return printLogSelector(e);
    case "RangeAggregation": {
      const param = printParam(rangeFunction(e.op).param, e.param);
      return `${e.op}(${param}${printLogRange(e.range)})${e.grouping ? printGrouping(e.grouping) : ""}`;
    }
    case "VectorAggregation": {
      const g = e.grouping && (e.grouping.without || e.grouping.labels.length > 0) ? printGrouping(e.grouping) : "";
      const param = printParam(vectorAggregation(e.op).param, e.param);
      return `${e.op}${g}(${param}${printExpr(e.expr)})`;
    }
    case "BinaryOp":
      return printBinary(e);
    case "Literal":
      return formatFloat(e.value, "g", -1);
    case "Vector":
      return `vector(${formatFloat(e.value, "f", 6)})`;
    case "LabelReplace":
      return `label_replace(${printExpr(e.expr)},${goQuote(e.dst)},${goQuote(e.replacement)},${goQuote(e.src)},${goQuote(e.regex)})`;
  }
}

/** A function's argument before its expression, with its comma, as Loki prints that kind. */
function printParam(kind: FunctionParam, value: number | undefined): string {
  if (value === undefined) return "";
  switch (kind) {
    case "none":
      return "";
    case "float":
      return `${formatFloat(value, "f", -1)},`;
    case "count":
      return `${value},`;
  }
}

function printBinary(e: Extract<SampleExpr, { kind: "BinaryOp" }>): string {
  let op: string = e.op;
  if (e.returnBool) op += " bool";
  const m = e.matching;
  // Loki prints the matching clause only for `on (...)` or a non-empty `ignoring (...)`.
  if (m && (m.on || m.labels.length > 0)) {
    let group = m.card === "many-to-one" ? "group_left" : m.card === "one-to-many" ? "group_right" : "";
    if (m.include.length > 0) group += ` (${m.include.join(",")})`;
    op += ` ${m.on ? "on" : "ignoring"} (${m.labels.join(",")}) ${group}`;
  }
  return `(${printExpr(e.lhs)} ${op} ${printExpr(e.rhs)})`;
}

function printGrouping(g: Grouping): string {
  return `${g.without ? " without " : " by "}(${g.labels.join(",")})`;
}

export function printMatcher(m: Matcher): string {
  return `${m.name}${m.op}${goQuote(m.value)}`;
}

export function printLogSelector(e: LogSelectorExpr): string {
  const sel = `{${e.matchers.map(printMatcher).join(", ")}}`;
  if (e.pipeline.length === 0) return sel;
  return `${sel} ${e.pipeline.map(printStage).join(" ")}`;
}

function printLogRange(r: LogRangeExpr): string {
  let out = printLogSelector(r.selector);
  if (r.unwrap) {
    const u = r.unwrap;
    out += u.conversion ? ` | unwrap ${u.conversion}(${u.label})` : ` | unwrap ${u.label}`;
    for (const f of u.postFilters) out += ` | ${printLabelFilter(f)}`;
  }
  out += `[${formatPromDuration(r.range)}]`;
  if (r.offset !== 0) out += ` offset ${formatDuration(r.offset)}`;
  return out;
}

function printLineFilterValue(v: LineFilterValue): string {
  return v.type === "ip" ? `ip(${goQuote(v.cidr)})` : goQuote(v.value);
}

function printParams(params: ExtractionParam[]): string {
  return params.map((p) => `${p.label}=${goQuote(p.expression ?? p.label)}`).join(",");
}

function printSelectorItems(items: LabelSelectorItem[]): string {
  return items.map((i) => (i.matcher ? printMatcher(i.matcher) : i.name)).join(",");
}

export function printStage(s: PipelineStage): string {
  switch (s.kind) {
    case "LineFilter":
      return `${s.op} ${s.values.map(printLineFilterValue).join(" or ")}`;
    case "JsonParser":
      return s.params.length === 0 ? "| json" : `| json ${printParams(s.params)}`;
    case "LogfmtParser": {
      if (s.params.length === 0) return `| logfmt${s.strict ? " --strict" : ""}${s.keepEmpty ? " --keep-empty" : ""}`;
      return `| logfmt ${s.strict ? "--strict " : ""}${s.keepEmpty ? "--keep-empty " : ""}${printParams(s.params)}`;
    }
    case "RegexpParser":
      return `| regexp ${goQuote(s.regex)}`;
    case "PatternParser":
      return `| pattern ${goQuote(s.pattern)}`;
    case "UnpackParser":
      return "| unpack";
    case "LabelFilter":
      return `| ${printLabelFilter(s.filter)}`;
    case "LineFormat":
      return `| line_format ${goQuote(s.template)}`;
    case "LabelFormat":
      return `| label_format ${s.ops.map((o) => `${o.dst}=${o.isTemplate ? goQuote(o.src) : o.src}`).join(",")}`;
    case "Decolorize":
      return "| decolorize";
    case "Drop":
      return `| drop ${printSelectorItems(s.items)}`;
    case "Keep":
      return `| keep ${printSelectorItems(s.items)}`;
  }
}

export function printLabelFilter(f: LabelFilterExpr): string {
  switch (f.type) {
    case "string":
      if ((f.op === "=~" || f.op === "!~") && f.name !== "__error__" && labelRegexPrintsRaw(f.value)) {
        return `${f.name}${f.op}\`${f.value}\``;
      }
      return `${f.name}${f.op}${goQuote(f.value)}`;
    case "number":
      return `${f.name}${printNumericOp(f.op)}${formatFloat(f.value, "f", -1)}`;
    case "duration":
      return `${f.name}${printNumericOp(f.op)}${formatDuration(f.value)}`;
    case "bytes":
      // Loki prints go-humanize's Bytes with its space removed (`12kB`).
      return `${f.name}${printNumericOp(f.op)}${formatBytes(f.value).replace(" ", "")}`;
    case "ip":
      return `${f.name}${f.op}ip(${goQuote(f.cidr)})`;
    case "binary":
      return f.op === "and"
        ? `( ${printLabelFilter(f.left)} , ${printLabelFilter(f.right)} )`
        : `( ${printLabelFilter(f.left)} or ${printLabelFilter(f.right)} )`;
    case "paren":
      return printLabelFilter(f.expr);
  }
}

function printNumericOp(op: string): string {
  return op === "=" ? "==" : op;
}

/**
 * Counting metrics over `| json` and `| logfmt` that VictoriaLogs computes exactly, and the LogsQL
 * that does it.
 *
 * Pushed: `sum [by (labels)] (count_over_time | rate | bytes_over_time | bytes_rate (selector
 * |line filters | json | stages [range] [offset]))` (or `| logfmt`, without parameters or flags),
 * where the stages after the parser are
 * - label filters on parsed fields or stream labels: string (`=`, `!=`, `=~`, `!~`), numeric
 *   comparisons with an integer constant, duration and bytes comparisons, and `and` / `or` /
 *   parentheses of them;
 * - `drop` of labels (no value matchers) that nothing groups or filters by, `__error__` included;
 * - `__error__=""` (for `| json` only after a `drop __error__`: VictoriaLogs cannot tell which lines
 *   Loki's JSON parser rejects, so the rows such a filter removes are unknown).
 * `| json` also needs `drop __error__`: otherwise a malformed line anywhere makes Loki answer with
 * a pipeline error. The parser may also be one of the chains Logs Drilldown writes for a field
 * (ParserChain): `| json name="[\"name\"]", …` (each label read from the one top-level key of its
 * name), optionally followed by `| logfmt`, or `| json | logfmt`. Loki's value is then the row's
 * own field, else logfmt's non-empty value (it overwrites JSON's), else JSON's; the expression
 * parser gives a missing key an empty label, so such a label is declined under typed filters and
 * grouped only behind a filter requiring a value. Outer aggregations (`topk`, `avg`, …) of such a `sum` evaluate in the Worker over
 * the pushed series. Anything else (parameters, `--strict`, `ip()` filters, fractional constants,
 * `without`, other stages) stays local.
 *
 * The answer depends only on the "relevant" labels (grouped by or filtered on). For each one the
 * origin computes the value Loki would give the label: the row's own field (a stream label or
 * structured metadata) when it has one, else the parsed key, unpacked under a prefix so that it
 * never overwrites a row field. VictoriaLogs then filters and counts per `_time` bucket and group,
 * and in the SAME stats pipe counts (`__bad`) every row where its unpacking could differ from
 * Loki's. Any such row sends the query back to local evaluation. The differences found (VictoriaLogs
 * v1.121), and the guard term that catches each:
 * - Both parsers: `\u` escapes (keys or values could be spelled with them; lone surrogates) and
 *   U+FFFD (Loki drops or blanks it): for logfmt any such line; for JSON a line with one in a key,
 *   or a surrogate, control character or U+FFFD anywhere (JSON_UNSURE_ESCAPES, json-escapes.ts). A field named `__error__` (metadata Loki reads
 *   as an error): any such row. Control characters in a relevant value (Loki's logfmt ends values
 *   there, VictoriaLogs does not; regexes on multi-line values): any such row.
 * - Stream label vs parsed key: Loki keeps the stream label and renames the parsed key to
 *   `…_extracted`, which the base-first value reproduces; but structured metadata loses to the
 *   parsed key, so a relevant field present on the row but not in its stream, while the line could
 *   give it too, is guarded.
 * - Keys Loki sanitises (invalid characters become `_`, Go's TrimSpace), nested objects flattened
 *   with `_`, trailing garbage, lines VictoriaLogs rejects but Loki reads up to an error, `null` and
 *   empty values (an empty value fails a numeric filter in Loki, is missing for VictoriaLogs): a
 *   relevant label the row does not have, that VictoriaLogs did not extract, while the line names a
 *   key that could become it (the name with any character where it has `_`, open start: a superset).
 * - Duplicate keys (which one wins differs, and sanitised spellings collide), and objects under a
 *   key that flattens into the name: the name's longest part twice in the line, or a nested object
 *   under a prefix of the name (json).
 * - JSON: Loki's scanner takes any token starting with a digit or `-` as a number and does not
 *   read arrays, but rejects a member value starting otherwise; VictoriaLogs reads `+1`, `.5`,
 *   `NaN`, `Inf`, `nan` and then extracts keys Loki's parser never reaches: any line with such a
 *   value after a `:`. Raw control characters and escapes other than JSON's: any such line. Arrays
 *   (VictoriaLogs keeps their text, Loki skips them): a relevant value starting with `[` or `{`.
 * - logfmt: VictoriaLogs splits pairs at spaces only (Loki at every byte ≤ 0x20), takes
 *   `a="x y=1` as `a="x` and `y=1` (Loki stops at the unterminated quote), keeps `=` and `"` inside
 *   unquoted values and quotes around keys (Loki skips such pairs), and unquotes with other escape
 *   rules: a relevant value holding `=`, `"`, `\` or a control character; any line with an odd
 *   number of `"` or a `"` inside a key.
 * - Numbers: a relevant label of a numeric filter whose value is non-empty but not a plain decimal
 *   (EXACT_NUMBER: at most 9 integer and 6 fraction digits). VictoriaLogs reads those within one
 *   unit in the last place, which cannot move them across an integer constant unless they equal
 *   it, and then it reads them exactly; Go's ParseFloat reads everything else (hex, exponents,
 *   `Inf`, underscores) and fails where VictoriaLogs may not. Durations and byte sizes likewise,
 *   outside VALUE_SHAPES: VictoriaLogs does not read `us`, `µs`, lower-case byte units or `1d`,
 *   reads a bare number as a duration Go rejects, and fractions as floats.
 * Names must start with a letter and use only [A-Za-z0-9_]; names the Worker derives
 * (`detected_level`, `service_name`) and `…_extracted` names are declined.
 */
import { rangeFunction } from "../logql/functions";
import type { ExtractionParam, LabelFilterExpr, PipelineStage, SampleExpr } from "../logql/ast";
import { parseJsonExpression } from "../logql/extraction-expr";
import { JSON_UNSURE_ESCAPES } from "./json-escapes";
import { escapeRegex, quote } from "./logsql";
import { planLogQuery } from "./logquery";
import { type BucketGrid, bucketsOf, type MetricGrid } from "./metric-pushdown";
import { EXACT_NUMBER, looseKey, MIN_COUNTED, RepeatCounters } from "./unwrap-pushdown";
import { derivedNames, type DerivedFieldRules } from "../engine/derived-fields";

export interface ParserBucketPlan extends BucketGrid {
  value: "count" | "bytes";
  /** Divide the window's total by this many seconds (rate, bytes_rate), or 0 for none. */
  perSeconds: number;
  /** Loki's name for each field of `groupBy` (which names the origin's fields holding the values). */
  labels: string[];
  /** The group value standing for a label Loki set to "" (a series label of its own), if any. */
  setEmpty?: string;
}

export type Parser = "json" | "logfmt";

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Names the origin can carry a label's value under (see the module comment). */
export function pushableName(derived?: DerivedFieldRules): (name: string) => boolean {
  const derivedNow = derivedNames(derived);
  return (name) => NAME.test(name) && !derivedNow.has(name) && !name.endsWith("_extracted");
}
const ERROR = "__error__";
/** Integer constants of numeric filters both sides compare alike (see the module comment). */
const MAX_INTEGER = 999_999_999;
/**
 * Values of typed filters both sides read as the same number: plain decimals (EXACT_NUMBER);
 * an integer and one unit Go's ParseDuration and VictoriaLogs both know (not `us`/`µs`, which
 * VictoriaLogs v1.121 does not read), at most 99999 so that the nanoseconds stay exact as floats and
 * within Go's int64; an integer byte count with an optional upper-case unit VictoriaLogs knows
 * (Loki's reading is case-insensitive, VictoriaLogs' is not), at most 99999 units.
 */
const VALUE_SHAPES = {
  number: EXACT_NUMBER,
  duration: "^(0|[1-9][0-9]{0,4})(ns|ms|s|m|h)$",
  bytes: "^(0|[1-9][0-9]{0,4})(B|KB|MB|GB|KiB|MiB|GiB)?$",
} as const;

/** The origin's fields for a relevant label: the row's own value, the parsed one, and Loki's. */
const base = (name: string) => `__b_${name}`;
const parsed = (name: string) => `__p_${name}`;
export const value = (name: string) => `__v_${name}`;

/** A line holds a `\u` escape or U+FFFD (for JSON lines, JSON_UNSURE_ESCAPES narrows it). */
const ESCAPES = String.raw`\\u|\x{FFFD}`;
/**
 * U+212A KELVIN SIGN, which the guard's wide negated classes leave out: VictoriaLogs (v1.121) prints
 * each filter regex while simplifying it, and Go's printer then case-folds every character of a class
 * that case folding maps into itself (`[^\\]`: some 125,000 of them), 10 to 30 ms of the origin's
 * CPU per regex, per query, before any row is read. Without the Kelvin sign, which folds to `K`, a
 * class is not closed and prints at once. Those regexes then match fewer lines, only lines holding
 * the sign, which the guard matches whole (`_msg:~KELVIN`, a substring search).
 */
const KELVIN = String.raw`\x{212A}`;
/**
 * A JSON line holds a control character, or an escape JSON does not define: a backslash after an
 * even run of them, so that `\\x` — an escaped backslash, then `x` — is not one. The precise regex
 * runs only on lines the plain one matches: led by a class, it costs the origin ten times more.
 */
const JSON_CONTROL = String.raw`[\x00-\x1f]`;
const JSON_ODD_ESCAPE = [String.raw`\\[^"\\/bfnrtu]`, String.raw`(?:^|[^\\${KELVIN}])(?:\\\\)*\\[^"\\/bfnrtu]`];
/**
 * A member value VictoriaLogs reads as a number and Loki's scanner rejects (it takes any token
 * starting with a digit or `-` as a number, and arrays unread): `+1`, `.5`, `NaN`, `Inf`, `inf`,
 * `nan`. Again a cheap superset gates the precise regex: a `:` followed by a space or by one of
 * those first characters (`null` too), which holds wherever the precise one matches. The origin
 * tests a literal-led class of single characters by comparing each of them at every `:` of the
 * line; led by `: *`, it ran a regex there instead, a fifth of the whole query's cost on a JSON
 * field panel.
 */
const LENIENT_NUMBER = [String.raw`:[ +.NIin]`, String.raw`: *(?:[+.NIi]|n[aA])`];
/** A `"` inside a logfmt key (`"a"=1`, `a"b=1`): Loki skips the pair. */
const LOGFMT_QUOTED_KEY = String.raw`"[^\x00-\x20"=${KELVIN}]*=`;

export function planParserPushdown(
  expr: SampleExpr,
  grid: MetricGrid,
  derived?: DerivedFieldRules,
): ParserBucketPlan | undefined {
  if (expr.kind !== "VectorAggregation" || expr.op !== "sum" || expr.grouping?.without) return undefined;
  const inner = expr.expr;
  // The counting functions: line counts or byte sizes per bucket (RANGE_FUNCTIONS' `origin.lines`).
  const lines = inner.kind === "RangeAggregation" ? rangeFunction(inner.op).origin.lines : undefined;
  if (inner.kind !== "RangeAggregation" || !lines || inner.grouping || inner.range.unwrap) {
    return undefined;
  }
  const groupBy = expr.grouping?.labels ?? [];
  const usable = pushableName(derived);
  if (!groupBy.every(usable)) return undefined;

  // Label filters must not become the origin's prefilters: the guard must see every parsed row.
  const plan = planLogQuery(inner.range.selector, { prefilter: false, derived });
  const stages = pipelineAfterParser(plan.local, usable);
  if (!stages) return undefined;
  const { chain, filters, dropped } = stages;

  const typed = new Map<string, Set<string>>();
  const names = new Set<string>(groupBy);
  const conditions: string[] = [];
  for (const f of filters) {
    const condition = filterLogsQL(f, typed, names, usable);
    if (condition === undefined) return undefined;
    if (condition !== "") conditions.push(condition);
  }
  if ([...names].some((n) => dropped.has(n))) return undefined;
  const relevant = [...names];
  // `| json name="…"` gives `name` an empty value where the key is missing, which a typed filter
  // reads as an error (a row Loki fails the query on): nothing the origin can tell apart.
  const keys = chain.json;
  if (keys !== undefined && keys !== "all") {
    if (relevant.some((n) => typed.has(n) && keys.has(n))) return undefined;
    // Loki's series keep such a label with its empty value apart from rows without it (lines not
    // JSON), which the origin's groups do not tell apart: grouped, it must be non-empty to count.
    if (groupBy.some((n) => keys.has(n) && !filters.some((f) => requiresValue(f, n)))) return undefined;
  }

  const buckets = bucketsOf(inner.range, grid);
  if (!buckets) return undefined;

  const repeats = new RepeatCounters();
  const parser = singleParser(chain);
  const bad = parser ? guard(parser, relevant, typed, repeats) : chainGuard(chain, relevant, typed, repeats);
  const pipes = parser ? parsedValuePipes(parser, relevant, repeats) : chainValuePipes(chain, relevant, repeats);
  const bytes = lines.total === "bytes";
  if (bytes) pipes.push("len(_msg) as __n");

  const kept = conditions.length === 0 ? "" : ` if (${conditions.join(" ")})`;
  const stats = [`count()${kept} as __c`];
  if (bytes) stats.push(`sum(__n)${kept} as __v`);
  // The guard reads `_msg` in this same pipe, which is also what makes VictoriaLogs (v1.121) read
  // the line for the prefixed unpack at all.
  stats.push(`count() if (${bad}) as __bad`);
  const by = [buckets.timeGrouping, ...groupBy.map(value)].join(", ");
  const rows = `${plan.logsql}${buckets.inWindows} | ${pipes.join(" | ")}`;
  return {
    logsql: `${rows} | stats by (${by}) ${stats.join(", ")}`,
    ...buckets.grid,
    groupBy: groupBy.map(value),
    groups: {
      rows,
      fields: groupBy.map(value),
      ...(conditions.length > 0 && { counted: conditions.join(" ") }),
      bad,
    },
    labels: groupBy,
    value: bytes ? "bytes" : "count",
    perSeconds: lines.perSecond ? Number(buckets.range) / 1e9 : 0,
  };
}

/**
 * The pipes computing, for each relevant label, Loki's value (`value(name)`) and the fields the
 * guard reads (run `guard` with the same `repeats` first: it registers the counters).
 */
export function parsedValuePipes(parser: Parser, relevant: readonly string[], repeats: RepeatCounters): string[] {
  const pipes: string[] = [];
  if (relevant.length > 0) {
    // The row's own values are copied before the unpack: VictoriaLogs (v1.121) takes a field the
    // unpack names as its output, prefix or not, and no longer reads the stored one for later pipes.
    for (const n of relevant) pipes.push(`format ${quote(`<${n}>`)} as ${base(n)}`);
    pipes.push(`delete ${relevant.map(parsed).join(", ")}`);
    pipes.push(`unpack_${parser} from _msg fields (${relevant.join(", ")}) result_prefix ${quote(parsed(""))}`);
    for (const n of relevant) {
      pipes.push(`format ${quote(`<${base(n)}>`)} as ${value(n)}`);
      pipes.push(`format if (${value(n)}:"") ${quote(`<${parsed(n)}>`)} as ${value(n)}`);
    }
  }
  if (parser === "logfmt") pipes.push(...ODD_QUOTES_PIPES);
  const counters = repeats.pipes();
  if (counters !== "") pipes.push(counters.replace(/^ \| /, ""));
  return pipes;
}

/** Every field `parsedValuePipes` and the guard's counters add to a row. */
export function parsedValueFields(parser: Parser, relevant: readonly string[], repeats: RepeatCounters): string[] {
  const fields = relevant.flatMap((n) => [base(n), parsed(n), value(n)]);
  if (parser === "logfmt") fields.push(...ODD_QUOTES_FIELDS);
  return [...fields, ...repeats.fields()];
}

/** The origin's fields for a label as `| json` and as `| logfmt` of a chain read it. */
const jsonParsed = (name: string) => `__pj_${name}`;
const logfmtParsed = (name: string) => `__pl_${name}`;

/** The relevant labels the chain's `| json` can set. */
function jsonNames(chain: ParserChain, relevant: readonly string[]): string[] {
  const json = chain.json;
  if (json === undefined) return [];
  return json === "all" ? [...relevant] : relevant.filter((n) => json.has(n));
}

/**
 * parsedValuePipes for a chain: each parser unpacks under a prefix of its own, and Loki's value is
 * the row's own field, else the last parser's non-empty value (`| logfmt` overwrites what `| json`
 * set, and sets nothing for an empty value), else the first's.
 */
export function chainValuePipes(chain: ParserChain, relevant: readonly string[], repeats: RepeatCounters): string[] {
  const pipes: string[] = [];
  const fromJson = jsonNames(chain, relevant);
  if (relevant.length > 0) {
    for (const n of relevant) pipes.push(`format ${quote(`<${n}>`)} as ${base(n)}`);
    pipes.push(`delete ${[...relevant.map(jsonParsed), ...relevant.map(logfmtParsed)].join(", ")}`);
    if (fromJson.length > 0) {
      pipes.push(`unpack_json from _msg fields (${fromJson.join(", ")}) result_prefix ${quote(jsonParsed(""))}`);
    }
    if (chain.logfmt) {
      pipes.push(`unpack_logfmt from _msg fields (${relevant.join(", ")}) result_prefix ${quote(logfmtParsed(""))}`);
    }
    for (const n of relevant) {
      const v = value(n);
      pipes.push(`format ${quote(`<${base(n)}>`)} as ${v}`);
      if (chain.logfmt) pipes.push(`format if (${v}:"") ${quote(`<${logfmtParsed(n)}>`)} as ${v}`);
      if (fromJson.includes(n)) pipes.push(`format if (${v}:"") ${quote(`<${jsonParsed(n)}>`)} as ${v}`);
    }
  }
  if (chain.logfmt) pipes.push(...ODD_QUOTES_PIPES);
  const counters = repeats.pipes();
  if (counters !== "") pipes.push(counters.replace(/^ \| /, ""));
  return pipes;
}

/** A line VictoriaLogs may read as a JSON object (its reader skips leading whitespace). */
const JSON_OBJECT_LINE = String.raw`^[\x00-\x20]*\{`;

/**
 * guard for a chain: each parser's terms where that parser's value decides Loki's. A `| json`
 * value decides only where the row has no field of its own and `| logfmt` found none, and its
 * line-level terms matter only on lines VictoriaLogs may read as JSON; `| logfmt`'s line-level
 * terms matter only on lines naming a key it could read as a relevant label (elsewhere neither
 * side's logfmt reading sets one). `| json name="…"` reads the first top-level `name` exactly,
 * and the raw text of an object, array or number: a superset of `| json`'s differences, plus a
 * value VictoriaLogs took from a line Loki's expression parser refuses (one not starting `{`).
 */
export function chainGuard(
  chain: ParserChain,
  relevant: readonly string[],
  typed: ReadonlyMap<string, ReadonlySet<string>>,
  repeats: RepeatCounters,
): string {
  // A logfmt reading (any line) unescapes otherwise: every escape stays unsure there.
  const escapes = chain.logfmt ? `_msg:~${quote(ESCAPES)}` : JSON_UNSURE_ESCAPES;
  const terms = [`${ERROR}:*`, escapes, `_msg:~${quote(KELVIN)}`];
  const fromJson = jsonNames(chain, relevant);
  if (fromJson.length > 0) {
    const jsonLine = [`_msg:~${quote(JSON_CONTROL)}`, gated(JSON_ODD_ESCAPE), gated(LENIENT_NUMBER)];
    terms.push(`(_msg:~${quote(JSON_OBJECT_LINE)} (${jsonLine.join(" or ")}))`);
  }
  if (chain.logfmt && relevant.length > 0) {
    const named = relevant.map((n) => logfmtKeyIn(n, typed.has(n))).join(" or ");
    terms.push(`((${named}) (_msg:~${quote(LOGFMT_QUOTED_KEY)} or __odd:>0))`);
  }
  for (const n of relevant) {
    const b = base(n);
    const v = value(n);
    const pj = jsonParsed(n);
    const pl = logfmtParsed(n);
    const json = fromJson.includes(n);
    // The row's own field (structured metadata here) loses to any parsed value.
    const mentions: string[] = [];
    if (json) mentions.push(`${pj}:*`, `_msg:~${quote(looseKey(n))}`);
    if (chain.logfmt) mentions.push(`${pl}:*`, logfmtKeyIn(n, typed.has(n)));
    if (mentions.length > 0) terms.push(`(${b}:* not {${n}=~".+"} (${mentions.join(" or ")}))`);
    if (chain.logfmt) {
      terms.push(
        `(${b}:"" ${pl}:"" ${logfmtKeyIn(n, typed.has(n))})`,
        `(${b}:"" (${twiceIn(n, logfmtKey(n, false), repeats)}))`,
        `(${b}:"" ${pl}:~${quote(String.raw`[="\\]`)})`,
      );
    }
    if (json) {
      // Where `| logfmt` gave a value, it is the one Loki keeps.
      const decides = chain.logfmt ? `${b}:"" ${pl}:""` : `${b}:""`;
      terms.push(
        `(${decides} ${pj}:"" _msg:~${quote(looseKey(n))})`,
        `(${decides} (${jsonAmbiguous(n, repeats)}))`,
        `(${decides} ${pj}:~${quote(String.raw`^[\[{]`)})`,
        `(${decides} ${pj}:* -_msg:~${quote(String.raw`^\{`)})`,
      );
    }
    terms.push(`${v}:~${quote(String.raw`[\x00-\x1f]`)}`);
    for (const shape of typed.get(n) ?? []) terms.push(`(${v}:* -${v}:~${quote(shape)})`);
  }
  return terms.join(" or ");
}

interface ParsedPipeline {
  chain: ParserChain;
  filters: LabelFilterExpr[];
  /** Labels some `drop` removes (`__error__` included). */
  dropped: Set<string>;
}

/**
 * The parsers Loki runs, in order: `| json` (every key, or only the labels of
 * `| json name="[\"name\"]", …`), then `| logfmt` — the chains Logs Drilldown writes for a
 * service's JSON bodies, logfmt bodies, or both.
 */
export interface ParserChain {
  json?: "all" | ReadonlySet<string>;
  logfmt: boolean;
}

/** The one parameterless parser of a chain, when that is all it is. */
function singleParser(chain: ParserChain): Parser | undefined {
  if (chain.json === "all" && !chain.logfmt) return "json";
  if (chain.json === undefined && chain.logfmt) return "logfmt";
  return undefined;
}

/**
 * The labels of `| json name="[\"name\"]", …` when every path is the one top-level key its label
 * is named after (`name`, `name="name"`): what Drilldown writes for a field found in JSON bodies.
 * Undefined for any other path (nested, indexed, another key) or a label named twice.
 */
function topLevelKeys(params: readonly ExtractionParam[], usable: (name: string) => boolean): Set<string> | undefined {
  const names = new Set<string>();
  for (const p of params) {
    if (!usable(p.label) || names.has(p.label)) return undefined;
    const path = parseJsonExpression(p.expression ?? p.label);
    if (!path.ok || path.steps.length !== 1 || path.steps[0] !== p.label) return undefined;
    names.add(p.label);
  }
  return names;
}

/**
 * The parser chain and the label filters after it, when the stages Loki runs are a chain of
 * ParserChain's shape followed by label filters and `drop`s whose effect the origin reproduces
 * (see the module comment); undefined otherwise.
 */
function pipelineAfterParser(
  stages: readonly PipelineStage[],
  usable: (name: string) => boolean,
): ParsedPipeline | undefined {
  let at = 0;
  const chain: ParserChain = { logfmt: false };
  const first = stages[at];
  if (first?.kind === "JsonParser") {
    chain.json = first.params.length === 0 ? "all" : topLevelKeys(first.params, usable);
    if (chain.json === undefined) return undefined;
    at++;
  }
  const next = stages[at];
  if (next?.kind === "LogfmtParser" && next.params.length === 0 && !next.strict && !next.keepEmpty) {
    chain.logfmt = true;
    at++;
  }
  if (chain.json === undefined && !chain.logfmt) return undefined;
  const filters: LabelFilterExpr[] = [];
  const dropped = new Set<string>();
  for (const stage of stages.slice(at)) {
    if (stage.kind === "Drop") {
      if (stage.items.some((item) => item.matcher)) return undefined;
      for (const item of stage.items) dropped.add(item.name);
    } else if (stage.kind === "LabelFilter") {
      const f = stage.filter;
      if (isNoErrorFilter(f)) {
        // With no error rows (parser errors dropped or impossible, filter errors guarded), a no-op.
        if (chain.json !== undefined && !dropped.has(ERROR)) return undefined;
        continue;
      }
      filters.push(f);
    } else return undefined;
  }
  // A line JSON's parser rejects carries Loki's parser error into the metric unless it is dropped.
  if (chain.json !== undefined && !dropped.has(ERROR)) return undefined;
  return { chain, filters, dropped };
}

/** Whether every row `f` keeps has a non-empty `name`. */
function requiresValue(f: LabelFilterExpr, name: string): boolean {
  if (f.type === "paren") return requiresValue(f.expr, name);
  if (f.type === "binary") {
    const [l, r] = [requiresValue(f.left, name), requiresValue(f.right, name)];
    return f.op === "or" ? l && r : l || r;
  }
  if (f.type !== "string" || f.name !== name) return false;
  return (f.op === "!=" && f.value === "") || (f.op === "=" && f.value !== "");
}

function isNoErrorFilter(f: LabelFilterExpr): boolean {
  return f.type === "string" && f.name === ERROR && f.op === "=" && f.value === "";
}

/**
 * The LogsQL filter matching the rows `f` keeps, over the fields holding Loki's values; records
 * the labels it reads (in `names`; typed ones also in `typed`, with the value shapes they need). Undefined when it cannot be
 * pushed exactly.
 */
export function filterLogsQL(
  f: LabelFilterExpr,
  typed: Map<string, Set<string>>,
  names: Set<string>,
  usable: (name: string) => boolean,
): string | undefined {
  switch (f.type) {
    case "string": {
      if (!usable(f.name)) return undefined;
      names.add(f.name);
      const v = value(f.name);
      switch (f.op) {
        case "=":
          return `${v}:=${quote(f.value)}`;
        case "!=":
          return `-${v}:=${quote(f.value)}`;
        case "=~":
          return `${v}:~${quote(`^(?:${f.value})$`)}`;
        case "!~":
          return `-${v}:~${quote(`^(?:${f.value})$`)}`;
      }
      return undefined;
    }
    case "number":
    case "duration":
    case "bytes": {
      const limit = f.type === "number" ? MAX_INTEGER : Number.MAX_SAFE_INTEGER;
      if (!usable(f.name) || !Number.isInteger(f.value) || Math.abs(f.value) > limit) return undefined;
      names.add(f.name);
      const shapes = typed.get(f.name) ?? new Set();
      typed.set(f.name, shapes.add(VALUE_SHAPES[f.type]));
      const v = value(f.name);
      // VictoriaLogs compares a duration in ns and a byte size in bytes with a plain number.
      const n = `${f.value}`;
      switch (f.op) {
        case ">":
        case ">=":
        case "<":
        case "<=":
          return `${v}:${f.op}${n}`;
        case "=":
        case "==":
          return `(${v}:>=${n} ${v}:<=${n})`;
        case "!=":
          // A missing label fails every numeric filter in Loki, `!=` included.
          return `(${v}:* -(${v}:>=${n} ${v}:<=${n}))`;
      }
      return undefined;
    }
    case "paren":
      return filterLogsQL(f.expr, typed, names, usable);
    case "binary": {
      const left = filterLogsQL(f.left, typed, names, usable);
      const right = filterLogsQL(f.right, typed, names, usable);
      if (left === undefined || right === undefined) return undefined;
      return f.op === "or" ? `(${left} or ${right})` : `(${left} ${right})`;
    }
    default:
      return undefined;
  }
}

/** The filter matching every row where VictoriaLogs could see another value than Loki (module comment). */
export function guard(
  parser: Parser,
  relevant: readonly string[],
  typed: ReadonlyMap<string, ReadonlySet<string>>,
  repeats: RepeatCounters,
): string {
  const escapes = parser === "json" ? JSON_UNSURE_ESCAPES : `_msg:~${quote(ESCAPES)}`;
  const terms = [`${ERROR}:*`, escapes, `_msg:~${quote(KELVIN)}`];
  if (parser === "json") {
    terms.push(`_msg:~${quote(JSON_CONTROL)}`, gated(JSON_ODD_ESCAPE), gated(LENIENT_NUMBER));
  } else {
    terms.push(`_msg:~${quote(LOGFMT_QUOTED_KEY)}`, "__odd:>0");
  }
  for (const n of relevant) {
    const b = base(n);
    const p = parsed(n);
    const v = value(n);
    const mention = parser === "json" ? looseKey(n) : logfmtKey(n, typed.has(n));
    const twice = parser === "json" ? jsonAmbiguous(n, repeats) : twiceIn(n, logfmtKey(n, false), repeats);
    const badValue = parser === "json" ? String.raw`^[\[{]` : String.raw`[="\\]`;
    terms.push(
      `(${b}:* not {${n}=~".+"} (${p}:* or _msg:~${quote(mention)}))`,
      `(${b}:"" ${p}:"" _msg:~${quote(mention)})`,
      `(${b}:"" (${twice}))`,
      `(${b}:"" ${p}:~${quote(badValue)})`,
      `${v}:~${quote(String.raw`[\x00-\x1f]`)}`,
    );
    for (const shape of typed.get(n) ?? []) terms.push(`(${v}:* -${v}:~${quote(shape)})`);
  }
  return terms.join(" or ");
}

/**
 * Lines that may hold a logfmt key Loki reads as `name`: logfmtKey without its leading class, a
 * superset. Led by a literal, it costs VictoriaLogs a substring search where logfmtKey costs a
 * scan of every line (it doubled the origin's CPU on a field panel).
 */
function logfmtKeyIn(name: string, bare: boolean): string {
  return `_msg:~${quote(bare ? wildcardName(name) : `${wildcardName(name)}${KEY_TAIL}`)}`;
}

/** Lines matching both regexes: the first a cheap superset of the second. */
function gated([gate, precise]: readonly string[]): string {
  return `(_msg:~${quote(gate!)} _msg:~${quote(precise!)})`;
}

/**
 * A logfmt key Loki may read as `name`: it starts the line or follows a byte ≤ 0x20 (or a quoted
 * value's closing quote), has any character where the name has `_`, then characters Loki's
 * trimming may remove, then `=`. For a numeric filter a bare key counts too (Loki gives it an empty
 * value, which fails the filter with an error), so the name is enough there.
 */
function logfmtKey(name: string, bare: boolean): string {
  const head = `(?:^|[\\x00-\\x20"])${wildcardName(name)}`;
  return bare ? head : `${head}${KEY_TAIL}`;
}

/** The rest of a logfmt key and its `=` (without KELVIN, which the guard matches whole). */
const KEY_TAIL = `[^\\x00-\\x20="${KELVIN}]*=`;

/** `name` as a regex with any one character where it has `_` (Loki's sanitising writes `_` for it). */
function wildcardName(name: string): string {
  return name.split("_").map(escapeRegex).join("(?s:.)");
}

/**
 * Lines that may name a key twice: the key regex twice. For a name with a part of MIN_COUNTED
 * characters or more, the regex runs only on lines holding that part twice (counted, see
 * RepeatCounters), which most lines do not: the count alone would also catch the part in values or
 * other keys (`"msg": "user …"` beside `"user_id"`) and keep such queries local.
 */
function twiceIn(name: string, key: string, repeats: RepeatCounters): string {
  const longest = name.split("_").reduce((a, b) => (b.length > a.length ? b : a));
  const regex = `_msg:~${quote(`(?s)${key}.*${key}`)}`;
  return longest.length >= MIN_COUNTED ? `(${repeats.term(longest)} ${regex})` : regex;
}

/**
 * The start of a JSON key Loki may read as `name`: the opening quote, then padding Go's TrimSpace
 * removes (raw or escaped). Only the repetition test needs it: a key merely ending in the name
 * (`"msg"` for `g`) would otherwise count as a second one on every line.
 */
const JSON_KEY_START = String.raw`"(?:[^\x21-\x7e"\\]|\\.)*`;

/**
 * JSON lines where Loki's label `name` may not be the one top-level key: the key twice, or an
 * object under a key that flattens into it (`{"a": {"b": 1}}` gives `a_b`).
 */
function jsonAmbiguous(name: string, repeats: RepeatCounters): string {
  const parts = name.split("_");
  const nested = parts
    .slice(1)
    .map((_, i) => `_msg:~${quote(looseKey(parts.slice(0, i + 1).join("_")) + String.raw`\s*\{`)}`);
  return [twiceIn(name, JSON_KEY_START + looseKey(name), repeats), ...nested].join(" or ");
}
/**
 * Pipes computing `__odd`: 1 when the line holds an odd number of `"` (an unterminated quoted
 * value, or an escaped quote), by the same substring removal as RepeatCounters.
 */
const ODD_QUOTES_FIELDS = ["__len", "__unquoted", "__odd"];
const ODD_QUOTES_PIPES = [
  "len(_msg) as __len",
  "copy _msg as __unquoted",
  String.raw`replace ("\"", "") at __unquoted`,
  "len(__unquoted) as __unquoted",
  "math ((__len - __unquoted) % 2) as __odd",
];

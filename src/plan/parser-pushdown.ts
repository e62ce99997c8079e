/**
 * Counting metrics over `| json` and `| logfmt` that VictoriaLogs computes exactly, and the LogsQL
 * that does it.
 *
 * Pushed: `sum [by (labels)] (count_over_time | rate | bytes_over_time | bytes_rate (selector
 * |line filters | json | stages [range] [offset]))` (or `| logfmt`, without parameters or flags),
 * where the stages after the parser are
 * - label filters on parsed fields or stream labels: string (`=`, `!=`, `=~`, `!~`), numeric
 *   comparisons with a constant of at most 9 integer and 6 fraction digits, duration and bytes
 *   comparisons, and `and` / `or` / parentheses of them;
 * - `drop` of labels (no value matchers) that nothing groups or filters by, `__error__` included;
 * - `__error__=""`;
 * - stages that change nothing counted (Reshaping): `keep` of names (no value matchers) listing
 *   every label grouped or filtered by (it never removes the error labels); `label_format` whose
 *   renames and templates touch no such label nor the error labels (a grouped label a template
 *   sets, or one renamed to or from another, is made by the Worker from each group's values of
 *   what it reads: LabelTemplate); for line counts (not bytes,
 *   which add up the final line) `decolorize` and `line_format`. Their templates must be text,
 *   `{{ .name }}` and a few total string functions of it (infallibleTemplate): a failing template
 *   marks the row with an error.
 *   A line filter (`|=` / `!=` of strings) right after `line_format "{{ .name }}"` in a line count
 *   reads that label's value: it is counted as the label filter it amounts to (formatted-lines.ts).
 * A line Loki's JSON parser rejects carries its error into the metric: with `drop __error__` the row
 * counts with the labels read before the error; with `__error__=""` it does not count; with neither,
 * Loki answers with a pipeline error. For the last two (single `| json` only) the origin reads the
 * line wrapped in an object of its own (JSON_WRAPPER): the one parse that unpacks the fields also
 * tells whether the line is JSON at all, which VictoriaLogs' stricter parser decides for every line
 * Loki's lenient scanner accepts, but those the guard already sends. The parser may also be one of
 * the chains Logs Drilldown writes for a field
 * (ParserChain): `| json name="[\"name\"]", a_b="[\"a\"][\"b\"]", m="method", …` (each label
 * read from the one top-level key of its name, from another top-level key, or from a path of
 * object keys, which VictoriaLogs' `unpack_json` flattens into the field `a.b`), optionally
 * followed by `| logfmt`, or `| json | logfmt`. Loki's value is then the row's own field, else
 * JSON's where `| json` set the label (an empty value too: Loki's later parser skips a label already
 * extracted from the line), else logfmt's non-empty value; the expression parser gives a
 * missing key an empty label, so under typed filters its rows without a value are guard rows
 * (typedExpressionRows), and it is grouped apart
 * where Loki set it to "" (emptyGroup: on the lines the expression parser reads) unless a filter
 * requires a value. The expression parser errs before reading any key on a line not starting with
 * `"`, `{` or `[` (JSON_EXPRESSION_REFUSED), which without `drop __error__` is a guard row where the
 * filters keep it, and is not counted after `__error__=""`. Outer aggregations (`topk`, `avg`, …)
 * of such a `sum` evaluate in the Worker over the pushed series. `ip()` filters over IPv4
 * addresses (ip-filter.ts) only after a lone `| logfmt` (which sets no error without `--strict`)
 * or a lone `| json` read wrapped: they keep every row carrying an error, so Loki's parser errors
 * must be told apart (excluded by `__error__=""`, or, as the query would fail on them, every line
 * the parser may reject is a guard row). `| logfmt name="key", …` alone (no flags), with label
 * filters and `drop`s after it, has a guard of its own (logfmtParamsCounting): Loki's expression
 * parser also reads a key spelled as the label, sets every label it names, lets the last pair or
 * the first overwrite as its parser hints decide, and skips keys the hints do not name. Anything
 * else (`logfmt` parameters in a chain or with flags, `--strict`, other `ip()` filters, longer
 * constants, `without`, other stages) stays local.
 *
 * The answer depends only on the "relevant" labels (grouped by or filtered on). For each one the
 * origin computes the value Loki would give the label: the row's own field (a stream label or
 * structured metadata) when it has one, else the parsed key, unpacked under a prefix so that it
 * never overwrites a row field. VictoriaLogs then filters and counts per `_time` bucket and group
 * the rows where its unpacking cannot differ from Loki's, and in the SAME stats pipe counts
 * (`__bad`) every other row: the Worker reads those back, counts them itself and adds them in
 * (guarded-rows.ts). The differences found (VictoriaLogs v1.121), and the guard term that catches
 * each:
 * - Both parsers: `\u` escapes (keys or values could be spelled with them; lone surrogates) and
 *   U+FFFD (Loki drops or blanks it): for logfmt any such line; for JSON a line with one in a key,
 *   or a surrogate, control character or U+FFFD anywhere (JSON_UNSURE_ESCAPES, json-escapes.ts).
 *   A field named `__error__` (metadata Loki reads as an error): any such row. Control characters
 *   in a relevant value where a logfmt reading may set it (Loki's logfmt ends values there,
 *   VictoriaLogs does not) or a regex filter reads it (`=~".*info.*"` keeps `info\n` on the
 *   origin, not in Loki): any such row. A value only `| json` sets both decode alike, control
 *   characters and all (Docker's wrapper ends every `log` with `\n`): not guarded for that.
 * - Stream label or structured metadata vs parsed key: Loki keeps the row's value and renames the
 *   parsed key to `…_extracted`, which the base-first value reproduces. A relevant field present
 *   on the row but not in its stream, while the line could give it too, is still guarded: such
 *   rows go to the Worker, which reads them the same way.
 * - Keys Loki sanitises (invalid characters become `_`, Go's TrimSpace), nested objects flattened
 *   with `_`, trailing garbage, lines VictoriaLogs rejects but Loki reads up to an error, `null` and
 *   empty values (an empty value fails a numeric filter in Loki, is missing for VictoriaLogs): a
 *   relevant label the row does not have, that VictoriaLogs did not extract, while the line names a
 *   key that could become it (the name with any character where it has `_`, open start: a superset;
 *   for JSON also through nested objects, each level's key in the line's order).
 * - Nested objects: Loki's `| json` names `{"a": {"b": 1}}` and `{"a.b": 1}` `a_b`, VictoriaLogs'
 *   unpack both `a.b`; the value is read from the name and each such field (flattenedFields).
 * - Duplicate keys (which one wins differs, and sanitised spellings collide), and two keys naming
 *   the label through nested objects: the name's longest part twice in the line, or an object
 *   under a prefix of the name and the name's last part twice (json).
 * - JSON: Loki's scanner takes any token starting with a digit or `-` as a number and does not
 *   read arrays, but rejects a member value starting otherwise; VictoriaLogs reads `+1`, `.5`,
 *   `NaN`, `Inf`, `nan` and then extracts keys Loki's parser never reaches: any line with such a
 *   value after a `:` (and JSON's whitespace). Escapes other than JSON's: any such line. Arrays
 *   (VictoriaLogs keeps their text, Loki skips them): a relevant value starting with `[` or `{`.
 * - logfmt: VictoriaLogs splits pairs at spaces only (Loki at every byte ≤ 0x20), takes
 *   `a="x y=1` as `a="x` and `y=1` (Loki stops at the unterminated quote), keeps `=` and `"` inside
 *   unquoted values and quotes around keys (Loki skips such pairs), and unquotes with other escape
 *   rules: a relevant value holding `=`, `"`, `\` or a control character; any line with an odd
 *   number of `"` or a `"` inside a key.
 * - Numbers: a relevant label of a numeric filter whose value is non-empty but not a plain decimal
 *   (EXACT_NUMBER: at most 9 integer and 6 fraction digits, or an integer of at most 15 digits,
 *   which both read exactly, as Traefik's nanosecond `Duration`); Go's ParseFloat reads everything else
 *   (hex, exponents, `Inf`, underscores) and fails where VictoriaLogs may not. Plain decimals
 *   compare exactly: the constant is sent as the shortest decimal of the float Loki reads (one of
 *   at most 6 fraction digits, else declined), so Loki compares two decimals of at most 15
 *   significant digits, which Go's correctly rounded floats keep distinct and in order: Loki's
 *   answer is the decimals' order. VictoriaLogs reads both (integer part plus fraction digits times
 *   a rounded power of ten, one fused rounding) within one unit in the last place, under 2^-23 below
 *   10^9, while two distinct such decimals lie at least 10^-6 apart: it orders them alike too (an
 *   integer of more digits is 10^9 or more, and both read it and an integer constant exactly). Only
 *   equal decimals may read apart (`0.1` and `0.100000` differ in the last bit), so equality is
 *   decided on the text instead: for an integer constant the value reads exactly, for a fraction
 *   it is the shortest spelling with trailing zeros (`^100\.50*$`), which `>` and `<` exclude and
 *   `>=` and `<=` add. Durations and byte sizes likewise,
 *   outside VALUE_SHAPES: VictoriaLogs does not read `us`, `μs`, lower-case byte units or `1d`,
 *   reads a bare number as a duration Go rejects, and fractions as floats (fractional durations
 *   are compared, with the values near each constant guarded: VALUE_SHAPES).
 * Names must start with a letter, or one `_` and a letter (GELF's `_facility`; `_l`, which Loki
 * reads from Serilog's `@l` and the origin from either spelling: key-spellings.ts), and use only
 * [A-Za-z0-9_]; names the Worker derives
 * (`detected_level`, `service_name`) are declined, and `…_extracted` names but as grouped labels
 * after a lone `| json` or `| logfmt` (Drilldown lists a key the row also holds as a label so):
 * the parsed value where the row holds the label, with the parsed-value terms of the guard kept
 * there too, and rows holding `…_extracted` themselves or naming that key guarded.
 */
import { rangeFunction } from "../logql/functions";
import type { ExtractionParam, LabelFilterExpr, PipelineStage, SampleExpr } from "../logql/ast";
import { parseJsonExpression } from "../logql/extraction-expr";
import { walk } from "../logql/walk";
import { JSON_UNSURE_ESCAPES } from "./json-escapes";
import { ANSI_LINES, gated, JSON_OBJECT_LINE, JSON_ODD_ESCAPE, KELVIN, LENIENT_NUMBER } from "./lenient-lines";
import { escapeRegex, opensWith, opensWithOneOf, quote, stringMatch } from "./logsql";
import { CANONICAL_IPV4, hasIpFilter, ipFilterLogsQL } from "./ip-filter";
import { planLogQuery } from "./logquery";
import { type BucketGrid, bucketsOf, type MetricGrid } from "./metric-pushdown";
import { EXACT_NUMBER, isNoErrorFilter, type ParsedLabelValues } from "./unwrap-pushdown";
import {
  inOrder,
  jsonAmbiguous,
  jsonMentioned,
  keyMention,
  logfmtBareKey,
  logfmtKey,
  logfmtKeyIn,
  logfmtPaddedKeys,
  looseKey,
  pathAmbiguous,
  pathIn,
  RepeatCounters,
  twiceIn,
} from "./key-tests";
import { flattenedFields, logfmtFields } from "./key-spellings";
import { derivedNames, SERVICE_NAME, type DerivedFieldRules } from "../engine/derived-fields";
import { extractionGrouping, parserHints, type ParserHints } from "../engine/pipeline/parser-hints";
import { guardedRows, type GuardedRows } from "./guarded-rows";
import { formattedLineFilters } from "./formatted-lines";
import { templateFieldNames } from "../engine/template";
import { infallibleTemplate, labelsTouched, passableLabelFormat } from "./infallible-template";
import {
  CONTROL,
  typedLabel,
  typedValuePipes,
  unitField,
  valueGuardTerms,
  type TypedLabels,
  type TypedValues,
} from "./typed-values";

export interface ParserBucketPlan extends BucketGrid {
  value: "count" | "bytes";
  /** Divide the window's total by this many seconds (rate, bytes_rate), or 0 for none. */
  perSeconds: number;
  /** Loki's name for each field of `groupBy` (which names the origin's fields holding the values). */
  labels: string[];
  /** The group value standing for a label Loki set to "" (a series label of its own), if any. */
  setEmpty?: string;
  /** The rows `__bad` counts, for the Worker to count and add in (guarded-rows.ts); without it they void the answer. */
  guarded?: GuardedRows;
  /**
   * Grouped labels `label_format` templates set, rendered by the Worker from each group's values
   * of the labels they read (which `labels` holds in their place), and the answer's labels then:
   * groups rendering alike are one series.
   */
  templates?: LabelTemplate[];
  /** Filters on labels the templates set, applied by the Worker to each group's rendered values. */
  templateFilters?: LabelFilterExpr[];
  /**
   * Grouped by `service_name` as Loki's distributor derives it from these stream labels: the
   * origin groups by `_stream` (in `labels`), and the Worker derives each group's.
   */
  streamService?: readonly string[];
  seriesLabels?: string[];
}

/** VictoriaLogs' field holding a row's stream labels. */
const STREAM = "_stream";

export type Parser = "json" | "logfmt";

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
/** A name led by one `_` (GELF's additional fields; Serilog's `@l` read as `_l`): see underscoreTerms. */
const UNDERSCORE_NAME = /^_[A-Za-z][A-Za-z0-9_]*$/;
/** The fields VictoriaLogs gives every row itself: no label's value may be read from them. */
const ORIGIN_FIELDS = new Set(["_msg", "_time", "_stream", "_stream_id"]);

/**
 * Names the origin can carry a label's value under (see the module comment); with `underscore`,
 * also those led by one `_`, for the parsers whose guards hold underscoreTerms.
 */
export function pushableName(derived?: DerivedFieldRules, underscore = false): (name: string) => boolean {
  const derivedNow = derivedNames(derived);
  return (name) =>
    (NAME.test(name) || (underscore && UNDERSCORE_NAME.test(name) && !ORIGIN_FIELDS.has(name))) &&
    !derivedNow.has(name) &&
    !name.endsWith("_extracted");
}

/**
 * The guard terms of a label's own field where its name starts with `_`: a stream label of that
 * name is the row's label (VictoriaLogs holds it as a field of every row of the stream), but a field
 * of that name outside such streams is not (the Worker reads no field starting with `_` as
 * structured metadata: origin/rows.ts), while the base-first value would take it. Such rows are
 * the guard's, and the Worker reads them.
 */
function underscoreTerms(name: string): string[] {
  return name.startsWith("_") ? [`(${fieldName(name)}:* not {${name}=~".+"})`] : [];
}
const ERROR = "__error__";
/**
 * Integer constants of numeric filters both sides compare alike (see the module comment): below
 * 2^53, exact as doubles on both sides, as the integers of EXACT_NUMBER are.
 */
const MAX_INTEGER = 999_999_999_999_999;
/**
 * Fractional constants both sides compare alike: the shortest decimal of the constant's float (what
 * Loki reads from the query, and the decimal the origin is sent) in EXACT_NUMBER's range.
 */
const FRACTION = /^-?(0|[1-9][0-9]{0,8})\.[0-9]{1,6}$/;
/**
 * Values of typed filters both sides read as the same number: plain decimals (EXACT_NUMBER);
 * an integer and one unit Go's ParseDuration knows (`us`, `µs` and the Greek `μs` are compared as
 * `µs`, the micro sign, as Go's Duration.String() writes it and the only one VictoriaLogs v1.121
 * reads: unitField), at most 99999 so that the nanoseconds stay exact as floats and within Go's
 * int64; Go's Duration.String() of longer spans (`1h2m3.5s`, `2m30s`: integer hours and minutes,
 * then seconds with a fraction, below 2^52 ns), which VictoriaLogs reads part by part, the integer
 * parts exactly; a duration with a fraction (`12.3ms`, `1.5s`, as Go's Duration.String() writes
 * them), which both read within a nanosecond of each other: Go computes the fraction as
 * fraction digits × (unit / 10^digits), exact where that quotient is an integer (at most 6 digits
 * for `ms`, 9 for `s`, `m` and `h`), VictoriaLogs as a float decimal × unit truncated to an integer,
 * within a third of a nanosecond of the exact value below 2^50 ns (at most 5 integer digits for
 * `ms` and `s`, 4 for `m`, 2 for `h`), so one short of Go's at most: the filters' constants then
 * guard the values read within a nanosecond of them (TypedValues.units); a byte count: a plain
 * integer of at most 15 digits (below 2^53, exact as a float; byte counts logged as numbers,
 * `"bytes": 109918`, are the common case), or a decimal below 100000 with a unit of B, K, M or G
 * (with `i` for powers of 1024, `B` optional after a prefix), compared upper-cased (unitField), as
 * go-humanize reads any case. go-humanize truncates the float product of the decimal and the unit;
 * VictoriaLogs truncates its own float reading's product (integer part plus fraction digits times
 * a rounded power of ten, within a unit in the last place of Go's correctly rounded one), below
 * 2^47 here, so the two integers differ by one at most where a fraction is read: the values read
 * within one of a constant are guarded, as durations are. A plain decimal with a fraction is left
 * out (VictoriaLogs reads it as a number, go-humanize truncates it to bytes).
 */
const VALUE_SHAPES = {
  number: EXACT_NUMBER,
  duration:
    "^(?:(0|[1-9][0-9]{0,4})(ns|us|\u00b5s|\u03bcs|ms|s|m|h)" +
    "|(0|[1-9][0-9]{0,4})(\\.[0-9]{1,3}(us|\u00b5s|\u03bcs)|\\.[0-9]{1,6}ms|\\.[0-9]{1,9}s)" +
    "|(0|[1-9][0-9]{0,3})\\.[0-9]{1,9}m|(0|[1-9][0-9]?)\\.[0-9]{1,9}h" +
    // Go's Duration.String() of a minute or more: hours, minutes, then seconds with a fraction.
    "|(0|[1-9][0-9]{0,2})h(0|[1-9][0-9]?)m((0|[1-9][0-9]?)(\\.[0-9]{1,9})?s)?" +
    "|(0|[1-9][0-9]{0,4})m(0|[1-9][0-9]?)(\\.[0-9]{1,9})?s)$",
  // Cases spelled out rather than `(?i)`, whose Unicode folding would admit the Kelvin sign.
  bytes: "^(0|[1-9][0-9]{0,14}|(0|[1-9][0-9]{0,4})(\\.[0-9]{1,6})?([bB]|[kKmMgG][iI]?[bB]?))$",
} as const;

/** The origin's fields for a relevant label: the row's own value, the parsed one, and Loki's. */
const base = (name: string) => `__b_${name}`;
const parsed = (name: string) => `__p_${name}`;
const value = (name: string) => `__v_${name}`;

/** The fields ODD_QUOTES_PIPES writes. */
const ODD_QUOTES_FIELDS = ["__len", "__unquoted", "__unescaped", "__kept", "__odd"];

/**
 * Every field parsedCounting's pipes may write, as `delete` names (a trailing `*` is a prefix): the
 * values above, a chain's (`__pj_`, `__pl_`), groups (`__g_`), the guard's counters, the JSON
 * wrapper and ODD_QUOTES_FIELDS, logfmtParamsCounting's keys (`__q_`), the byte counts' lengths and
 * the line emptyMarkPipes copies. None can be a field the Worker reads (it ignores names starting
 * with `_`, but reads `__error__`, which none of these is).
 */
export const COUNTING_FIELDS = [
  "__b_*",
  "__p_*",
  "__pj_*",
  "__pl_*",
  "__v_*",
  "__g_*",
  "__guard_*",
  "__lvw*",
  ...ODD_QUOTES_FIELDS,
  "__q_*",
  "__n",
  "__marked",
];

/**
 * The object the origin wraps a JSON line in when Loki's parser errors matter (`{"__lvw_ok":1,
 * "__lvw":<line>}`): it parses only if the line is one JSON value followed, at most, by more
 * members (`{"a":1},"b":2`, which Loki reads as `{"a":1}` too); its fields come out as `__lvw.<key>`
 * and `__lvw_ok` says it parsed. A line can only fake them by naming `__lvw` itself (`…},"__lvw.a":1`),
 * which the guard catches by the word.
 */
const WRAPPED = "__lvw";
const WRAPPED_OK = "__lvw_ok";
const WRAPPER_FIELD = "__lvw_w";
const JSON_WRAPPER = `format ${quote(`{"${WRAPPED_OK}":1,"${WRAPPED}":<_msg>}`)} as ${WRAPPER_FIELD}`;
/**
 * A key holding `""` is a label set to "", which Loki keeps as a series apart from the rows without
 * it, where the origin reads no value at all. For a grouped label (`sum by (user_id)`, where Caddy
 * writes `"user_id":""` on every anonymous request) the rows where the origin read no value and
 * the line holds `"<key>":""` (or `"<key>": ""`) are read again from a copy of the line
 * (MARKED_LINE) in which that text reads `"<key>":"\u0001"`: the top-level key's value is then
 * SET_EMPTY, which the answer reads back as "". The text only matches a key in JSON: in a string
 * its quotes would be escaped; matched in a nested object, it leaves the top-level key unread.
 * Other spellings, padding, and `""` read through nested objects keep their rows guarded, and so do
 * lines holding the mark's character themselves. The copy costs only the rows so gated: a panel's
 * rows holding the label pass over it at one test.
 *
 * The copy is read only by the unpack, which VictoriaLogs (v1.121) skips where no later pipe
 * reads `_msg`; the guard always does.
 */
function emptyMarkPipes(
  source: string,
  marked: readonly string[],
  wrapped: boolean,
  /** Where the unpack wrote the values (`__p_`, a chain's `__pj_`). */
  prefix: string,
): string[] {
  if (marked.length === 0) return [];
  const within = (f: string) => (wrapped ? `${WRAPPED}.${f}` : f);
  const parsed = (f: string) => prefix + f;
  // The key, its colon and at most one space (Python's json.dumps writes `": "`), then `""`.
  const key = (n: string) => String.raw`"${escapeRegex(n)}": ?`;
  const unread = marked.map((n) => `${parsed(n)}:""`).join(" or ");
  const holding = marked.map((n) => `_msg:~${quote(`${key(n)}""`)}`).join(" or ");
  // `$1`, the key as written (Go expands the longest name: `"` ends it).
  const mark = String.raw`$1"\u0001"`;
  return [
    `delete ${MARKED_LINE}`,
    // `""` first: a substring search that passes over the many lines holding no empty string.
    `format if ((${unread}) _msg:~${quote('""')} (${holding})) ${quote(`<${source}>`)} as ${MARKED_LINE}`,
    ...marked.map((n) => `replace_regexp (${quote(`(${key(n)})""`)}, ${quote(mark)}) at ${MARKED_LINE}`),
    `unpack_json if (${MARKED_LINE}:*) from ${MARKED_LINE} fields (${marked.map(within).map(fieldName).join(", ")}) result_prefix ${quote(prefix)}`,
    ...(wrapped
      ? marked.map((n) => `format if (${parsed(n)}:"") ${quote(`<${parsed(within(n))}>`)} as ${parsed(n)}`)
      : []),
  ];
}
const MARKED_LINE = "__marked";

/**
 * The pipe giving a filtered label's value "" where emptyMarkPipes marked it (a key holding `""`):
 * the filters then read Loki's value, and the guard's tests of the parsed field still see the mark.
 */
const markCleared = (n: string) => `format if (${value(n)}:=${quote(SET_EMPTY)}) "" as ${value(n)}`;

/**
 * Guard terms for a plan reading SET_EMPTY back as "": the mark's character read from elsewhere
 * than the mark (the row's own value, a value read from the line itself), for every relevant label.
 */
function markTerms(
  relevant: readonly string[],
  marked: ReadonlySet<string>,
  values: ((n: string) => string)[],
): string[] {
  if (marked.size === 0) return [];
  return relevant.flatMap((n) => [
    `${base(n)}:~${quote(SET_EMPTY)}`,
    ...values.map((field, k) => {
      // The first field is the one the mark writes, on the rows emptyMarkPipes read again.
      const unmarked = k === 0 && marked.has(n) ? ` -${MARKED_LINE}:*` : "";
      return `(${field(n)}:~${quote(SET_EMPTY)}${unmarked})`;
    }),
  ]);
}

/** Lines Loki's JSON parser can read as an object: `{` after JSON's whitespace. */
const JSON_OBJECT_START = opensWith("_msg", "{", String.raw` \t\n\r`);
/**
 * A parsed value starting `[` or `{`: the text of an array or object, which the sides read apart,
 * only where a member's value opens one (after `:` and JSON's whitespace). Elsewhere it is a
 * string so starting, which both decode alike: Docker's wrapper carries each JSON line as the
 * string `log`, and guarding all of them sent every row of such a service's `log` panel back.
 */
const openValue = (field: string) =>
  `(${opensWithOneOf(field, ["[", "{"])} _msg:~${quote(String.raw`:[\t\n\r ]*[\[{]`)})`;
/**
 * How a JSON parser error reaches the metric: the row still counts (`drop __error__`), it does not
 * (`__error__=""`), or the query fails with Loki's pipeline error (neither).
 */
export type JsonErrors = "dropped" | "excluded" | "fail";

/** A line holds a `\u` escape or U+FFFD (for JSON lines, JSON_UNSURE_ESCAPES narrows it). */
const ESCAPES = String.raw`\\u|\x{FFFD}`;
/** A `"` inside a logfmt key (`"a"=1`, `a"b=1`): Loki skips the pair. */
const LOGFMT_QUOTED_KEY = String.raw`"[^\x00-\x20"=${KELVIN}]*=`;

/**
 * `sum [by (labels)] (count_over_time | rate | bytes_over_time | bytes_rate (… [range]))` grouped by
 * names the origin can carry, with the log query's plan: what every counting push-down over a
 * parser starts from.
 */
export function countingShape(
  expr: SampleExpr,
  derived?: DerivedFieldRules,
  { streamService = false, extracted = false, underscore = false } = {},
) {
  if (expr.kind !== "VectorAggregation" || expr.op !== "sum" || expr.grouping?.without) return undefined;
  const inner = expr.expr;
  // The counting functions: line counts or byte sizes per bucket (RANGE_FUNCTIONS' `origin.lines`).
  const lines = inner.kind === "RangeAggregation" ? rangeFunction(inner.op).origin.lines : undefined;
  if (inner.kind !== "RangeAggregation" || !lines || inner.grouping || inner.range.unwrap) return undefined;
  const groupBy = expr.grouping?.labels ?? [];
  const usable = pushableName(derived, underscore);
  // A derived `service_name` is the stream's (Loki's distributor adds it): with `streamService`,
  // grouped by the stream and derived by the Worker (ParserBucketPlan.streamService).
  const derivedService = streamService && (derived?.serviceNameLabels.length ?? 0) > 0;
  const accepted = (n: string) =>
    usable(n) || (derivedService && n === SERVICE_NAME) || (extracted && extractedBase(n, usable) !== undefined);
  if (!groupBy.every(accepted)) return undefined;
  // Label filters must not become the origin's prefilters: the guard must see every parsed row.
  const plan = planLogQuery(inner.range.selector, { prefilter: false, derived });
  return { part: expr, inner, lines, groupBy, usable, plan };
}

export function planParserPushdown(
  expr: SampleExpr,
  grid: MetricGrid,
  derived?: DerivedFieldRules,
): ParserBucketPlan | undefined {
  const shape = countingShape(expr, derived, { streamService: true, extracted: true, underscore: true });
  if (!shape) return undefined;
  const { inner, lines, usable, plan } = shape;
  const streamService = shape.groupBy.includes(SERVICE_NAME) ? derived?.serviceNameLabels : undefined;
  // The stream's `service_name` is the answer's only where no stage sets, renames or removes it.
  if (streamService && plan.local.some((stage) => changesLabel(stage, SERVICE_NAME))) return undefined;
  // Grouped `…_extracted` labels: by the fields parsedCounting adds for them (extractedField).
  const renamed = shape.groupBy.filter((n) => extractedBase(n, usable) !== undefined);
  const extracted = renamed.map((n) => n.slice(0, -EXTRACTED.length));
  const groupBy = shape.groupBy.filter((n) => !(streamService && n === SERVICE_NAME) && !renamed.includes(n));
  const buckets = bucketsOf(inner.range, grid);
  // `line_format` and `decolorize` change the line whose bytes the byte counts add up.
  const reshaping = lines.total === "bytes" ? "labels" : "line";
  // A line count reads no line: a line filter on a line made of one label reads that label.
  const stages = reshaping === "line" ? formattedLineFilters(plan.local) : plan.local;
  const options: CountingOptions = { reshaping, emptyGroups: true, templates: true, extracted, markEmpty: true };
  const parsedRows =
    (stages && parsedCounting(stages, groupBy, usable, options)) ??
    (extracted.length > 0
      ? undefined
      : logfmtParamsCounting(plan.local, groupBy, usable, parserHints(inner, extractionGrouping(inner, expr))));
  if (!buckets || !parsedRows) return undefined;
  const { pipes, counted, bad, templates = [], templateFilters } = parsedRows;
  const setEmpty = new Set(parsedRows.setEmpty ?? []);
  // Grouped by what the templates read in place of what they set (ParserBucketPlan.templates).
  const grouped = inputsInPlace(groupBy, templates);
  const fields = grouped.map((n) => (setEmpty.has(n) ? emptyGroup(n) : value(n)));
  grouped.push(...renamed);
  fields.push(...extracted.map(extractedField));
  if (streamService) {
    grouped.push(STREAM);
    fields.push(STREAM);
  }
  const bytes = lines.total === "bytes";
  if (bytes) pipes.push("len(_msg) as __n");

  const by = [buckets.timeGrouping, ...fields].join(", ");
  const rows = [`${plan.logsql}${buckets.inWindows}`, ...pipes].join(" | ");
  // The guard reads `_msg`, which is also what makes VictoriaLogs (v1.121) read the line for the
  // prefixed unpack at all.
  const { pipes: counting, kept, guard } = guardedCounting(parsedRows);
  const stats = [`count() if (${kept}) as __c`];
  if (bytes) stats.push(`sum(__n) if (${kept}) as __v`);
  stats.push(`count() if (${guard}) as __bad`);
  // The pipes only add fields (each under a name of COUNTING_FIELDS): deleted, the row is as stored.
  const cleanup = [`delete ${COUNTING_FIELDS.join(", ")}`];
  return {
    logsql: [rows, ...counting, `stats by (${by}) ${stats.join(", ")}`].join(" | "),
    ...buckets.grid,
    groupBy: fields,
    // A partial answer keeps whole groups of the origin's: only where each is one series.
    ...(templates.length === 0 &&
      !streamService && {
        groups: {
          rows,
          fields,
          ...(counted !== "" && { counted }),
          bad,
        },
      }),
    labels: grouped,
    ...(readsSetEmpty(parsedRows) && { setEmpty: SET_EMPTY }),
    ...(templates.length > 0 && { templates }),
    ...(templateFilters && { templateFilters }),
    ...(streamService && { streamService }),
    ...((templates.length > 0 || streamService) && { seriesLabels: shape.groupBy }),
    value: bytes ? "bytes" : "count",
    perSeconds: lines.perSecond ? Number(buckets.range) / 1e9 : 0,
    guarded: guardedRows(shape.part, inner, plan.local, rows, bad, cleanup),
  };
}

/** A `label_format` that sets `name`, or renames it away. */
export function writesLabel(stage: PipelineStage, name: string): boolean {
  return stage.kind === "LabelFormat" && stage.ops.some((op) => op.dst === name || (!op.isTemplate && op.src === name));
}

/** Whether `stage` may set, rename or remove the label `name` (a parser sets it `…_extracted`). */
function changesLabel(stage: PipelineStage, name: string): boolean {
  switch (stage.kind) {
    case "LabelFormat":
      return writesLabel(stage, name);
    case "Drop":
      return stage.items.some((item) => item.matcher !== undefined || item.name === name);
    case "Keep":
      return !stage.items.some((item) => item.matcher === undefined && item.name === name);
    default:
      return false;
  }
}

/** What the origin needs to count rows through a parser chain and its label filters. */
export interface ParsedCounting {
  /** Pipes giving each row Loki's value of every relevant label (`parsedValueField`) and the guard's fields. */
  pipes: string[];
  /** The filter matching the rows the label filters keep ("" for every row). */
  counted: string;
  /** The filter matching every row VictoriaLogs could read otherwise than Loki (module comment). */
  bad: string;
  /**
   * Grouped labels whose group is `emptyGroup(name)`, SET_EMPTY where Loki set them to "": labels of
   * `| json name="…"`, and marked labels filters also read (their value is cleared of the mark).
   */
  setEmpty?: string[];
  /** Grouped labels whose value is SET_EMPTY where the line's key held `""` (emptyMarkPipes). */
  markedEmpty?: string[];
  /**
   * Grouped labels a `label_format` template sets (CountingOptions.templates): the origin groups
   * by the labels the template reads (`inputs`, relevant labels like the others), and the Worker
   * renders each group's value of `label` from theirs.
   */
  templates?: LabelTemplate[];
  /**
   * Filters on labels the templates set, which the origin cannot apply: the Worker applies them to
   * each group's rendered values (the labels they read are among `templates`, grouped by their
   * inputs like grouped labels), and a group they refuse has no sample.
   */
  templateFilters?: LabelFilterExpr[];
}

/** Whether a plan grouping with `counting` reads SET_EMPTY back as "" (setEmpty, markedEmpty). */
export function readsSetEmpty(counting: Pick<ParsedCounting, "setEmpty" | "markedEmpty">): boolean {
  return (counting.setEmpty ?? []).length > 0 || (counting.markedEmpty ?? []).length > 0;
}

/** `labels` with each one a template sets replaced by the labels the template reads (each once). */
export function inputsInPlace(labels: readonly string[], templates: readonly LabelTemplate[]): string[] {
  const templated = new Set(templates.map((t) => t.label));
  return [...new Set([...labels.filter((n) => !templated.has(n)), ...templates.flatMap((t) => t.inputs)])];
}

/**
 * A grouped label the Worker makes from each group's values of the labels it reads (`inputs`): set
 * by an infallible `label_format` template, or by a rename (`label=rename`), which Loki applies only
 * where the source label exists (a key holding `""` too: such groups are marked), moving its value
 * and removing it; elsewhere the label keeps its own value, so both are inputs.
 */
export type LabelTemplate =
  { label: string; template: string; inputs: string[] } | { label: string; rename: string; inputs: string[] };

/** The rename among `templates`' entries, as a type guard. */
export function isRename(t: LabelTemplate): t is Extract<LabelTemplate, { rename: string }> {
  return "rename" in t;
}

/** What parsedCounting may accept besides parsers, label filters and `drop`s. */
export interface CountingOptions {
  reshaping?: Reshaping;
  /** Group a `| json name="…"` label by `emptyGroup(name)` where Loki may set it to "". */
  emptyGroups?: boolean;
  /** Accept grouped labels a `label_format` template sets (ParsedCounting.templates). */
  templates?: boolean;
  /**
   * Labels whose `…_extracted` is grouped too (extractedField): the parser's value where the row
   * holds the label itself (Loki renames the parsed key), after a lone `| json` or `| logfmt`.
   */
  extracted?: readonly string[];
  /**
   * Group a label of a plain `| json` (alone or before `| logfmt`) whose key holds `""` apart
   * (emptyMarkPipes), where only its group reads it; the plan's answer reads SET_EMPTY back as "".
   */
  markEmpty?: boolean;
}

/** Loki's name for a parsed key the row holds as a label already. */
const EXTRACTED = "_extracted";
/** The label `name` (`level_extracted`) renames, when it is one the origin can carry. */
export function extractedBase(name: string, usable: (name: string) => boolean): string | undefined {
  if (!name.endsWith(EXTRACTED)) return undefined;
  const label = name.slice(0, -EXTRACTED.length);
  return usable(label) ? label : undefined;
}
/** The origin's field holding Loki's `<name>_extracted` (the pipes CountingOptions.extracted adds). */
export const extractedField = (name: string) => value(name + EXTRACTED);

/**
 * A grouped label's group where `| json name="…"` may set it to "": Loki's value, or SET_EMPTY
 * where it set it to "" — a series of its own, apart from rows without the label.
 */
const emptyGroup = (name: string) => `__g_${name}`;
/** The origin's field holding a grouped label's group where `ParsedCounting.setEmpty` names it. */
export const emptyGroupField = emptyGroup;
/** Stands for "set to the empty string": no used value holds a control character (guarded). */
export const SET_EMPTY = "\u0001";
/**
 * The lines on which `| json name="…"` sets every label: non-empty, starting with `"`, `{` or `[`
 * (on others Loki's expression parser reads nothing and marks a parser error, which a chain here
 * always drops). A `| logfmt` after it sets only non-empty values, so an empty value there is
 * still the one `| json` set.
 */
const JSON_EXPRESSION_LINE = String.raw`^["{\[]`;
/**
 * The lines `| json name="…"` marks with a parser error before reading any key: non-empty,
 * starting otherwise. On the others its scanner may still err at a malformed value under a key
 * it reads, but such a line names the key where VictoriaLogs read no value: a guard row.
 */
const JSON_EXPRESSION_REFUSED = String.raw`^[^"{\[]`;

/**
 * Lines on which Loki's `| json` may set a parser error that its guard, with the line read
 * wrapped (JSON_WRAPPER), does not already match: those not starting as an object.
 */
export const JSON_REJECTED_LINES = `-${JSON_OBJECT_START}`;

/**
 * The pipes after a counting push-down's rows, and its stats' conditions: rows the filters keep
 * count (`kept`) unless the guard matches them, and those count only as guard rows (`guard`), for
 * the Worker to count apart (guarded-rows.ts). The guard is evaluated once per row, into a flag;
 * rows neither kept nor guarded are dropped before they make groups of their own.
 */
export function guardedCounting({ counted, bad }: Pick<ParsedCounting, "counted" | "bad">): {
  pipes: string[];
  kept: string;
  guard: string;
} {
  const pipes = [`delete ${GUARD_ROW}`, `format if (${bad}) "1" as ${GUARD_ROW}`];
  if (counted !== "") pipes.push(`filter (${counted}) or ${GUARD_ROW_FILTER}`);
  const unguarded = `-${GUARD_ROW_FILTER}`;
  return { pipes, kept: counted === "" ? unguarded : `${unguarded} (${counted})`, guard: GUARD_ROW_FILTER };
}

/** Set on the rows the guard matches by guardedCounting. */
const GUARD_ROW = "__guard_row";
/** The rows guardedCounting's flag marks, rows read back included (they carry the flag too). */
export const GUARD_ROW_FILTER = `${GUARD_ROW}:=1`;

/**
 * Loki's values of labels a parser may set, and the rows label filters over them keep, for the
 * unwrap push-down (plan/unwrap-pushdown.ts): a filtered label is relevant as a grouped one is.
 */
export const parsedLabelValues: ParsedLabelValues = (parser, labels, repeats, filters) => {
  const typed: TypedLabels = new Map();
  const names = new Set(labels);
  const usable = pushableName(filters?.derived);
  const conditions: string[] = [];
  for (const f of filters?.exprs ?? []) {
    const condition = filterLogsQL(f, typed, names, usable);
    if (condition === undefined) return undefined;
    conditions.push(condition);
  }
  const relevant = [...names];
  return {
    // The guard's terms register the repetition counters: the unwrap push-down computes them once.
    bad: guard(parser, relevant, typed, regexFiltered(filters?.exprs ?? []), repeats),
    pipes: [...parsedValuePipes(parser, relevant, new RepeatCounters()), ...typedValuePipes(typed)],
    fields: labels.map(value),
    kept: conditions.join(" "),
    relevant,
    added: COUNTING_FIELDS,
  };
};

/** The origin's field holding Loki's value of a label `parsedCounting` made relevant. */
export const parsedValueField = value;

/**
 * `stages` (what runs after the origin's line filters) when they are a parser chain, label filters
 * and drops the origin reproduces (module comment), with `groupBy` the labels the counts are
 * grouped by besides; undefined otherwise.
 */
export function parsedCounting(
  stages: readonly PipelineStage[],
  groupBy: readonly string[],
  usable: (name: string) => boolean,
  {
    reshaping,
    emptyGroups = false,
    templates: templatesAccepted = false,
    extracted = [],
    markEmpty = false,
  }: CountingOptions = {},
): ParsedCounting | undefined {
  const pipeline = pipelineAfterParser(stages, usable, reshaping);
  if (!pipeline) return undefined;
  const { chain, errors, dropped, kept, relabelled, templateFilters } = pipeline;
  // `…_extracted` only as a lone parser names it, and only where no stage changes it.
  const renamed = extracted.map((n) => n + EXTRACTED);
  if (extracted.length > 0 && !singleParser(chain)) return undefined;
  if (renamed.some((n) => dropped.has(n) || relabelled.has(n) || kept.some((keep) => !keep.has(n)))) return undefined;
  // Without templates accepted, a filter on a templated label is one on a label a stage changes.
  const filters = templatesAccepted ? pipeline.filters : [...pipeline.filters, ...templateFilters];
  const rendered = templatesAccepted
    ? [...new Set(templateFilters.flatMap((f) => filterLabels(f, isStringFilter)))]
    : [];
  const templates = templatesAccepted ? labelTemplates(pipeline, [...new Set([...groupBy, ...rendered])], usable) : [];
  if (templates === undefined) return undefined;
  const templated = new Set(templates.map((t) => t.label));
  // A label a template reads may be the one it sets (`status="{{.status | ToUpper}}"`).
  const ownInputs = new Set(templates.flatMap((t) => t.inputs.filter((n) => n === t.label)));
  groupBy = groupBy.filter((n) => !templated.has(n));

  const typed: TypedLabels = new Map();
  const names = new Set<string>([...groupBy, ...extracted]);
  const conditions: string[] = [];
  // ip() filters keep every row carrying an error: only after a parser that sets none (`| logfmt`
  // without `--strict`), after `drop __error__` (no row carries one any more), or where the origin
  // tells the parser's errors apart (a lone `| json` read wrapped). There such rows do not count
  // after all (`__error__=""`), fail the query (then every line Loki's parser may reject is a guard
  // row, below), or count with what was read before the error (a later `drop __error__`, as
  // Grafana's log volume ends every query): the filter keeps the lines not starting as an object,
  // and the guard has the object lines the origin's parser rejects.
  const single = singleParser(chain);
  const errorsAtIp = single === "json" && errors === "dropped" && [...pipeline.seeErrors].some(hasIpFilter);
  const ipFilters = (f: LabelFilterExpr): IpFilters => {
    if (single === "logfmt" || (errors === "dropped" && !pipeline.seeErrors.has(f))) return true;
    if (single !== "json") return false;
    return errors !== "dropped" || { orErrors: JSON_REJECTED_LINES };
  };
  for (const f of filters) {
    const condition = filterLogsQL(f, typed, names, usable, ipFilters(f));
    if (condition === undefined) return undefined;
    if (condition !== "") conditions.push(condition);
  }
  // Filtered before or after the template: the value filtered is not one the origin has.
  if ([...names].some((n) => templated.has(n))) return undefined;
  // Likewise a filter on either label of a rename.
  const renameEntries = templates.filter(isRename);
  const moved = new Set(renameEntries.flatMap((t) => t.inputs));
  if (filters.some((f) => filterLabels(f).some((n) => moved.has(n)))) return undefined;
  for (const t of templates) for (const n of t.inputs) names.add(n);
  if ([...templated].some((n) => dropped.has(n))) return undefined;
  const changedBefore = (n: string) => relabelled.has(n) && !ownInputs.has(n) && !moved.has(n);
  if ([...names].some((n) => dropped.has(n) || changedBefore(n))) return undefined;
  if (kept.some((keep) => [...names, ...templated].some((n) => !keep.has(n)))) return undefined;
  const relevant = [...names];
  const keys = chain.json;
  const setEmpty: string[] = [];
  // Labels of `| json name="…"` under typed filters (see typedExpressionRows).
  let typedKeys: string[] = [];
  if (keys !== undefined && keys !== "all") {
    typedKeys = relevant.filter((n) => typed.has(n) && keys.has(n));
    // Loki's series keep such a label with its empty value apart from rows without it (lines not
    // JSON): grouped, it must be non-empty to count, or be grouped apart (emptyGroup).
    for (const n of groupBy) {
      if (!keys.has(n) || filters.some((f) => requiresValue(f, n))) continue;
      if (!emptyGroups) return undefined;
      setEmpty.push(n);
    }
  }

  const repeats = new RepeatCounters();
  const parser = singleParser(chain);
  const wrapped = parser === "json" && (errors !== "dropped" || errorsAtIp);
  // Labels only grouped, or only read by string filters (=, !=, =~, !~), may take the mark when no
  // template or `…_extracted` reads them. A filter reads a key holding `""` as Loki does, as "" (the
  // mark taken off its value again: markCleared); a group keeps the mark, which the answer reads back.
  const filtered = new Set(pipeline.filters.flatMap((f) => filterLabels(f)));
  const otherwiseFiltered = new Set(pipeline.filters.flatMap((f) => filterLabels(f, (c) => !isStringFilter(c))));
  const read = new Set([
    ...templateFilters.flatMap((f) => filterLabels(f)),
    ...templates.filter((t) => !isRename(t)).flatMap((t) => t.inputs),
    ...extracted,
  ]);
  // A label both grouped and filtered is grouped by a copy of its value taken before (emptyGroup).
  const markable = (n: string) =>
    markEmpty && keys === "all" && !read.has(n) && !typed.has(n) && !otherwiseFiltered.has(n);
  // A rename moves a JSON key holding `""` as it moves any value, and leaves its target alone where
  // there is no key: the mark tells the two apart in the groups (unmarked, such rows are guarded).
  // `| json name="…"` gives a missing key "" too, which no mark tells.
  if (keys !== undefined && keys !== "all" && moved.size > 0) return undefined;
  const markedGroups = [...new Set([...groupBy, ...moved])].filter((n) => !filtered.has(n) && markable(n));
  const markedFilters = relevant.filter((n) => filtered.has(n) && markable(n));
  const groupedFilters = markedFilters.filter((n) => groupBy.includes(n));
  const marked = [...markedGroups, ...markedFilters];
  let bad = parser
    ? guard(parser, relevant, typed, regexFiltered(filters), repeats, wrapped, new Set(extracted), new Set(marked))
    : chainGuard(chain, relevant, typed, regexFiltered(filters), repeats, new Set(marked));
  if (typedKeys.length > 0) bad = `${typedExpressionRows(typedKeys)} or ${bad}`;
  // A rename of the row's own label (stream label or metadata) keeps its category, in which Loki
  // may not report the target or may let a parsed one stand: the Worker reads such rows.
  const ownSources = renameEntries.map((t) => `${base(t.rename)}:*`);
  if (ownSources.length > 0) bad = `${ownSources.join(" or ")} or ${bad}`;
  const pipes = parser
    ? parsedValuePipes(parser, relevant, repeats, wrapped, marked)
    : chainValuePipes(chain, relevant, repeats, marked);
  pipes.push(...typedValuePipes(typed));
  for (const n of extracted) pipes.push(`format if (${base(n)}:*) ${quote(`<${parsed(n)}>`)} as ${extractedField(n)}`);
  for (const n of groupedFilters) pipes.push(`format ${quote(`<${value(n)}>`)} as ${emptyGroup(n)}`);
  pipes.push(...markedFilters.map(markCleared));
  // Loki's parser rejects every line not starting as an object, before reading any key: there both
  // sides read no parsed value, so the filters keep such a row alike. On the other lines the guard
  // decides (JSON_WRAPPER).
  const objectLine = JSON_OBJECT_START;
  const refused = `_msg:~${quote(JSON_EXPRESSION_REFUSED)}`;
  if (errors === "fail") {
    // An ip() filter keeps a rejected line whatever its values: every such line is one.
    const keptRejected = filters.some(hasIpFilter) ? [] : conditions;
    bad = wrapped
      ? `(${["-" + objectLine, ...keptRejected].join(" ")}) or ${bad}`
      : `(${[refused, ...conditions].join(" ")}) or ${bad}`;
  }
  if (errors === "excluded" && wrapped) {
    conditions.unshift(objectLine);
    bad = `${objectLine} (${bad})`;
  }
  if (errors === "excluded" && !wrapped) conditions.unshift(`-${refused}`);
  // Last, so that no error handling above narrows it: decolorized, such a line may even parse.
  if (pipeline.decolorized) bad = `${ANSI_LINES} or ${bad}`;
  for (const n of setEmpty) {
    pipes.push(`format ${quote(`<${value(n)}>`)} as ${emptyGroup(n)}`);
    pipes.push(
      `format if (${value(n)}:"" _msg:~${quote(JSON_EXPRESSION_LINE)}) ${quote(SET_EMPTY)} as ${emptyGroup(n)}`,
    );
  }
  return {
    pipes,
    counted: conditions.join(" "),
    bad,
    ...(setEmpty.length + groupedFilters.length > 0 && { setEmpty: [...setEmpty, ...groupedFilters] }),
    ...(markedGroups.length > 0 && { markedEmpty: markedGroups }),
    ...(templates.length > 0 && { templates }),
    ...(templatesAccepted && templateFilters.length > 0 && { templateFilters }),
  };
}

/**
 * The grouped labels of `groupBy` that one `label_format` template of the pipeline sets, with the
 * labels it reads: [] when none is set so, undefined when one is set otherwise (renamed, set by
 * two templates) or its template cannot be rendered from its inputs' values (it may fail, or read
 * a label no origin field can carry, or one another stage changes: the value it reads must be the
 * parser's).
 */
function labelTemplates(
  pipeline: ParsedPipeline,
  groupBy: readonly string[],
  usable: (name: string) => boolean,
): LabelTemplate[] | undefined {
  const { relabelled, renames, formats, dropped } = pipeline;
  // Labels some rename sets or removes.
  const renamed = new Set(renames.flatMap((r) => [r.dst, r.src]));
  const out: LabelTemplate[] = [];
  for (const label of groupBy) {
    if (!relabelled.has(label)) continue;
    if (renamed.has(label)) {
      const rename = soleRename(pipeline, label, usable);
      if (!rename) return undefined;
      if (!out.some((t) => isRename(t) && t.label === rename.dst)) {
        out.push({ label: rename.dst, rename: rename.src, inputs: [rename.src, rename.dst] });
      }
      continue;
    }
    const setting = formats.filter((f) => f.dst === label);
    if (setting.length !== 1) return undefined;
    const { template } = setting[0]!;
    if (!infallibleTemplate(template)) return undefined;
    const inputs = [...new Set(templateFieldNames(template))];
    const changed = (n: string) =>
      dropped.has(n) || renamed.has(n) || formats.some((f) => f.dst === n && f.dst !== label);
    if (!inputs.every((n) => usable(n) && !changed(n))) return undefined;
    out.push({ label, template, inputs });
  }
  return out;
}

/**
 * The one rename (`dst=src`) moving `label` to or from another, when the Worker can apply it to
 * each group: no other rename and no template touches or reads either label, neither is dropped
 * (the labels' values are then the parser's, read before the rename), and it moves a label to
 * another (`a=a` removes it).
 */
function soleRename(
  pipeline: ParsedPipeline,
  label: string,
  usable: (name: string) => boolean,
): { dst: string; src: string } | undefined {
  const { renames, formats, dropped } = pipeline;
  const touching = (n: string) => renames.filter((r) => r.dst === n || r.src === n);
  const [rename, ...others] = touching(label);
  if (!rename || others.length > 0 || rename.dst === rename.src) return undefined;
  const { dst, src } = rename;
  for (const n of [dst, src]) {
    if (!usable(n) || dropped.has(n) || touching(n).length !== 1) return undefined;
    if (formats.some((f) => f.dst === n || templateFieldNames(f.template).includes(n))) return undefined;
  }
  return rename;
}

/**
 * Rows where `| json name="…"` leaves a label under a typed filter without a value Loki's filter
 * reads as VictoriaLogs' does: the expression parser gives a missing (or empty) key an empty value,
 * which the filter fails to convert (LabelFilterErr), and on a line it refuses it marks a parser
 * error, which typed filters let through; either row fails the query, or is counted where a later
 * `drop` removes the error. A superset: every line refused, and every row whose JSON value for the
 * label is empty. Such rows are read back (guarded-rows.ts), so a line set like Loki's expected
 * shape (every key present) is counted by the origin alone.
 */
function typedExpressionRows(labels: readonly string[]): string {
  return [`_msg:~${quote(JSON_EXPRESSION_REFUSED)}`, ...labels.map((n) => `${jsonParsed(n)}:""`)].join(" or ");
}

/**
 * Lines on which a parser of the chain in `stages` may read a key Loki names `name` (a label the
 * parser cannot be allowed to set, as `detected_level`): a superset.
 */
export function parsedKeyMention(stages: readonly PipelineStage[], name: string): string | undefined {
  // Only the chain matters here: the stages after it are the caller's to accept.
  const pipeline = pipelineAfterParser(stages, () => true, "line");
  if (!pipeline) return undefined;
  const { chain } = pipeline;
  const terms: string[] = [];
  if (chain.json !== undefined) {
    // The key itself, or an object under a key that flattens into it (`{"detected": {"level": …}}`).
    const parts = name.split("_");
    const keys = [looseKey(name)];
    for (let i = 1; i < parts.length; i++) keys.push(looseKey(parts.slice(0, i).join("_")) + String.raw`\s*\{`);
    // Each regex searches the line for the name's first part: one substring search of it first
    // spares the lines without it (nearly all) the others.
    const mentions = keys.map((key) => `_msg:~${quote(key)}`).join(" or ");
    const first = parts[0]!;
    terms.push(keys.length > 1 && first ? `(_msg:~${quote(escapeRegex(first))} (${mentions}))` : mentions);
  }
  if (chain.logfmt) terms.push(logfmtKeyIn(name));
  if (pipeline.decolorized) terms.push(ANSI_LINES);
  return terms.join(" or ");
}

/**
 * The pipes computing, for each relevant label, Loki's value (`value(name)`) and the fields the
 * guard reads (run `guard` with the same `repeats` first: it registers the counters).
 */
export function parsedValuePipes(
  parser: Parser,
  relevant: readonly string[],
  repeats: RepeatCounters,
  wrapped = false,
  /** Labels whose key holding `""` is read as SET_EMPTY (emptyMarkPipes). */
  marked: readonly string[] = [],
): string[] {
  const pipes: string[] = [];
  // The row's own values are copied before the unpack: VictoriaLogs (v1.121) takes a field the
  // unpack names as its output, prefix or not, and no longer reads the stored one for later pipes.
  for (const n of relevant) pipes.push(`format ${quote(`<${n}>`)} as ${base(n)}`);
  if (wrapped) {
    // The unpack that reads the values also says whether the line parsed (JSON_WRAPPER).
    pipes.push(JSON_WRAPPER, ...unpackPipes(parsed(""), relevant, flattenedFields, true));
  } else if (relevant.length > 0) {
    if (parser === "json") pipes.push(...unpackPipes(parsed(""), relevant, flattenedFields));
    else pipes.push(...unpackPipes(parsed(""), relevant, logfmtFields, false, "logfmt"));
  }
  pipes.push(...emptyMarkPipes(wrapped ? WRAPPER_FIELD : "_msg", marked, wrapped, parsed("")));
  for (const n of relevant) {
    pipes.push(`format ${quote(`<${base(n)}>`)} as ${value(n)}`);
    pipes.push(`format if (${value(n)}:"") ${quote(`<${parsed(n)}>`)} as ${value(n)}`);
  }
  if (parser === "logfmt") pipes.push(...ODD_QUOTES_PIPES);
  const counters = repeats.pipes();
  if (counters !== "") pipes.push(counters.replace(/^ \| /, ""));
  return pipes;
}

/** Every field `parsedValuePipes` (with the same `wrapped`) and the guard's counters add to a row. */
export function parsedValueFields(
  parser: Parser,
  relevant: readonly string[],
  repeats: RepeatCounters,
  wrapped = false,
): string[] {
  const fields = relevant.flatMap((n) => [base(n), parsed(n), value(n)]);
  if (parser === "json" && wrapped) {
    const unpacked = [WRAPPED_OK, ...relevant.flatMap(flattenedFields).map((f) => `${WRAPPED}.${f}`)];
    fields.push(WRAPPER_FIELD, ...unpacked.map((f) => fieldName(parsed(f))));
  } else if (parser === "json") {
    const nested = relevant.flatMap((n) => flattenedFields(n).slice(1));
    fields.push(...nested.map((f) => fieldName(parsed(f))));
  }
  if (parser === "logfmt") {
    const spelled = relevant.flatMap((n) => logfmtFields(n).slice(1));
    fields.push(...spelled.map((f) => fieldName(parsed(f))), ...ODD_QUOTES_FIELDS);
  }
  return [...fields, ...repeats.fields()];
}

/** The origin's fields for a label as `| json` and as `| logfmt` of a chain read it. */
const JSON_PREFIX = "__pj_";
const logfmtParsed = (name: string) => `__pl_${name}`;

const jsonParsed = (name: string) => `${JSON_PREFIX}${name}`;

/**
 * The fields `unpack_json` may write a label's JSON value to, as VictoriaLogs flattens nested
 * objects (keys joined with `.`): for `| json` every way the label's name reads from nested
 * objects (flattenedFields), for a parameter's path its keys joined (a top-level key itself).
 */
function jsonSources(chain: ParserChain, name: string): string[] {
  if (chain.json === "all") return flattenedFields(name);
  const path = chain.json?.get(name);
  return path ? [path.join(".")] : [name];
}

/** A field name as LogsQL reads it: bare when it is a word, else quoted. */
const fieldName = (field: string) => (/^\w+$/.test(field) ? field : quote(field));

/**
 * Pipes unpacking each label's JSON (or logfmt) value into `prefix + label`: the fields `sources`
 * names are cleared first (a row may carry them), unpacked, and the first non-empty one kept (where
 * two hold a value, the guard's repetition terms send the query back: Loki reads one of them).
 */
function unpackPipes(
  prefix: string,
  labels: readonly string[],
  sources: (label: string) => readonly string[],
  wrapped = false,
  parser: Parser = "json",
): string[] {
  // Wrapped (JSON_WRAPPER), the line's fields come out under `__lvw.`, beside `__lvw_ok`.
  const within = (f: string) => (wrapped ? `${WRAPPED}.${f}` : f);
  const unpacked = [...(wrapped ? [WRAPPED_OK] : []), ...new Set(labels.flatMap(sources).map(within))];
  const cleared = [...new Set([...labels, ...unpacked])].map((f) => fieldName(prefix + f));
  const from = wrapped ? WRAPPER_FIELD : "_msg";
  const pipes = [
    `delete ${cleared.join(", ")}`,
    `unpack_${parser} from ${from} fields (${unpacked.map(fieldName).join(", ")}) result_prefix ${quote(prefix)}`,
  ];
  for (const n of labels) {
    for (const f of sources(n).map(within)) {
      if (f !== n) pipes.push(`format if (${prefix}${n}:"") ${quote(`<${prefix}${f}>`)} as ${prefix}${n}`);
    }
  }
  return pipes;
}

/** The relevant labels the chain's `| json` can set. */
function jsonNames(chain: ParserChain, relevant: readonly string[]): string[] {
  const json = chain.json;
  if (json === undefined) return [];
  return json === "all" ? [...relevant] : relevant.filter((n) => json.has(n));
}

/**
 * parsedValuePipes for a chain: each parser unpacks under a prefix of its own, and Loki's value is
 * the row's own field, else the first parser's where it set the label (Loki's later parsers skip a
 * label already extracted from the line, even an empty one), else `| logfmt`'s non-empty value.
 * `| json` sets a label where the line has its key (an empty value the guard sends where the line
 * names the key); `| json name="…"` sets every one of its labels on each line it reads (starting
 * `"`, `{` or `[`), so `| logfmt` sets them only on the lines it refuses.
 */
export function chainValuePipes(
  chain: ParserChain,
  relevant: readonly string[],
  repeats: RepeatCounters,
  /** Labels whose key holding `""` is read as SET_EMPTY (emptyMarkPipes). */
  marked: readonly string[] = [],
): string[] {
  const pipes: string[] = [];
  const fromJson = jsonNames(chain, relevant);
  if (relevant.length > 0) {
    for (const n of relevant) pipes.push(`format ${quote(`<${n}>`)} as ${base(n)}`);
    pipes.push(`delete ${relevant.map(logfmtParsed).join(", ")}`);
    if (fromJson.length > 0) pipes.push(...unpackPipes(JSON_PREFIX, fromJson, (n) => jsonSources(chain, n)));
    // `| json` sets the label to "" there, which `| logfmt` then leaves.
    pipes.push(...emptyMarkPipes("_msg", marked, false, JSON_PREFIX));
    if (chain.logfmt) {
      // Only lines holding `=` give either side a logfmt value (VictoriaLogs sets a key without
      // one to "", which is no field, and Loki's `| logfmt` sets no label for it): a chain over
      // JSON lines, which seldom hold one, skips the origin's logfmt scan of them (a twelfth of
      // the origin's time on a Drilldown field panel over JSON).
      const fields = relevant.join(", ");
      pipes.push(`unpack_logfmt if (_msg:~"=") from _msg fields (${fields}) result_prefix ${quote(logfmtParsed(""))}`);
    }
    for (const n of relevant) {
      const v = value(n);
      pipes.push(`format ${quote(`<${base(n)}>`)} as ${v}`);
      const json = fromJson.includes(n);
      if (json) pipes.push(`format if (${v}:"") ${quote(`<${jsonParsed(n)}>`)} as ${v}`);
      if (chain.logfmt) {
        const unset = json && chain.json !== "all" ? `${v}:"" -_msg:~${quote(JSON_EXPRESSION_LINE)}` : `${v}:""`;
        pipes.push(`format if (${unset}) ${quote(`<${logfmtParsed(n)}>`)} as ${v}`);
      }
    }
  }
  if (chain.logfmt) pipes.push(...ODD_QUOTES_PIPES);
  const counters = repeats.pipes();
  if (counters !== "") pipes.push(counters.replace(/^ \| /, ""));
  return pipes;
}

/**
 * guard for a chain: each parser's terms where that parser's value decides Loki's. A `| json`
 * value decides wherever the row has no field of its own (an empty one too: a line naming the key
 * with no value VictoriaLogs read is a guard row), and its line-level terms matter only on lines
 * VictoriaLogs may read as JSON; a `| logfmt` value decides only where `| json` set nothing (for
 * `| json name="…"`, on the lines it refuses), and its line-level terms only on lines naming a key
 * it could read as a relevant label (elsewhere neither side's logfmt reading sets one).
 * `| json name="…"` reads the first top-level `name` exactly, and the raw text of an object,
 * array or number: a superset of `| json`'s differences, plus a
 * value VictoriaLogs took from a line Loki's expression parser refuses (one not starting `{`). A
 * nested path's terms name its keys (pathIn, pathAmbiguous) instead of the label's spellings.
 */
export function chainGuard(
  chain: ParserChain,
  relevant: readonly string[],
  typed: ReadonlyMap<string, TypedValues>,
  /** Labels a regex filter reads (regexFiltered). */
  regexed: ReadonlySet<string>,
  repeats: RepeatCounters,
  /** Labels read with emptyMarkPipes. */
  marked: ReadonlySet<string> = new Set(),
): string {
  const terms = [`${ERROR}:*`, `_msg:~${quote(KELVIN)}`, ...markTerms(relevant, marked, [jsonParsed, logfmtParsed])];
  const fromJson = jsonNames(chain, relevant);
  // `| json`'s escapes: JSON_UNSURE_ESCAPES. A logfmt reading unescapes otherwise, but only in a
  // quoted value, or a quoted key (which Loki skips): on lines naming a key it could read as a
  // relevant label, or holding a quoted key, as its other line-level terms. Without relevant JSON
  // labels, any escape stays unsure.
  terms.push(chain.logfmt && fromJson.length === 0 ? `_msg:~${quote(ESCAPES)}` : JSON_UNSURE_ESCAPES);
  if (fromJson.length > 0) {
    const jsonLine = [gated(JSON_ODD_ESCAPE), gated(LENIENT_NUMBER)];
    terms.push(`(${JSON_OBJECT_LINE} (${jsonLine.join(" or ")}))`);
  }
  if (chain.logfmt && relevant.length > 0) {
    // The origin tests a conjunction's terms in order, each on the rows the ones before kept: the
    // rare conditions (an odd quote, an escape) first, the key mentions, which every logfmt line
    // and every JSON line naming the key holds, on what they leave (a seventh of the chain's cost).
    const named = relevant.map((n) => logfmtKeyIn(n)).join(" or ");
    terms.push(`((${QUOTED_KEY_TERM} or __odd:>0) (${named}))`, logfmtPaddedKeys(relevant));
    if (fromJson.length > 0) terms.push(`(_msg:~${quote(ESCAPES)} (${named} or ${QUOTED_KEY_TERM}))`);
  }
  for (const n of relevant) {
    const b = base(n);
    const v = value(n);
    const pj = jsonParsed(n);
    const path = chain.json === "all" ? undefined : chain.json?.get(n);
    // A path read by its exact keys: nested, or one top-level key renamed.
    const nested = path !== undefined && (path.length > 1 || path[0] !== n) ? path : undefined;
    const pl = logfmtParsed(n);
    const json = fromJson.includes(n);
    // The row's own field (structured metadata here) loses to any parsed value.
    const mentions: string[] = [];
    const named = nested ? pathIn(nested) : jsonMentioned(n, chain.json === "all");
    if (json) mentions.push(`${pj}:*`, named);
    if (chain.logfmt) mentions.push(`${pl}:*`, logfmtKeyIn(n));
    if (mentions.length > 0) terms.push(`(${b}:* not {${n}=~".+"} (${mentions.join(" or ")}))`);
    if (chain.logfmt) {
      // Where `| logfmt` decides: `| json` set nothing (no value VictoriaLogs read, and, as the
      // JSON terms below send the rest, a line not naming the key).
      const unset = !json
        ? `${b}:""`
        : chain.json === "all"
          ? `${b}:"" ${pj}:""`
          : `${b}:"" -_msg:~${quote(JSON_EXPRESSION_LINE)}`;
      terms.push(
        `(${unset} ${pl}:"" ${logfmtKeyIn(n)})`,
        `(${unset} (${twiceIn(n, logfmtKey(n), repeats)}))`,
        `(${unset} ${pl}:~${quote(String.raw`[="\\]`)})`,
      );
    }
    if (json) {
      // Loki's later `| logfmt` skips a label `| json` set, even to "".
      const decides = `${b}:""`;
      const ambiguous = nested ? pathAmbiguous(nested, repeats) : jsonAmbiguous(n, repeats);
      terms.push(
        `(${decides} ${pj}:"" ${named})`,
        `(${decides} (${ambiguous}))`,
        `(${decides} ${openValue(pj)})`,
        `(${decides} ${pj}:* -_msg:~${quote(String.raw`^\{`)})`,
      );
    }
    // Control characters matter where `| logfmt` may set the value: where `| json` set none.
    const control = regexed.has(n) || (chain.logfmt && (!json || `${pj}:""`));
    terms.push(...valueGuardTerms(v, typed.get(n), control), ...underscoreTerms(n));
  }
  return terms.join(" or ");
}

interface ParsedPipeline {
  chain: ParserChain;
  /** A `decolorize` runs before the parser: lines holding what it removes (ANSI_LINES) are guard rows. */
  decolorized: boolean;
  /** For `| json`: what a line its parser rejects does to the metric. */
  errors: JsonErrors;
  filters: LabelFilterExpr[];
  /** Labels some `drop` removes (`__error__` included). */
  dropped: Set<string>;
  /** The labels of each `keep` (which removes every other, but never the error labels). */
  kept: Set<string>[];
  /** Labels some `label_format` sets or renames away. */
  relabelled: Set<string>;
  /** The `label_format` templates (`dst="{{…}}"`), in order. */
  formats: { dst: string; template: string }[];
  /** The `label_format` renames (`dst=src`), in order. */
  renames: { dst: string; src: string }[];
  /**
   * String filters, after the `label_format` templates or renames, that read only labels those set:
   * the Worker applies them to each group's rendered values (ParsedCounting.templateFilters).
   */
  templateFilters: LabelFilterExpr[];
  /** The filters rows reach with JSON's parser error still on them (before any `drop __error__` or `__error__=""`). */
  seeErrors: Set<LabelFilterExpr>;
}

/**
 * Stages after the parser a count may pass over besides label filters and `drop`: `keep` and
 * `label_format` (when no relevant label is removed or changed by them) with "labels", also
 * `line_format` and `decolorize`, which change only the line, with "line".
 */
export type Reshaping = "labels" | "line";

const ERROR_DETAILS = "__error_details__";

/**
 * The parsers Loki runs, in order: `| json` (every key, or only the labels of
 * `| json name="[\"name\"]", a_b="[\"a\"][\"b\"]", …`), then `| logfmt` — the chains Logs
 * Drilldown writes for a service's JSON bodies, logfmt bodies, or both.
 */
export interface ParserChain {
  /** Every key, or each label's path of object keys (its own name alone for a top-level key). */
  json?: "all" | ReadonlyMap<string, readonly string[]>;
  logfmt: boolean;
}

/** The one parameterless parser of a chain, when that is all it is. */
function singleParser(chain: ParserChain): Parser | undefined {
  if (chain.json === "all" && !chain.logfmt) return "json";
  if (chain.json === undefined && chain.logfmt) return "logfmt";
  return undefined;
}

/**
 * Keys of a nested path: VictoriaLogs joins the keys of nested objects with `.` into one field
 * name, so a key holding `.` could name the same field as another path, and `*` would make the
 * field list a wildcard. These keys also read alike in regexes and field names.
 */
const PATH_KEY = /^[A-Za-z0-9_-]+$/;

/**
 * The labels of `| json name="[\"name\"]", a_b="[\"a\"][\"b\"]", m="method", …` and their
 * paths, when each path is the one top-level key its label is named after (`name`,
 * `name="name"`), or object keys (PATH_KEY): two or more (what Drilldown writes for a field found
 * nested), or one that renames (`m="method"`), which the guard reads by its exact key as a nested
 * path. Undefined for any other path (indexed), a label named twice, or a renamed label named as
 * another's key: the origin unpacks each key under the prefix and its label's name, which would
 * then hold two values.
 */
function jsonParamPaths(
  params: readonly ExtractionParam[],
  usable: (name: string) => boolean,
): Map<string, string[]> | undefined {
  const paths = new Map<string, string[]>();
  for (const p of params) {
    if (!usable(p.label) || paths.has(p.label)) return undefined;
    const path = parseJsonExpression(p.expression ?? p.label);
    if (!path.ok) return undefined;
    const keys = path.steps.filter((step): step is string => typeof step === "string");
    if (keys.length !== path.steps.length) return undefined;
    const topLevel = keys.length === 1 && keys[0] === p.label;
    const nested = keys.length > 0 && keys.every((k) => PATH_KEY.test(k));
    if (!topLevel && !nested) return undefined;
    paths.set(p.label, keys);
  }
  const read = new Set([...paths.values()].map((keys) => keys.join(".")));
  for (const [label, keys] of paths) if (keys.join(".") !== label && read.has(label)) return undefined;
  return paths;
}

/**
 * The parser chain and the label filters after it, when the stages Loki runs are a chain of
 * ParserChain's shape followed by label filters and `drop`s whose effect the origin reproduces
 * (see the module comment); undefined otherwise.
 */
function pipelineAfterParser(
  stages: readonly PipelineStage[],
  usable: (name: string) => boolean,
  reshaping?: Reshaping,
): ParsedPipeline | undefined {
  let at = 0;
  // `decolorize` before the parser: the line the parser reads is the stored one where it holds no
  // escape to remove (decolorized: such lines are guard rows).
  let decolorized = false;
  while (stages[at]?.kind === "Decolorize") {
    decolorized = true;
    at++;
  }
  const chain: ParserChain = { logfmt: false };
  const first = stages[at];
  if (first?.kind === "JsonParser") {
    chain.json = first.params.length === 0 ? "all" : jsonParamPaths(first.params, usable);
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
  const kept: Set<string>[] = [];
  const relabelled = new Set<string>();
  const formats: ParsedPipeline["formats"] = [];
  const renames: ParsedPipeline["renames"] = [];
  let errors: JsonErrors = "fail";
  const seeErrors = new Set<LabelFilterExpr>();
  const templateFilters: LabelFilterExpr[] = [];
  for (const stage of stages.slice(at)) {
    if (reshaping !== undefined && stage.kind === "Keep") {
      if (stage.items.some((item) => item.matcher)) return undefined;
      kept.push(new Set(stage.items.map((item) => item.name)));
    } else if (reshaping !== undefined && stage.kind === "LabelFormat") {
      for (const op of stage.ops) {
        if (!passableLabelFormat(op)) return undefined;
        for (const n of labelsTouched(op)) relabelled.add(n);
        if (op.isTemplate) formats.push({ dst: op.dst, template: op.src });
        else renames.push({ dst: op.dst, src: op.src });
      }
    } else if (reshaping === "line" && stage.kind === "LineFormat") {
      if (!infallibleTemplate(stage.template)) return undefined;
    } else if (reshaping === "line" && stage.kind === "Decolorize") {
      continue;
    } else if (stage.kind === "Drop") {
      if (stage.items.some((item) => item.matcher)) return undefined;
      for (const item of stage.items) dropped.add(item.name);
      if (dropped.has(ERROR) && errors === "fail") errors = "dropped";
    } else if (stage.kind === "LabelFilter") {
      const f = stage.filter;
      if (isNoErrorFilter(f)) {
        // Removes the rows JSON's parser rejected, if not dropped before; the rows a filter's error
        // would mark are guarded.
        if (errors === "fail") errors = "excluded";
        continue;
      }
      if (reshaping !== undefined && readsTemplatedOnly(f, [...formats, ...renames])) {
        templateFilters.push(f);
        continue;
      }
      filters.push(f);
      if (errors === "fail") seeErrors.add(f);
    } else return undefined;
  }
  if (chain.json === undefined) errors = "dropped";
  // A lone `| json` reads its lines wrapped (JSON_WRAPPER); `| json name="…"` errs only on what
  // JSON_EXPRESSION_REFUSED matches.
  if (errors !== "dropped" && singleParser(chain) !== "json" && typeof chain.json !== "object") return undefined;
  return {
    chain,
    decolorized,
    errors,
    filters,
    dropped,
    kept,
    relabelled,
    formats,
    renames,
    templateFilters,
    seeErrors,
  };
}

/**
 * Whether `f` is made of string filters only (`and` / `or` / parentheses of them) over labels some
 * of `setting` (the templates and renames before it) set. Whether each such label is set by one
 * template or rename the Worker can apply is labelTemplates' to decide.
 */
function readsTemplatedOnly(f: LabelFilterExpr, setting: readonly { dst: string }[]): boolean {
  switch (f.type) {
    case "string":
      return f.name !== ERROR && f.name !== ERROR_DETAILS && setting.some((t) => t.dst === f.name);
    case "paren":
      return readsTemplatedOnly(f.expr, setting);
    case "binary":
      return readsTemplatedOnly(f.left, setting) && readsTemplatedOnly(f.right, setting);
    default:
      return false;
  }
}

/** A label filter's comparison of one label (`a="b"`, `x > 3`, `ip = ip(…)`). */
type LabelComparison = Exclude<LabelFilterExpr, { type: "binary" } | { type: "paren" }>;

/** The labels the comparisons in `f` read, those `reads` accepts (every one without it). */
function filterLabels(f: LabelFilterExpr, reads?: (c: LabelComparison) => boolean): string[] {
  const names: string[] = [];
  walk(f, {
    LabelFilterExpr: (node) => {
      if (node.type !== "binary" && node.type !== "paren" && (!reads || reads(node))) names.push(node.name);
    },
  });
  return names;
}

const isStringFilter = (c: LabelComparison) => c.type === "string";
const isRegexFilter = (c: LabelComparison) => c.type === "string" && (c.op === "=~" || c.op === "!~");

/** The labels regex filters (`=~`, `!~`) among `filters` read. */
export function regexFiltered(filters: Iterable<LabelFilterExpr>): Set<string> {
  return new Set([...filters].flatMap((f) => filterLabels(f, isRegexFilter)));
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

/**
 * How `ip()` filters are pushed: not at all (false); on the values (true), which leaves the rows
 * carrying an error, which they all keep, to the caller (ip-filter.ts); or kept on the rows a
 * condition matches as well (`orErrors`: the rows carrying the parser's error, where the caller has
 * the others guarded).
 */
export type IpFilters = boolean | { orErrors: string };

/**
 * The LogsQL filter matching the rows `f` keeps, over the fields holding Loki's values; records
 * the labels it reads (in `names`; typed ones also in `typed`, with the value shapes they need). Undefined when it cannot be
 * pushed exactly. `ip()` filters as `ip` says.
 */
export function filterLogsQL(
  f: LabelFilterExpr,
  typed: TypedLabels,
  names: Set<string>,
  usable: (name: string) => boolean,
  ip: IpFilters = false,
): string | undefined {
  switch (f.type) {
    case "ip": {
      if (!ip || !usable(f.name)) return undefined;
      const condition = ipFilterLogsQL(value(f.name), f.op, f.cidr);
      if (condition === undefined) return undefined;
      names.add(f.name);
      typedLabel(typed, f.name).shapes.add(CANONICAL_IPV4);
      return ip === true ? condition : `(${condition} or ${ip.orErrors})`;
    }
    case "string": {
      if (!usable(f.name)) return undefined;
      names.add(f.name);
      return stringMatch(value(f.name), f.op, f.value);
    }
    case "number":
    case "duration":
    case "bytes": {
      if (!usable(f.name)) return undefined;
      const v = f.type === "number" ? value(f.name) : unitField(f.type, value(f.name));
      const integer = Number.isInteger(f.value);
      const limit = f.type === "number" ? MAX_INTEGER : Number.MAX_SAFE_INTEGER;
      if (integer ? Math.abs(f.value) > limit : f.type !== "number" || !FRACTION.test(`${f.value}`)) return undefined;
      names.add(f.name);
      const values = typedLabel(typed, f.name);
      values.shapes.add(VALUE_SHAPES[f.type]);
      if (f.type !== "number") values.unit(f.type, value(f.name), f.value);
      // VictoriaLogs compares a duration in ns and a byte size in bytes with a plain number.
      const n = `${f.value}`;
      // Equal as decimals (module comment): an integer VictoriaLogs reads exactly, a fraction by
      // its spellings, the shortest one and trailing zeros.
      const equal = integer ? `(${v}:>=${n} ${v}:<=${n})` : `${v}:~${quote(`^${escapeRegex(n)}0*$`)}`;
      switch (f.op) {
        case ">":
        case "<":
          return integer ? `${v}:${f.op}${n}` : `(${v}:${f.op}${n} -${equal})`;
        case ">=":
        case "<=":
          return integer ? `${v}:${f.op}${n}` : `(${v}:${f.op}${n} or ${equal})`;
        case "=":
        case "==":
          return equal;
        case "!=":
          // A missing label fails every numeric filter in Loki, `!=` included.
          return `(${v}:* -${equal})`;
      }
      return undefined;
    }
    case "paren":
      return filterLogsQL(f.expr, typed, names, usable, ip);
    case "binary": {
      const left = filterLogsQL(f.left, typed, names, usable, ip);
      const right = filterLogsQL(f.right, typed, names, usable, ip);
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
  typed: ReadonlyMap<string, TypedValues>,
  /** Labels a regex filter reads (regexFiltered). */
  regexed: ReadonlySet<string>,
  repeats: RepeatCounters,
  wrapped = false,
  /** Labels whose `…_extracted` is grouped (CountingOptions.extracted). */
  extracted: ReadonlySet<string> = new Set(),
  /** Labels read with emptyMarkPipes. */
  marked: ReadonlySet<string> = new Set(),
): string {
  const terms = [`${ERROR}:*`, `_msg:~${quote(KELVIN)}`];
  terms.push(...markTerms(relevant, marked, [parsed]));
  if (parser === "json") {
    // Only on lines VictoriaLogs may read as an object: from others neither side reads a key.
    const jsonLine = [JSON_UNSURE_ESCAPES, gated(JSON_ODD_ESCAPE), gated(LENIENT_NUMBER)];
    terms.push(`(${JSON_OBJECT_LINE} (${jsonLine.join(" or ")}))`);
  } else {
    terms.push(...logfmtLineTerms(relevant));
  }
  // JSON_WRAPPER's object line did not parse (from other lines neither side reads a key, and Loki's
  // error on them is planParserPushdown's), or a line could have faked its fields. The missing
  // field first: the origin tests the regex only on the rows it leaves.
  if (wrapped) terms.push(`(-${parsed(WRAPPED_OK)}:* ${JSON_OBJECT_START})`, `_msg:${WRAPPED}`);
  for (const n of relevant) {
    const b = base(n);
    const p = parsed(n);
    const v = value(n);
    const mentioned = parser === "json" ? jsonMentioned(n, true) : keyMention(logfmtKey(n));
    // `| json` sets no label from a `null` (Python's None, Go's nil pointer), nor does the origin.
    const valued = parser === "json" ? jsonMentioned(n, true, true) : mentioned;
    const twice = parser === "json" ? jsonAmbiguous(n, repeats) : twiceIn(n, logfmtKey(n), repeats);
    // A logfmt value holding `=` is unsure where it was unquoted (VictoriaLogs keeps what follows,
    // Loki skips the pair); one holding a space was quoted (VictoriaLogs ends an unquoted value at
    // a space), and both read a quoted `msg="miss for key=42"` alike, as they read the value of a
    // key whose `=` a quote follows (`path="/search?q=shoes"`, as go-kit and logrus quote a value
    // holding `=`): a line naming the key twice is `twice`'s.
    const badValue =
      parser === "json"
        ? openValue(p)
        : `(${p}:~${quote(String.raw`["\\]`)} or (${p}:~"=" -${p}:~" " -${keyMention(`${logfmtKey(n)}"`)}))`;
    // Where the row holds the label, Loki still reads the key, as `…_extracted`: the parsed value
    // then matters too, so the terms that ask for it hold there as well.
    const reads = extracted.has(n) ? "" : `${b}:"" `;
    terms.push(
      `(${b}:* not {${n}=~".+"} (${p}:* or ${mentioned}))`,
      `(${reads}${p}:"" ${valued})`,
      `(${reads}(${twice}))`,
      `(${reads}${badValue})`,
    );
    terms.push(...valueGuardTerms(v, typed.get(n), parser === "logfmt" || regexed.has(n)), ...underscoreTerms(n));
    if (extracted.has(n)) {
      // The row holding `…_extracted` itself (metadata), or a line naming that key.
      const renamed = n + EXTRACTED;
      const named = parser === "json" ? jsonMentioned(renamed, true) : keyMention(logfmtKey(renamed));
      terms.push(`${p}:~${quote(CONTROL)}`, `${renamed}:*`, named);
    }
  }
  return terms.join(" or ");
}

/**
 * A logfmt key in quotes (Loki skips such pairs), on the lines holding an `=` at all: the regex
 * tried at every `"` costs JSON lines, which seldom hold one, a scan each. A `"` right after an `=`
 * opens a quoted value (`msg="k=v w"`), which both sides read alike: the last regex, which no
 * literal leads, runs only on the lines the others match.
 */
const QUOTED_KEY_TERM = `(_msg:~"=" _msg:~${quote(LOGFMT_QUOTED_KEY)} _msg:~${quote(`(?:^|[^=${KELVIN}])${LOGFMT_QUOTED_KEY}`)})`;

/**
 * The line-level terms of a `| logfmt` reading of `keys`: any `\u` escape, a quoted key, an odd
 * quote (ODD_QUOTES_PIPES), a key padded before its `=` (logfmtPaddedKeys).
 */
function logfmtLineTerms(keys: readonly string[]): string[] {
  const terms = [`_msg:~${quote(ESCAPES)}`, QUOTED_KEY_TERM, "__odd:>0"];
  return keys.length > 0 ? [...terms, logfmtPaddedKeys(keys)] : terms;
}

/**
 * Pipes computing `__odd`: above 0 when the line holds an odd number of `"` (an unterminated quoted
 * value, or an escaped quote), or of `"` not escaped (`msg="ok\" level=x`: the escaped quote leaves
 * the value unterminated, and VictoriaLogs reads it unquoted up to the space, then `level`, where
 * Loki's reading stops), by the same substring removal as RepeatCounters: `\\` removed, then `\"`.
 */
const ODD_QUOTES_PIPES = [
  "len(_msg) as __len",
  "copy _msg as __unquoted",
  String.raw`replace ("\"", "") at __unquoted`,
  "len(__unquoted) as __unquoted",
  // Copied only where an escaped quote is: elsewhere both counts are the same.
  "delete __unescaped",
  String.raw`format if (_msg:~"\\\\\"") "<_msg>" as __unescaped`,
  String.raw`replace ("\\\\", "") at __unescaped`,
  String.raw`replace ("\\\"", "") at __unescaped`,
  "len(__unescaped) as __kept",
  String.raw`replace ("\"", "") at __unescaped`,
  "len(__unescaped) as __unescaped",
  "math (((__len - __unquoted) % 2) + ((__kept - __unescaped) % 2)) as __odd",
];

/** The origin's field holding the value VictoriaLogs unpacked for a key `| logfmt name="key"` reads. */
const paramKey = (key: string) => `__q_${key}`;

/**
 * `| logfmt name="key", …` (no flags) followed by label filters and `drop`s, with Loki's parser
 * hints `hints` (engine/pipeline/parser-hints.ts), when the origin reproduces it (undefined
 * otherwise). Loki's expression parser first sets every label it names that the row does not hold
 * (a stream label or structured metadata) to "", then reads the line's pairs in order: a key is
 * read when it is one of the labels or the hints name it, and it sets the label whose key it is
 * (else the label of its own name); the last pair read wins, except that reading stops once every
 * hinted label is set (which the first sets may already have done: then the first pair read wins)
 * and at a key of a label the row holds. So where the line holds at most one key the parser reads
 * (`considered`) for each label, and at most one in all where reading stops at the first, each
 * label is the row's own field, else its key's value, else "": what the origin computes, unpacking
 * the considered keys under a prefix of their own. The guard counts, besides the line-level terms
 * of plain `| logfmt` (escapes, U+FFFD, quoted keys, odd quotes, a field `__error__`), every row
 * where that may not hold or VictoriaLogs may read otherwise: a considered key twice, two keys of
 * one label, or, where reading stops at the first, two considered keys (any spelling Loki may
 * sanitise to them, bare keys too: a superset), a considered key VictoriaLogs read no value for, a
 * value holding `=`, `"`, `\` or a control character, a key of a label the row holds (there Loki
 * stops reading). A label set to "" is a series of its own
 * (SET_EMPTY). Typed filters on the parser's labels are declined (Loki fails on the "" it sets).
 */
export function logfmtParamsCounting(
  stages: readonly PipelineStage[],
  groupBy: readonly string[],
  usable: (name: string) => boolean,
  hints: ParserHints,
): ParsedCounting | undefined {
  const [parser, ...after] = stages;
  if (parser?.kind !== "LogfmtParser" || parser.params.length === 0 || parser.strict || parser.keepEmpty) {
    return undefined;
  }
  // Each key the parser may read, with the label it sets.
  const labelOf = new Map<string, string>();
  const ids = new Set<string>();
  for (const p of parser.params) {
    const key = p.expression ?? p.label;
    // Two labels of one key: Loki picks one at random.
    if (!usable(p.label) || ids.has(p.label) || !NAME.test(key) || labelOf.has(key)) return undefined;
    ids.add(p.label);
    labelOf.set(key, p.label);
  }
  const filters: LabelFilterExpr[] = [];
  const dropped = new Set<string>();
  for (const stage of after) {
    if (stage.kind === "Drop" && stage.items.every((item) => !item.matcher)) {
      for (const item of stage.items) dropped.add(item.name);
    } else if (stage.kind === "LabelFilter") {
      // Nothing marks an error on the rows the guard leaves: `__error__=""` keeps every one.
      if (!isNoErrorFilter(stage.filter)) filters.push(stage.filter);
    } else return undefined;
  }
  const typed: TypedLabels = new Map();
  const names = new Set<string>(groupBy);
  const conditions: string[] = [];
  for (const f of filters) {
    const condition = filterLogsQL(f, typed, names, usable);
    if (condition === undefined) return undefined;
    if (condition !== "") conditions.push(condition);
  }
  const relevant = [...names];
  if (relevant.some((n) => dropped.has(n) || (typed.has(n) && ids.has(n)))) return undefined;

  const target = (key: string) => labelOf.get(key) ?? key;
  const required = hints.required;
  const keys = hints.none ? [] : [...new Set([...labelOf.keys(), ...ids])];
  const considered = keys.filter((k) => (ids.has(k) || !required || required.has(k)) && ids.has(target(k)));

  // Every hinted label is one the parser sets first: reading stops at the first pair it reads.
  const stops = required !== undefined && [...required].every((n) => ids.has(n));
  const repeats = new RepeatCounters();
  const mention = (key: string) => keyMention(logfmtBareKey(key));
  const terms = [`${ERROR}:*`, `_msg:~${quote(KELVIN)}`];
  if (considered.length > 0) terms.push(...logfmtLineTerms(considered));
  considered.forEach((k, i) => {
    const q = paramKey(k);
    terms.push(
      twiceIn(k, logfmtBareKey(k), repeats),
      `(${q}:"" ${mention(k)})`,
      `${q}:~${quote(String.raw`[="\\]`)}`,
      `${q}:~${quote(CONTROL)}`,
    );
    for (const other of considered.slice(i + 1)) {
      if (target(k) === target(other)) terms.push(`(${mention(k)} ${mention(other)})`);
    }
  });
  // Where reading stops (at the first pair read, or at a key of a label the row holds), a key
  // after it is not read: its label, unless the row holds it, is "" for Loki and the key's value
  // for the origin. Only such an ordered pair, of a label the answer reads, is a guard row; a line
  // naming the labels in the order where nothing is lost (the held key last, as `level=… job=…`
  // under a stream label `job`) is not.
  for (const first of considered) {
    for (const later of considered) {
      if (target(first) === target(later) || !names.has(target(later))) continue;
      const stopsAtFirst = stops ? "" : `${base(target(first))}:* `;
      const order = inOrder(logfmtBareKey(first), logfmtBareKey(later));
      terms.push(`(${stopsAtFirst}${base(target(later))}:"" ${order})`);
    }
  }
  for (const n of relevant) {
    terms.push(...valueGuardTerms(value(n), typed.get(n)), ...underscoreTerms(n));
  }

  // The row's own values are copied before the unpack (parsedValuePipes says why).
  const pipes = [...new Set([...ids, ...relevant])].map((n) => `format ${quote(`<${n}>`)} as ${base(n)}`);
  if (considered.length > 0) {
    pipes.push(`delete ${considered.map(paramKey).join(", ")}`);
    pipes.push(`unpack_logfmt from _msg fields (${considered.join(", ")}) result_prefix ${quote(paramKey(""))}`);
  }
  for (const n of relevant) {
    pipes.push(`format ${quote(`<${base(n)}>`)} as ${value(n)}`);
    if (!ids.has(n)) continue;
    for (const k of considered.filter((key) => target(key) === n)) {
      pipes.push(`format if (${value(n)}:"") ${quote(`<${paramKey(k)}>`)} as ${value(n)}`);
    }
  }
  pipes.push(...typedValuePipes(typed));
  if (considered.length > 0) pipes.push(...ODD_QUOTES_PIPES);
  const counters = repeats.pipes();
  if (counters !== "") pipes.push(counters.replace(/^ \| /, ""));
  // A label of the parser the row does not hold is set, "" included: a series of its own.
  const setEmpty = hints.none ? [] : groupBy.filter((n) => ids.has(n));
  for (const n of setEmpty) {
    pipes.push(`format ${quote(`<${value(n)}>`)} as ${emptyGroup(n)}`);
    pipes.push(`format if (${value(n)}:"") ${quote(SET_EMPTY)} as ${emptyGroup(n)}`);
  }
  return { pipes, counted: conditions.join(" "), bad: terms.join(" or "), ...(setEmpty.length > 0 && { setEmpty }) };
}

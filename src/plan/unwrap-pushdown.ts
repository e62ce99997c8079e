/**
 * Which unwrap aggregations VictoriaLogs computes exactly, and the LogsQL that does it.
 *
 * Pushed shapes, over `selector |line filters | json | stages | unwrap f [| __error__=""]` (or
 * `| logfmt`), where the stages between the parser and the unwrap are label filters as the counting
 * push-down pushes them (string, regex, numeric, duration, bytes, `and`/`or`), `__error__=""`, and
 * `drop` of labels nothing groups, filters or unwraps (`__error__` included):
 * - `min|max|avg_over_time(...) by (labels)`: Loki groups the samples themselves by the labels;
 * - `sum by (labels) (sum_over_time(...))`, `min by (min_over_time)`, `max by (max_over_time)`:
 *   the outer aggregation of per-series totals / extremes is the total / extreme of the samples;
 * - `sum by (labels) (rate(...))`: Loki's rate over an unwrap is the window's sum divided by the
 *   range in seconds (not a counter's rate), so the sum of per-series rates is the rate of the
 *   samples: the buckets' sums, added up per window and divided by the range;
 * - `quantile_over_time(φ, ...) by (labels)`: the origin sends each bucket's values (`values`, as
 *   the text it extracted) and the Worker takes the quantile of each window's values — the same
 *   multiset Loki sorts, so the same number, whatever order the values come in;
 * - `stdvar_over_time` / `stddev_over_time(...) by (labels)`: the same values, reduced per bucket
 *   to count, mean and squared deviations and merged per window (exec/moments.ts): the same
 *   multiset Loki folds, so the same variance but for float rounding;
 * - `first_over_time` / `last_over_time(...) by (labels)` of plain values: per bucket the values at
 *   its earliest (latest) sample time, which settle the answer when they agree (timedStats).
 * (`origin.unwrapped` and `mergedBy` in RANGE_FUNCTIONS.) `unwrap duration(f)`, `duration_seconds(f)`
 * and `bytes(f)` are pushed for values of a simple shape, aggregated per unit (plan/unwrap-units.ts).
 * Anything else (no grouping, `without`, other parsers or stages) stays local.
 *
 * A filtered label is one more label whose Loki value the origin computes and guards as the
 * counting push-down does for a grouped one (plan/parser-pushdown.ts, through ParsedLabelValues):
 * the row's own field, else the parsed key, a typed filter's label guarded wherever it is set but
 * not of a shape both sides parse alike. A row is a sample where the filters keep it and its value
 * is exact. With the guard finding nothing, no row with a value carries an error in Loki (see
 * stagesAfterParser), so the error filters and drops change nothing the origin aggregates. Such a
 * query is grouped by Loki's values from the start (parsedUnwrapSource), in one request.
 *
 * VictoriaLogs and Loki agree on a row only when both see the same value for `f` and read it as
 * the same number. That holds for one value shape, EXACT_NUMBER: plain decimals of at most 9
 * integer and 6 fraction digits, and integers of at most 15 digits (exact as doubles, on both
 * sides). Go's ParseFloat reads them correctly rounded; VictoriaLogs reads the integer part
 * exactly and adds the fraction with one fused multiply-add (within one unit in the last place),
 * and keeps min/max (and the values of `values`) as the original text, which the
 * Worker parses correctly rounded — so min, max and quantiles are exact and sums and averages
 * differ at most by float rounding, as any change of summation order does. Rows outside the shape are not aggregated by the origin;
 * instead it counts, in the SAME request (`count() if (...) as __bad`), every row where Loki
 * might see something else. Where the answer is a fold that merges (sums, extremes, an average's
 * sum and count: plan/unwrap-guarded.ts), the guard is evaluated once per row into a flag, the
 * origin aggregates only the rows it does not match, and the Worker reads those rows back and
 * merges its aggregate of them in; otherwise (a quantile, a variance, a first or a last) any such
 * row sends the whole query back to local evaluation. The guard matches:
 * - `f` is also a stream label or metadata field (Loki keeps that one and renames the parsed value
 *   to `f_extracted`);
 * - the parsed `f` is non-empty but not of the exact shape, or of the conversion's (exponents, hex,
 *   signs, NaN/Inf, durations, huge numbers, JSON objects or arrays, ...);
 * - the line names a key that Loki could turn into `f` (after trimming and replacing characters
 *   outside [A-Za-z0-9_] by `_`) but VictoriaLogs extracted no exact number (malformed JSON, null,
 *   a look-alike key), or may read `f` from more than one key: the key twice, or a key naming it
 *   through nested objects beside another (plan/key-tests.ts jsonAmbiguous, the counting
 *   push-down's tests);
 * - the line holds a `\u` escape in a key, or one whose value the two sides may decode differently
 *   (JSON_UNSURE_ESCAPES, json-escapes.ts);
 * - VictoriaLogs may read the line past where Loki's parser stops with an error (`"x": +1`, an
 *   escape JSON does not define: JSON_READ_FURTHER), so that Loki has no `f` or an error with it;
 * - a grouped label is missing from the stream but the line could give it to Loki (beside
 *   structured metadata of that name, which the Worker then reads, or not at all: then see
 *   `parsedLabels`).
 * Names must start with a letter and use only [A-Za-z0-9_], and not end in `_extracted`.
 *
 * The guard also keeps the aggregation itself right: VictoriaLogs (v1.121) reads only the fields a
 * query names, and a prefixed `unpack_json … fields (f)` does not name its source — without the
 * guard's `_msg` terms in the same request (in the stats pipe, or in the pipe setting the flag),
 * every `__unwrap_f` would be empty.
 */
import type {
  LabelFilterExpr,
  Matcher,
  PipelineStage,
  RangeAggregationExpr,
  SampleExpr,
  UnwrapConversion,
} from "../logql/ast";
import { BUCKET_VALUES, type UnwrapStat, rangeFunction } from "../logql/functions";
import { JSON_UNSURE_ESCAPES } from "./json-escapes";
import { ANSI_LINES, JSON_READ_FURTHER } from "./lenient-lines";
import { infallibleTemplate, labelsTouched, passableLabelFormat } from "./infallible-template";
import { fieldName, quote } from "./logsql";
import { planLogQuery } from "./logquery";
import { type BucketGrid, bucketsOf, type MetricGrid } from "./metric-pushdown";
import { derivedNames, type DerivedFieldRules } from "../engine/derived-fields";
import { unitSplit, valueShape } from "./unwrap-units";
import { guardedSamples, mergesGuardRows, type GuardedSamples } from "./unwrap-guarded";
import { flattenedFields } from "./key-spellings";
import { GUARD, jsonAmbiguous, jsonMentioned, RepeatCounters } from "./key-tests";

export type UnwrapFn = UnwrapStat;

export interface UnwrapBucketPlan extends BucketGrid {
  fn: UnwrapFn;
  /** φ of `quantile`. */
  phi: number;
  /**
   * Each stats row also counts (`__bad_label`) the rows where a grouped label is not the row's own
   * field and the line could give it: with no other guard row, the answer is then `parsedLabels`'.
   */
  parsedLabels?: UnwrapBucketPlan;
  /**
   * The selector's matchers, with `parsedLabels`: when no stream they select has a grouped label,
   * this plan would defer to `parsedLabels`, which is then asked directly (exec/unwrap-pushdown.ts).
   */
  streams?: Matcher[];
  /** Loki's name for each field of `groupBy`, when not the field's own (grouped by parsed values). */
  labels?: string[];
  /** The unwrap's conversion, when it has one: each stats row is then one unit's (plan/unwrap-units.ts). */
  conversion?: Exclude<UnwrapConversion, "">;
  /** The group value standing for a label Loki set to "" (grouped by a `regexp` or `pattern` capture). */
  setEmpty?: string;
  /**
   * The rows `__bad` counts, which the origin then leaves out of its aggregates, for the Worker to
   * aggregate and merge in (plan/unwrap-guarded.ts); without it they void the answer.
   */
  guarded?: GuardedSamples;
}

/**
 * Most values one bucket of one group may send (`values … limit`): bounds what the origin holds for
 * a quantile; a bucket with more declines the push-down (its count says so).
 */
export const MAX_BUCKET_VALUES = 1_000_000;

/**
 * Numbers both sides read alike (see above); no leading zeros, which VictoriaLogs does not read.
 * Integers of 10 to 15 digits too (nanosecond durations, epoch milliseconds, byte counts): below
 * 2^53, both read them exactly.
 */
export const EXACT_NUMBER = "^-?(?:(0|[1-9][0-9]{0,8})(\\.[0-9]{1,6})?|[1-9][0-9]{9,14})$";
/** `-0` sorts and prints differently across the two sides: left to local evaluation. */
const NEGATIVE_ZERO = "^-0(\\.0*)?$";
const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const EXTRACTED = "_extracted";
/** Prefix of the fields `unpack_json` writes, so parsed values never overwrite stream fields. */
const PARSED = "__unwrap_";
/** The field holding the extracted value when both sides read it alike, else empty. */
export const EXACT_VALUE = `${GUARD}exact`;
/** Rows whose value both sides read alike, and the others. */
const EXACT = `${EXACT_VALUE}:*`;
const INEXACT = `${EXACT_VALUE}:""`;
/** Set on the rows the guard matches, where they are aggregated apart (evaluated once per row). */
const GUARD_ROW = `${GUARD}row`;

/**
 * Loki's values of labels `| json` may set, computed by the origin beside the unwrapped value, with
 * the guard of rows where they could differ (the parser push-down's, plan/parser-pushdown.ts, which
 * registers its repetition counters in `repeats`).
 */
export interface LabelValues {
  pipes: string[];
  bad: string;
  /** The fields holding each label's value. */
  fields: string[];
  /** The filter matching the rows the label filters keep ("" for every row). */
  kept: string;
  /** Every label whose value the pipes compute: the labels asked for and those the filters read. */
  relevant: string[];
  /** The names (a trailing `*` a prefix) of every field the pipes may add, for a `delete`. */
  added: readonly string[];
}
export type ParsedLabelValues = (
  parser: "json" | "logfmt",
  labels: readonly string[],
  repeats: RepeatCounters,
  /**
   * Label filters between the parser and the unwrap, over Loki's values: the labels they read are
   * computed and guarded like the others. Undefined when one cannot be pushed exactly.
   */
  filters?: { exprs: readonly LabelFilterExpr[]; derived?: DerivedFieldRules },
) => LabelValues | undefined;

export function planUnwrapPushdown(
  expr: SampleExpr,
  grid: MetricGrid,
  derived?: DerivedFieldRules,
  labelValues?: ParsedLabelValues,
  extracted?: ExtractedUnwrapSource,
): UnwrapBucketPlan | undefined {
  let inner: RangeAggregationExpr;
  let groupBy: string[];
  let fn: UnwrapFn | undefined;
  if (expr.kind === "RangeAggregation") {
    if (!expr.grouping || expr.grouping.without) return undefined;
    inner = expr;
    groupBy = expr.grouping.labels;
    // Loki groups the samples themselves by the labels: one stats function of the samples.
    const facts = rangeFunction(expr.op);
    fn = facts.grouping ? facts.origin.unwrapped : undefined;
  } else if (expr.kind === "VectorAggregation" && expr.expr.kind === "RangeAggregation") {
    if (expr.grouping?.without || expr.expr.grouping) return undefined;
    inner = expr.expr;
    groupBy = expr.grouping?.labels ?? [];
    // The outer aggregation of per-series values equals one aggregation of the samples.
    const facts = rangeFunction(inner.op);
    fn = facts.mergedBy === expr.op ? facts.origin.unwrapped : undefined;
  } else return undefined;
  if (!fn) return undefined;

  const buckets = bucketsOf(inner.range, grid);
  const source = jsonUnwrapSource(inner, groupBy, derived, labelValues, false) ?? extracted?.(inner, groupBy, derived);
  if (!buckets || !source) return undefined;
  const conversion = inner.range.unwrap!.conversion;
  // Units of one value could order differently on the two sides: a first or last stays plain.
  if ((fn === "first" || fn === "last") && conversion !== "") return undefined;
  const units = unitSplit(conversion, fn, EXACT_VALUE);
  const plan = (from: JsonUnwrapSource, labelBad?: string): UnwrapBucketPlan => {
    const by = [buckets.timeGrouping, ...from.groupFields, ...units.by].join(", ");
    const bad = labelBad === undefined ? from.bad : from.valueBad;
    // A sample: a row the filters keep, with a value both sides read alike (the others are guarded).
    const sample = from.kept === "" ? EXACT : `${EXACT} ${from.kept}`;
    // Where the guard's rows merge, the origin aggregates the others only; the flag is evaluated
    // once per row, and its `_msg` terms still make VictoriaLogs read the line for the unpack.
    const merged = mergesGuardRows(fn) ? fn : undefined;
    const flag = merged ? ` | delete ${GUARD_ROW} | format if (${bad}) "1" as ${GUARD_ROW}` : "";
    const counted = merged ? `-${GUARD_ROW}:=1 ${sample}` : sample;
    const rowBad = merged ? `${GUARD_ROW}:=1` : bad;
    const guards = labelBad === undefined ? { bad: rowBad } : { bad: rowBad, labelBad };
    const stats =
      fn === "first" || fn === "last"
        ? timedStats(fn, by, from.groupFields, units.field, counted, guards)
        : bucketStats(fn, by, units.field, counted, guards);
    const read = `${from.logsql}${buckets.inWindows} | `;
    const rows = `${read}${from.unpack}${from.guardPipes}${flag}`;
    // A bucket's list holds plain decimals only (the guard's shape): without their quotes it is
    // the same values, and the answer line needs no escape — a third fewer bytes to write and send,
    // and a line the Worker reads where it lies (stats-answer.ts) rather than parsing it as JSON.
    const unquote = BUCKET_VALUES.has(fn) ? ` | replace (${quote('"')}, "") at __v` : "";
    return {
      logsql: `${rows}${units.pipes} | ${stats}${unquote}`,
      ...buckets.grid,
      groupBy: from.groupFields,
      groups: { rows, fields: from.groupFields, counted, bad: from.bad },
      fn,
      phi: inner.param ?? NaN,
      ...(from.groupFields !== groupBy && { labels: groupBy }),
      ...(from.setEmpty !== undefined && { setEmpty: from.setEmpty }),
      ...(conversion !== "" && { conversion }),
      ...(merged && {
        guarded: guardedSamples(
          merged,
          inner,
          groupBy,
          from.local,
          `${read}${from.back.pipes}`,
          bad,
          from.back.cleanup,
        ),
      }),
    };
  };
  // Grouped by labels the rows may not have as fields (`by (method)` over the JSON's `method`):
  // when the rows show it, the plan that groups by Loki's values of the labels (a second request).
  const parsed =
    source.labelBad === "" || !labelValues ? undefined : jsonUnwrapSource(inner, groupBy, derived, labelValues, true);
  if (!parsed) return plan(source);
  return { ...plan(source, source.labelBad), parsedLabels: plan(parsed), streams: inner.range.selector.matchers };
}

/** The rows Loki might read differently (`__bad`), and those giving a grouped label in their lines. */
interface GuardCounts {
  bad: string;
  labelBad?: string;
}

/** One stats pipe: per (bucket, group) `fn`'s aggregate of the samples (or their values), their count, the guards. */
function bucketStats(fn: UnwrapFn, by: string, field: string, counted: string, guards: GuardCounts): string {
  const valueStat = BUCKET_VALUES.has(fn)
    ? `values(${field}) limit ${MAX_BUCKET_VALUES}`
    : `${fn === "avg" || fn === "rate" ? "sum" : fn}(${field})`;
  let stats =
    `stats by (${by}) ${valueStat} if (${counted}) as __v, count() if (${counted}) as __n, ` +
    `count() if (${guards.bad}) as __bad`;
  if (guards.labelBad !== undefined) stats += `, count() if (${guards.labelBad}) as __bad_label`;
  return stats;
}

/** The field holding a row's own time, read by the second stats pipe of a first or last. */
const SAMPLE_TIME = `${GUARD}t`;

/**
 * A first or last value per (bucket, group), with what settles it: Loki takes the window's earliest
 * (latest) sample, and between samples of one group at the same nanosecond an order the origin
 * cannot reproduce (Loki's stream hashes, then the order within a chunk). So a first stats pipe
 * groups the samples by their own time too, keeping the smallest and the largest value at each
 * time; a second keeps, per bucket, those of the earliest (latest) time that has a sample. When the
 * two differ, samples tied at that time hold different values (exec/unwrap-pushdown.ts then reads
 * the lines, where the Worker takes them in arrival order as local evaluation always does); when
 * they are equal, every order gives that value. The values are of the exact shape, which the
 * origin orders as numbers (two distinct such decimals never read as one number, see above).
 */
function timedStats(
  fn: "first" | "last",
  by: string,
  groupFields: readonly string[],
  field: string,
  counted: string,
  guards: GuardCounts,
): string {
  const label = guards.labelBad !== undefined;
  const perTime =
    `copy _time as ${SAMPLE_TIME} | stats by (${by}, ${SAMPLE_TIME}) min(${field}) if (${counted}) as __lo, ` +
    `max(${field}) if (${counted}) as __hi, count() if (${counted}) as __n, count() if (${guards.bad}) as __bad` +
    (label ? `, count() if (${guards.labelBad}) as __bad_label` : "");
  const pick = fn === "first" ? "row_min" : "row_max";
  const perBucket =
    `stats by (${["_time", ...groupFields].join(", ")}) ${pick}(${SAMPLE_TIME}, __lo, __hi) if (__n:>0) as __v, ` +
    `sum(__n) as __n, sum(__bad) as __bad` +
    (label ? ", sum(__bad_label) as __bad_label" : "");
  return `${perTime} | ${perBucket}`;
}

/**
 * `selector | json | unwrap f [| __error__=""]` grouped by stream labels, in LogsQL terms: the
 * selector and line filters, the `unpack_json` that extracts `f` alone (as `__unwrap_f`, so it never
 * overwrites a stream field), the filter for values both sides read alike, and the guard that
 * matches every row Loki might read differently (see the module comment). Undefined when the
 * aggregation is not of that shape.
 */
export interface JsonUnwrapSource {
  logsql: string;
  unpack: string;
  /** Pipes after the unpack computing fields `bad` reads (" | …", or empty). */
  guardPipes: string;
  /** The LogsQL field holding the extracted value. */
  parsed: string;
  /** Rows Loki might read differently: `valueBad` or `labelBad`. */
  bad: string;
  /** Rows whose value Loki might read differently. */
  valueBad: string;
  /** Rows where a grouped label is not the row's field and the line could give it ("" for none). */
  labelBad: string;
  /** The rows the label filters before the unwrap keep ("" for every row). */
  kept: string;
  field: string;
  groupBy: string[];
  /** The fields holding the grouped labels' values: `groupBy`, or Loki's values of them (byParsedLabels). */
  groupFields: string[];
  /** The group value standing for a label Loki set to "" (a series label of its own), if any. */
  setEmpty?: string;
  /** The pipeline the Worker runs over rows read back (the stages the origin left to it). */
  local: PipelineStage[];
  /**
   * How the guard's rows are read back: the pipes (after `logsql`) giving them every field `bad`
   * reads, and those giving them back their stored fields only (the Worker would read added ones
   * as labels).
   */
  back: { pipes: string; cleanup: string[] };
}

/** The source of `| regexp` / `| pattern` (plan/unwrap-extract.ts), given by the caller. */
export type ExtractedUnwrapSource = (
  inner: RangeAggregationExpr,
  groupBy: string[],
  derived?: DerivedFieldRules,
) => JsonUnwrapSource | undefined;

/**
 * The pipe writing EXACT_VALUE: the row's `value` where both sides read it alike (of `shape`, and
 * not a negative zero, which sorts and prints differently across them), else nothing.
 */
export function exactValuePipe(value: string, shape: string): string {
  return (
    ` | delete ${EXACT_VALUE} | format if (${value}:~${quote(shape)} not ${value}:~${quote(NEGATIVE_ZERO)}) ` +
    `${quote(`<${value}>`)} as ${EXACT_VALUE}`
  );
}

/**
 * Rows whose `value` is set but not one both sides read alike: exactValuePipe's test, read from
 * its result (the filter must follow that pipe), not run again (two regexes per row: a third of
 * the origin's time on an nginx bytes panel).
 */
export function inexactValue(value: string): string {
  return `(${value}:* ${INEXACT})`;
}

export function jsonUnwrapSource(
  inner: RangeAggregationExpr,
  groupBy: string[],
  derived?: DerivedFieldRules,
  labelValues?: ParsedLabelValues,
  byParsedLabels = false,
): JsonUnwrapSource | undefined {
  const unwrap = inner.range.unwrap;
  if (!unwrap || !unwrap.postFilters.every(isNoErrorFilter)) return undefined;
  const shape = valueShape(unwrap.conversion, EXACT_NUMBER, rangeFunction(inner.op).origin.unwrapped);
  const field = unwrap.label;
  // A `…_extracted` label is a parsed key beside a row field of its name: the base-first values
  // cannot name it.
  const pushable = (l: string) => NAME.test(l) && !l.endsWith(EXTRACTED);
  if (!pushable(field) || groupBy.some((l) => !pushable(l) || l === field)) return undefined;
  // Labels the Worker derives (`detected_level`, `service_name`) exist only in the Worker.
  const derivedNow = derivedNames(derived);
  if (derivedNow.has(field) || groupBy.some((l) => derivedNow.has(l))) return undefined;
  const plan = planLogQuery(inner.range.selector, { derived });
  const stages = stagesAfterParser(plan.local);
  if (!stages || [field, ...groupBy].some((l) => stages.dropped.has(l) || !stages.untouched(l))) return undefined;
  const filters = stages.filters.length > 0 ? { exprs: stages.filters, derived } : undefined;
  // Filtered, or grouped by Loki's values: every value as the counting push-down computes it (one
  // unpack for all). Filtered, that is also the plan grouped by stream labels: it costs the origin
  // what the plan grouped by the rows' fields does, once the filtered values are computed anyway.
  if (stages.parser === "logfmt" || byParsedLabels || filters) {
    return labelValues && parsedUnwrapSource(stages, plan, field, groupBy, labelValues, filters, shape);
  }

  const parsed = PARSED + field;
  // The value's shape is tested once per row, in a pipe: its result (the value when it is of the
  // exact shape, else empty) is what the aggregation, its count and the guard read. The same regexes
  // in each of them cost the origin a fifth more time on a six-hour panel. Rows the test skips must
  // hold nothing there: VictoriaLogs (v1.121) leaves them empty, and the delete first keeps it so
  // should a version keep a stored field of that name instead.
  const exactPipe = exactValuePipe(parsed, shape);
  const repeats = new RepeatCounters();
  // The counting push-down's tests of the keys `| json` reads as each label, nested ones included.
  const mentionedKey = (l: string) => jsonMentioned(l, true);
  const ambiguousKey = (l: string) => jsonAmbiguous(l, repeats);
  const valueBad = [
    ...(stages.decolorized ? [ANSI_LINES] : []),
    `${fieldName(field)}:*`,
    inexactValue(parsed),
    // The value test first: the origin then runs the line regex only on rows it did not read exactly.
    `(${INEXACT} ${mentionedKey(field)})`,
    ambiguousKey(field),
    JSON_UNSURE_ESCAPES,
    JSON_READ_FURTHER,
  ];
  // Every field VictoriaLogs may hold the value in (a dotted or dashed key), the first one set kept:
  // a line with two is `ambiguous`, one with any other spelling `looseKey`'s.
  const sources = flattenedFields(field);
  const unpack = [
    ...(sources.length > 1 ? [`delete ${sources.map((f) => fieldName(PARSED + f)).join(", ")}`] : []),
    `unpack_json from _msg fields (${sources.map(fieldName).join(", ")}) result_prefix ${quote(PARSED)}`,
    ...sources.slice(1).map((f) => `format if (${parsed}:"") ${quote(`<${PARSED}${f}>`)} as ${parsed}`),
  ].join(" | ");
  const mentioned = (l: string) => `(${mentionedKey(l)} or ${ambiguousKey(l)})`;
  const labelBad = groupBy.map((l) => `(${fieldName(l)}:"" ${mentioned(l)})`).join(" or ");
  // Structured metadata of a grouped label while the line gives the key too: the Worker reads such
  // rows (Loki keeps the metadata's value and names the line's `…_extracted`).
  for (const l of groupBy) valueBad.push(`(${fieldName(l)}:* not {${l}=~".+"} ${mentioned(l)})`);
  const bad = [...valueBad, ...(labelBad === "" ? [] : [labelBad])].join(" or ");
  const guardPipes = exactPipe + repeats.pipes();
  return {
    logsql: plan.logsql,
    unpack,
    guardPipes,
    parsed,
    bad,
    valueBad: valueBad.join(" or "),
    labelBad,
    kept: "",
    field,
    groupBy,
    groupFields: groupBy,
    local: plan.local,
    back: { pipes: `${unpack}${guardPipes}`, cleanup: [`delete ${PARSED}*, ${GUARD}*`] },
  };
}

/**
 * `| logfmt | unwrap f`, or `| json | … | unwrap f` filtered or grouped by Loki's values, in LogsQL
 * terms: every value (`f`, the grouped labels and those the filters read) as the counting push-down
 * computes Loki's (the row's own field, else the parsed key, plan/parser-pushdown.ts), under its
 * guard, which also sends every row whose `f` is set but not of `shape`.
 */
function parsedUnwrapSource(
  { parser, dropped, untouched, decolorized }: NonNullable<ReturnType<typeof stagesAfterParser>>,
  { logsql, local }: { logsql: string; local: PipelineStage[] },
  field: string,
  groupBy: string[],
  labelValues: ParsedLabelValues,
  filters: Parameters<ParsedLabelValues>[3],
  /** The value shape both sides read alike (EXACT_NUMBER, or a conversion's). */
  shape: string,
): JsonUnwrapSource | undefined {
  const repeats = new RepeatCounters();
  // The value's shape is guarded from exactValuePipe's result (inexactValue), not as a typed label's.
  const values = labelValues(parser, [field, ...groupBy], repeats, filters);
  if (!values || values.relevant.some((l) => dropped.has(l) || !untouched(l))) return undefined;
  const [value, ...groupFields] = values.fields;
  const exactPipe = exactValuePipe(value!, shape);
  const bad = `${decolorized ? `${ANSI_LINES} or ` : ""}${values.bad} or ${inexactValue(value!)}`;
  const unpack = values.pipes.join(" | ");
  const guardPipes = exactPipe + repeats.pipes();
  return {
    logsql,
    unpack,
    guardPipes,
    parsed: value!,
    bad,
    valueBad: bad,
    labelBad: "",
    kept: values.kept,
    field,
    groupBy,
    groupFields,
    local,
    back: { pipes: `${unpack}${guardPipes}`, cleanup: [`delete ${[...values.added, `${GUARD}*`].join(", ")}`] },
  };
}

/**
 * `| json` (without parameters) or `| logfmt` (without parameters or flags), then label filters,
 * `__error__=""` and `drop`s of labels without value matchers: the filters to push, and the labels
 * dropped (which the caller declines to read). Also passed over: `decolorize` before the parser
 * (`decolorized`: the lines it may change are guard rows, ANSI_LINES), and after it stages that
 * change no label the answer reads, which the caller checks (`untouched`): `keep` of names,
 * `label_format` with templates that cannot fail (infallibleTemplate), `line_format` with such a
 * template, and `decolorize` (the unwrapped value is a label's, not the line's).
 *
 * Error rows need nothing of their own: a row whose unwrapped value Loki reads is guarded unless
 * both sides read it, and the labels the filters read, alike and of a shape the filters parse. So
 * no row the origin aggregates carries an error in Loki (parser, label filter or conversion):
 * `__error__=""` and `drop __error__` keep every such row, and no such row fails the query.
 */
function stagesAfterParser(stages: readonly PipelineStage[]):
  | {
      parser: "json" | "logfmt";
      filters: LabelFilterExpr[];
      dropped: Set<string>;
      decolorized: boolean;
      /** Whether the stages passed over leave the label as the parser set it. */
      untouched: (label: string) => boolean;
    }
  | undefined {
  let at = 0;
  while (stages[at]?.kind === "Decolorize") at++;
  const decolorized = at > 0;
  const [first, ...rest] = stages.slice(at);
  let parser: "json" | "logfmt";
  if (first?.kind === "JsonParser" && first.params.length === 0) parser = "json";
  else if (first?.kind === "LogfmtParser" && first.params.length === 0 && !first.strict && !first.keepEmpty)
    parser = "logfmt";
  else return undefined;
  const filters: LabelFilterExpr[] = [];
  const dropped = new Set<string>();
  const kept: Set<string>[] = [];
  const relabelled = new Set<string>();
  for (const stage of rest) {
    if (stage.kind === "LabelFilter") {
      if (!isNoErrorFilter(stage.filter)) filters.push(stage.filter);
    } else if (stage.kind === "Drop" && stage.items.every((item) => !item.matcher)) {
      for (const item of stage.items) dropped.add(item.name);
    } else if (stage.kind === "Keep" && stage.items.every((item) => !item.matcher)) {
      kept.push(new Set(stage.items.map((item) => item.name)));
    } else if (stage.kind === "LabelFormat") {
      if (!stage.ops.every(passableLabelFormat)) return undefined;
      for (const n of stage.ops.flatMap(labelsTouched)) relabelled.add(n);
    } else if (stage.kind === "LineFormat" && infallibleTemplate(stage.template)) {
      continue;
    } else if (stage.kind !== "Decolorize") return undefined;
  }
  const untouched = (label: string) => !relabelled.has(label) && kept.every((keep) => keep.has(label));
  return { parser, filters, dropped, decolorized, untouched };
}

/**
 * `__error__=""`: with no error rows (the guard proves there are none that matter) it drops nothing
 * the origin keeps.
 */
export function isNoErrorFilter(f: LabelFilterExpr): boolean {
  return f.type === "string" && f.name === "__error__" && f.op === "=" && f.value === "";
}

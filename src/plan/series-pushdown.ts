/**
 * Counting metrics without parsers whose answer needs Loki's series themselves, not only a sum over
 * them: a bare `count_over_time({app="auth"} |= "ERROR" [5m])` (the usual alert), or one under an
 * aggregation that does not merge series by adding them (`avg by`, `max by`, `count by`, `topk`, a
 * binary operation), and `sum by (labels)` naming a label the Worker derives (`service_name`,
 * `detected_level`). VictoriaLogs counts the rows (or their bytes) per (bucket, group of rows that
 * share every input of their series' labels); the Worker gives each group its labels once, by the
 * very pipeline rows go through (exec/series-pushdown.ts), and evaluates whatever encloses it.
 *
 * Shape: `count_over_time | rate | bytes_over_time | bytes_rate (selector | line filters | label
 * filters | drop | keep [range] [offset])`, or `sum by (…)` around one. Every line filter runs in
 * the origin; what runs in the Worker reads labels only (label filters, `drop`, `keep`), never the
 * line.
 *
 * Exactness. Without a parser a row's labels are its stream labels, its structured metadata (every
 * field of the row not named with a leading `_` and not a stream label: origin/rows.ts) and the
 * fields derived from them (engine/derived-fields.ts): `service_name` from the stream labels alone,
 * and, with level discovery on, `detected_level` from the labels, the metadata and the line. The
 * origin groups by `_stream_id` (one stream each; a second request gives each stream's `_stream`),
 * by each metadata field that can matter, and (when the level can matter) by the raw inputs of
 * Loki's level rules (plan/level-pushdown.ts LEVEL_INPUT_PIPES). So every row of a group has the
 * same stream, the same metadata, and the same inputs to its level: the Worker rebuilds the labels
 * from them exactly as a row's (`service_name` derived from the stream, the level by
 * `detectLevelWith` over the stream and metadata with the line's part from the reduced inputs) and
 * runs the Worker's part of the pipeline on them, which reads nothing else. The rows of a group
 * whose inputs do not settle the level, or whose labels carry a pipeline error, are read back (the
 * same rows and pipes, filtered by the group's values) and evaluated by the Worker (`readBack`).
 *
 * Which metadata can matter: for the series themselves, every field (`fields: "all"`, named by a
 * `field_names` request over every row of the selected streams, exec/series-pushdown.ts: grouping
 * by a field no counted row holds changes no group); for a `sum by (…)` that keeps only some labels,
 * the grouped labels and the labels the Worker's stages read. With every field, a field named like
 * a stream label is not grouped by when the streams carrying that label hold all the rows it is set
 * on: it is that label. The buckets then also count the rows that set such a field in a stream
 * without that label (`LABEL_ONLY_BREACHES`): rows written since the names were asked can, and any
 * such row declines the answer, as a field name the names did not hold does when they are asked again (by the
 * buckets' own requests, which the origin follows with the names over the same window). A metadata field named like a label
 * the Worker derives is grouped by too: its value is then kept under Loki's `_extracted` name, as
 * the rows' labels keep it.
 *
 * The buckets make Loki's windows as in plan/metric-pushdown.ts (`bucketsOf`).
 */
import type { Grouping, LabelFilterExpr, PipelineStage, RangeAggregationExpr, SampleExpr } from "../logql/ast";
import { rangeFunction } from "../logql/functions";
import { walk } from "../logql/walk";
import { DETECTED_LEVEL, type DerivedFieldRules } from "../engine/derived-fields";
import { planLogQuery } from "./logquery";
import { countedPart, countedRange, type ReadBack } from "./guarded-rows";
import { fieldName, quote } from "./logsql";
import { bucketsOf, type BucketGrid, type MetricGrid } from "./metric-pushdown";
import { INPUT, LEVEL_INPUT_PIPES, LEVEL_LABEL_INPUTS } from "./level-pushdown";

export interface SeriesBucketPlan {
  /** The rows counted: selector, line filters and label-filter prefilters, then the in-windows pipes. */
  rows: string;
  /**
   * The stream selector alone: every row of the selected streams, a superset of the rows counted,
   * whose field names and streams the origin tells from its index and block headers in a few ms.
   */
  streams: string;
  /** The pipes between the rows and the stats pipe (the level inputs), each led by ` | `. */
  pipes: string;
  /** The stats pipe's functions: the value (`__v`), and for bytes the rows counted (`__c`). */
  stats: string;
  /** The `_time` grouping of the buckets. */
  timeGrouping: string;
  /** How the buckets make windows (BucketGrid without its query). */
  buckets: Omit<BucketGrid, "logsql" | "groupBy">;
  /** Metadata fields grouped by beside `_stream`: every field the rows hold, or these. */
  fields: "all" | readonly string[];
  /** Whether the level inputs are grouped by (level discovery on, and the level can matter). */
  levels: boolean;
  /** The range aggregation whose samples the groups stand for, its pipeline the Worker's part alone. */
  range: RangeAggregationExpr;
  /** Groupings applied in order to each group's labels (the range aggregation's, then an enclosing sum's). */
  groupings: Grouping[];
  /** How the Worker reads back the rows of groups whose labels the groups cannot settle. */
  readBack: ReadBack;
  value: "count" | "bytes";
  perSeconds: number;
}

/** More metadata fields than this and the groups would be near one per row: evaluated from rows. */
export const MAX_SERIES_FIELDS = 100;

/** The level inputs grouped by besides the metadata fields. */
export const LEVEL_GROUP_FIELDS: readonly string[] = [...LEVEL_LABEL_INPUTS, ...Object.values(INPUT)];

export function planSeriesPushdown(
  expr: SampleExpr,
  grid: MetricGrid,
  derived?: DerivedFieldRules,
): SeriesBucketPlan | undefined {
  if (expr.kind === "VectorAggregation") {
    // Sums of the groups' sums are the sum; any other aggregation needs the series first.
    if (expr.op !== "sum" || !expr.grouping || expr.grouping.without) return undefined;
    const inner = expr.expr;
    if (inner.kind !== "RangeAggregation" || inner.grouping) return undefined;
    return planRange(inner, grid, derived, [expr.grouping], expr);
  }
  if (expr.kind !== "RangeAggregation") return undefined;
  return planRange(expr, grid, derived, expr.grouping ? [expr.grouping] : [], expr);
}

function planRange(
  agg: RangeAggregationExpr,
  grid: MetricGrid,
  derived: DerivedFieldRules | undefined,
  groupings: Grouping[],
  part: SampleExpr,
): SeriesBucketPlan | undefined {
  if (agg.range.unwrap) return undefined;
  const lines = rangeFunction(agg.op).origin.lines;
  if (!lines) return undefined;
  const plan = planLogQuery(agg.range.selector, { derived });
  const read = new Set<string>();
  for (const stage of plan.local) {
    const names = labelsRead(stage);
    if (!names) return undefined;
    for (const name of names) read.add(name);
  }
  const buckets = bucketsOf(agg.range, grid);
  if (!buckets) return undefined;
  // A `by` grouping keeps only its labels: the others can only matter through what the stages read.
  // (Without one, or under `without`, every label is in the answer: every field can matter.)
  const narrowed = groupings.find((g) => !g.without);
  let fields: "all" | string[] = "all";
  if (narrowed && !groupings.some((g) => g.without)) {
    fields = [...new Set([...narrowed.labels, ...read])].filter((name) => !name.startsWith("_"));
  }
  const levels = derived?.discoverLogLevels === true && (fields === "all" || fields.includes(DETECTED_LEVEL));
  const value = lines.total;
  const pipes = levels ? ` | ${LEVEL_INPUT_PIPES}` : "";
  return {
    rows: plan.logsql + buckets.inWindows,
    streams: planLogQuery({ ...agg.range.selector, pipeline: [] }, { derived }).logsql,
    pipes,
    stats: value === "count" ? "count() as __v" : "sum_len(_msg) as __v, count() as __c",
    timeGrouping: buckets.timeGrouping,
    buckets: buckets.grid,
    fields,
    levels,
    range: { ...agg, range: { ...agg.range, selector: { ...agg.range.selector, pipeline: plan.local } } },
    groupings,
    readBack: {
      rows: `${plan.logsql}${buckets.inWindows}${pipes}`,
      // The level inputs' fields, computed only to be grouped by.
      cleanup: levels ? [`delete ${Object.values(INPUT).join(", ")}`] : [],
      expr: part.kind === "VectorAggregation" ? countedPart(part, agg, plan.local) : countedRange(agg, plan.local),
    },
    value,
    perSeconds: lines.perSecond ? Number(buckets.range) / 1e9 : 0,
  };
}

/**
 * The labels a stage the Worker runs reads, or undefined for a stage that reads the line (or
 * anything besides labels): a group's rows would not all go the same way through it.
 */
function labelsRead(stage: PipelineStage): string[] | undefined {
  switch (stage.kind) {
    case "LabelFilter":
      return filterNames(stage.filter);
    case "Drop":
    case "Keep":
      return stage.items.map((item) => item.name);
    default:
      return undefined;
  }
}

function filterNames(filter: LabelFilterExpr): string[] {
  const names: string[] = [];
  walk(filter, {
    LabelFilterExpr: (node) => {
      if (node.type !== "binary" && node.type !== "paren") names.push(node.name);
    },
  });
  return names;
}

/** The stats result counting rows that set a label-only field outside the streams labelled with it. */
export const LABEL_ONLY_BREACHES = "__x";

/**
 * The stats query for the given metadata fields (see the module comment); with `labelOnly`, the
 * stream label names not grouped by, it also counts LABEL_ONLY_BREACHES.
 */
export function seriesStatsQuery(
  plan: SeriesBucketPlan,
  fields: readonly string[],
  labelOnly: readonly string[] = [],
): BucketGrid {
  // Every field is grouped by when `fields` is "all": then the level rules' label inputs are among
  // them, or in `_stream`, or set on no row.
  const levelFields = !plan.levels ? [] : plan.fields === "all" ? Object.values(INPUT) : LEVEL_GROUP_FIELDS;
  // `_stream_id` is a fraction of `_stream`'s length in every answer row; the Worker asks for each
  // stream's labels once (exec/series-pushdown.ts).
  const groupBy = [...new Set(["_stream_id", ...fields, ...levelFields])];
  const by = [plan.timeGrouping, ...groupBy.map(fieldName)].join(", ");
  return {
    ...plan.buckets,
    logsql: `${plan.rows}${plan.pipes} | stats by (${by}) ${plan.stats}${labelOnlyBreaches(labelOnly)}`,
    groupBy,
  };
}

/**
 * The count of rows setting one of `names` in a stream that lacks it as a label. The stream filter
 * comes first: it is decided once per block, so blocks of streams carrying the label skip the field.
 */
function labelOnlyBreaches(names: readonly string[]): string {
  if (names.length === 0) return "";
  const breaches = names.map((name) => `(-_stream:{${quote(name)}=~".+"} ${fieldName(name)}:*)`);
  return `, count() if (${breaches.join(" or ")}) as ${LABEL_ONLY_BREACHES}`;
}

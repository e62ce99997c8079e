/**
 * Runs a series push-down (src/plan/series-pushdown.ts): VictoriaLogs counts rows per (bucket,
 * stream, metadata, level inputs); each group's labels are made once, from a row that holds only
 * what the group's rows share, through the pipeline the Worker would run on each of them; groups with
 * the same labels add up. A group whose inputs do not settle its level, or whose labels carry a
 * pipeline error, has its rows read back and evaluated by the Worker, which decides them as Loki
 * does (exec/guarded-rows.ts). "declined" when more groups than MAX_READ_BACK_GROUPS need that,
 * there are more groups or fields than an answer may hold, or rows written between the requests
 * carry a field the buckets were not grouped by: the query is then evaluated from rows. Rows
 * written meanwhile that carry no new field are simply counted: an alert's window ends now.
 */
import type { Labels, LogRow } from "../engine/types";
import type { CachedOrigin } from "../cache/cached-origin";
import type { BucketGrid, MetricGrid } from "../plan/metric-pushdown";
import {
  LABEL_ONLY_BREACHES,
  MAX_SERIES_FIELDS,
  seriesStatsQuery,
  type SeriesBucketPlan,
} from "../plan/series-pushdown";
import { LEVEL_LABEL_INPUTS } from "../plan/level-pushdown";
import { parseStreamLabels } from "../origin/rows";
import { DETECTED_LEVEL, FieldDeriver, UNKNOWN_LEVEL, detectLevelWith } from "../engine/derived-fields";
import { compileSampleExtractor } from "../engine/pipeline";
import { PointLimitError, SERIES_LABEL_TEXT_BUDGET, SeriesLabelsLimitError } from "../engine/metric/errors";
import { groupLabels, isErrorSeries, labelsKey } from "../engine/metric/labels";
import type { ScanStats } from "./logs";
import { lineLevel } from "./level-pushdown";
import { bucketRows, type BucketRows, type GroupBuckets } from "./metric-pushdown";
import { OriginError } from "../core/errors";
import { groupFilter, MAX_READ_BACK_GROUPS, type ReadBackCounts } from "./guarded-rows";

export async function runSeriesPlan(
  client: CachedOrigin,
  plan: SeriesBucketPlan,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints?: number,
): Promise<ReadBackCounts | "declined"> {
  const all = plan.fields === "all";
  // The selected streams (and, with every field grouped by, the field names) over all their rows:
  // answered from the origin's index and block headers, they cost no scan of the lines.
  const [streams, names] = await Promise.all([
    selectedStreams(client, plan, stats),
    all ? fieldNames(client, plan, stats) : undefined,
  ]);
  const asLabel = names && labelRows(streams);
  const fields = names && asLabel ? metadataFields(names, asLabel) : (plan.fields as readonly string[]);
  if (fields.length > MAX_SERIES_FIELDS) return "declined";
  // The stream label names not grouped by: the buckets count the rows that set one of them outside
  // the streams labelled with it.
  const labelOnly = asLabel ? [...asLabel.keys()].filter((name) => !fields.includes(name)).sort() : [];
  if (labelOnly.length > MAX_SERIES_FIELDS) return "declined";
  const query = seriesStatsQuery(plan, fields, labelOnly);
  const values = labelOnly.length > 0 ? [...ROWS[plan.value], LABEL_ONLY_BREACHES] : ROWS[plan.value];
  // With every field grouped by, the field names are asked again over rows that include every row
  // counted: a name neither grouped by nor a stream label checked above would be a label missing
  // from its rows' series. The origin runs that request itself, after the buckets of each of its
  // requests are counted (a `union` pipe): no round trip of its own after them. Chunks read from
  // the store need none: their rows were there when the names were first asked.
  const after = all ? `${plan.streams} | field_names as ${NAME}` : undefined;
  let rows;
  try {
    rows = await bucketsWithNames(client, plan, query, grid, stats, maxPoints, values, after);
  } catch (err) {
    // More groups than the answer may hold points: local evaluation holds only its own series.
    if (err instanceof PointLimitError) return "declined";
    throw err;
  }
  const { table, ranks, rankEnds } = rows;
  if (labelOnly.length > 0) {
    const breaches = values.length - 1;
    for (let i = 0; i < table.length; i++) if (table.value(i, breaches) > 0) return "declined";
  }
  // Rows written since the first requests are counted too (an alert's window ends now): a field
  // name the buckets were not grouped by declines, and a stream first seen in the buckets is asked for.
  const known = new Set([...fields, ...labelOnly]);
  if (rows.namesAfter.some((name) => name !== "" && !name.startsWith("_") && !known.has(name))) return "declined";
  const unseen = table.groups.some((group) => !streams.has(group._stream_id ?? ""));
  if (unseen)
    for (const [id, stream] of await selectedStreams(client, plan, stats))
      if (!streams.has(id)) streams.set(id, stream);
  const labelsOf = groupLabeller(plan, client);
  const inWindow = inWindowOf(rows, plan);
  // Each group: its series, null (the stages drop its rows), or "read back" (its labels are not
  // settled by what it is grouped by: its rows are read back and counted by the Worker).
  const byGroup: (GroupBuckets | null | "read back" | undefined)[] = [];
  const groups = new Map<string, GroupBuckets>();
  const readBack: string[] = [];
  let readRows = 0;
  let labelText = 0;
  for (let i = 0; i < table.length; i++) {
    // Whole chunks may hold buckets outside the window (exec/metric-pushdown.ts bucketRows): no
    // evaluation window holds them, and their streams were not asked for.
    if (!inWindow(i)) continue;
    const gi = table.groupIndex(i);
    let g = byGroup[gi];
    if (g === undefined) {
      let group = table.groups[gi]!;
      // A stream no answer held: rows written since the streams were last asked.
      const stream = streams.get(group._stream_id ?? "");
      if (!stream) return "declined";
      group = { ...group, _stream: stream.text };
      const labels = labelsOf(group, fields);
      if (labels === "declined") {
        if (readBack.length === MAX_READ_BACK_GROUPS) return "declined";
        readBack.push(groupFilter(table.groups[gi]!, query.groupBy));
        g = "read back";
      } else if (labels === null) g = null;
      else {
        const key = labelsKey(labels);
        g = groups.get(key);
        if (!g) {
          // As the rows' own series are held to it (engine/metric/range/evaluate.ts).
          labelText += key.length;
          if (labelText > SERIES_LABEL_TEXT_BUDGET) throw new SeriesLabelsLimitError();
          groups.set(key, (g = { labels, ranks: [], values: [] }));
        }
      }
      byGroup[gi] = g;
    }
    if (g === null) continue;
    if (g === "read back") {
      readRows += table.value(i, ROWS[plan.value].length - 1);
      continue;
    }
    g.ranks.push(ranks[table.timeIndex(i)]!);
    g.values.push(table.value(i, 0));
  }
  return { groups: [...groups.values()], rankEnds, guardedRows: readRows, filter: readBack.join(" or ") };
}

/** The field of the names the buckets' requests append (`field_names as …`): no stats row has it. */
const NAME = "__name";

/**
 * The buckets, and the field names appended to their requests (`after`). An origin that cannot run
 * them together (no `union` pipe: VictoriaLogs before it had one) refuses the planned query: the
 * names are then asked in a request of their own, after the buckets.
 */
async function bucketsWithNames(
  client: CachedOrigin,
  plan: SeriesBucketPlan,
  query: BucketGrid,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints: number | undefined,
  values: readonly string[],
  after: string | undefined,
): Promise<BucketRows & { namesAfter: string[] }> {
  if (after !== undefined) {
    try {
      const rows = await bucketRows(client, query, grid, stats, maxPoints, values, undefined, after);
      return { ...rows, namesAfter: rows.after.map((row) => row[NAME] ?? "") };
    } catch (err) {
      if (!(err instanceof OriginError && err.status === 400)) throw err;
    }
  }
  const rows = await bucketRows(client, query, grid, stats, maxPoints, values);
  const names = after === undefined ? [] : await fieldNames(client, plan, stats);
  return { ...rows, namesAfter: names.map((row) => row.name ?? "") };
}

/** The stats results read: the value, and the rows counted (the value itself for a count). */
const ROWS: Record<SeriesBucketPlan["value"], readonly string[]> = { count: ["__v"], bytes: ["__v", "__c"] };

/** A selected stream: its labels as `_stream` spells them, and how many rows it has in the window. */
interface SelectedStream {
  text: string;
  rows: number;
}

/**
 * The metadata fields of the selected streams' rows: the fields the origin names for them but its
 * own (a leading `_`, which rows never carry as labels: origin/rows.ts) and but those that are
 * stream labels wherever they are set: a field's hits are the rows where it is set, and when the
 * streams that carry it as a label hold that many rows it is never metadata (a stream label is a
 * field of every row of its stream); grouping by the stream already tells its values apart.
 */
function metadataFields(names: readonly Record<string, string>[], asLabel: ReadonlyMap<string, number>): string[] {
  return names
    .filter((row) => {
      const name = row.name ?? "";
      return name !== "" && !name.startsWith("_") && Number(row.hits ?? "0") > (asLabel.get(name) ?? 0);
    })
    .map((row) => row.name!)
    .sort();
}

/** Each label name of the selected streams, with the rows of the streams that carry it. */
function labelRows(streams: ReadonlyMap<string, SelectedStream>): Map<string, number> {
  const asLabel = new Map<string, number>();
  for (const stream of streams.values()) {
    for (const name of Object.keys(parseStreamLabels(stream.text))) {
      asLabel.set(name, (asLabel.get(name) ?? 0) + stream.rows);
    }
  }
  return asLabel;
}

/** The field names of the selected streams' rows in the plan's window, with their hits. */
function fieldNames(client: CachedOrigin, plan: SeriesBucketPlan, stats: ScanStats) {
  stats.subqueries++;
  return client.statsRows(`${plan.streams} | field_names`, plan.buckets.window);
}

/** The selected streams with rows in the plan's window, by `_stream_id` (the stats query groups by the short id). */
async function selectedStreams(
  client: CachedOrigin,
  plan: SeriesBucketPlan,
  stats: ScanStats,
): Promise<Map<string, SelectedStream>> {
  stats.subqueries++;
  const rows = await client.statsRows(
    `${plan.streams} | stats by (_stream_id, _stream) count() as __n`,
    plan.buckets.window,
  );
  const streams = new Map<string, SelectedStream>();
  for (const row of rows)
    streams.set(row._stream_id ?? "", { text: row._stream ?? "{}", rows: Number(row.__n ?? "0") });
  return streams;
}

/** Whether an answer row's bucket lies in the plan's window. */
function inWindowOf({ table, ends }: BucketRows, plan: SeriesBucketPlan): (row: number) => boolean {
  const { window, width } = plan.buckets;
  const inside = ends.map((end) => end - width + 1n >= window.start && end - width + 1n < window.end);
  return (row) => inside[table.timeIndex(row)]!;
}

/**
 * A function from a group's row (its `_stream` and fields) to its series' labels: null when the
 * Worker's stages drop its rows, "declined" when they would fail or the level is not settled.
 */
function groupLabeller(
  plan: SeriesBucketPlan,
  client: CachedOrigin,
): (group: Record<string, string>, fields: readonly string[]) => Labels | null | "declined" {
  const extractor = compileSampleExtractor(plan.range.range, plan.range.op);
  const rules = client.derivedFields;
  const deriver = rules ? new FieldDeriver(rules) : undefined;
  // One parsed label set per stream, shared as the rows of a stream share theirs.
  const streams = new Map<string, Labels>();
  return (group, fields) => {
    const streamText = group._stream ?? "{}";
    let stream = streams.get(streamText);
    if (!stream) streams.set(streamText, (stream = parseStreamLabels(streamText)));
    const metadata: Labels = {};
    for (const name of fields) {
      const v = group[name];
      if (v && !Object.hasOwn(stream, name)) metadata[name] = v;
    }
    if (plan.levels) {
      // The level inputs other than the line are metadata fields grouped by as well.
      for (const name of LEVEL_LABEL_INPUTS) {
        const v = group[name];
        if (v && !Object.hasOwn(stream, name)) metadata[name] = v;
      }
      let settled = true;
      const level = detectLevelWith(stream, metadata, () => {
        const fromLine = lineLevel(group);
        if (fromLine === undefined) settled = false;
        return fromLine ?? UNKNOWN_LEVEL;
      });
      if (!settled) return "declined";
      metadata[DETECTED_LEVEL] = level;
    }
    const row: LogRow = { ts: 0n, line: "", stream, metadata };
    // The level is set above (the row has no line to read it from): only `service_name` is derived.
    if (deriver?.active) deriver.derive(row, false);
    const sample = extractor.process(row);
    if (!sample) return null;
    if (isErrorSeries(sample.labels)) return "declined";
    let labels = sample.labels;
    for (const grouping of plan.groupings) labels = groupLabels(labels, grouping);
    return labels;
  };
}

/**
 * Runs a series push-down (src/plan/series-pushdown.ts): VictoriaLogs counts rows per (bucket,
 * stream, metadata, level inputs); each group's labels are made once, from a row that holds only
 * what the group's rows share, through the pipeline the Worker would run on each of them; groups with
 * the same labels add up. "declined" when a group's inputs do not settle its level, its labels carry
 * a pipeline error, or there are more groups or fields than an answer may hold: the query is then
 * evaluated from rows, which decides it as Loki does.
 */
import type { Labels, LogRow, Series } from "../engine/types";
import type { CachedOrigin } from "../cache/cached-origin";
import type { MetricGrid } from "../plan/metric-pushdown";
import { MAX_SERIES_FIELDS, seriesStatsQuery, type SeriesBucketPlan } from "../plan/series-pushdown";
import { LEVEL_LABEL_INPUTS } from "../plan/level-pushdown";
import { parseStreamLabels } from "../origin/rows";
import { DETECTED_LEVEL, FieldDeriver, detectLevelWith } from "../engine/derived-fields";
import { compileSampleExtractor } from "../engine/pipeline";
import { PointLimitError } from "../engine/metric/errors";
import { groupLabels, isErrorSeries, labelsKey } from "../engine/metric/labels";
import type { ScanStats } from "./logs";
import { lineLevel } from "./level-pushdown";
import { bucketRows, windowTotals, type GroupBuckets } from "./metric-pushdown";

export async function runSeriesPlan(
  client: CachedOrigin,
  plan: SeriesBucketPlan,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints?: number,
): Promise<Series[] | "declined"> {
  const fields = plan.fields === "all" ? await metadataFields(client, plan, stats) : plan.fields;
  if (fields.length > MAX_SERIES_FIELDS) return "declined";
  const query = seriesStatsQuery(plan, fields);
  let rows;
  try {
    rows = await bucketRows(client, query, grid, stats, maxPoints);
  } catch (err) {
    // More groups than the answer may hold points: local evaluation holds only its own series.
    if (err instanceof PointLimitError) return "declined";
    throw err;
  }
  const labelsOf = groupLabeller(plan, client);
  const { table, ranks, rankEnds } = rows;
  const byGroup: (GroupBuckets | null | undefined)[] = [];
  const groups = new Map<string, GroupBuckets>();
  for (let i = 0; i < table.length; i++) {
    const gi = table.groupIndex(i);
    let g = byGroup[gi];
    if (g === undefined) {
      const labels = labelsOf(table.groups[gi]!, fields);
      if (labels === "declined") return "declined";
      if (labels === null) g = null;
      else {
        const key = labelsKey(labels);
        g = groups.get(key);
        if (!g) groups.set(key, (g = { labels, ranks: [], values: [] }));
      }
      byGroup[gi] = g;
    }
    if (g === null) continue;
    g.ranks.push(ranks[table.timeIndex(i)]!);
    g.values.push(table.value(i, 0));
  }
  return windowTotals(groups.values(), grid, { ...plan.buckets, perSeconds: plan.perSeconds }, rankEnds);
}

/**
 * The metadata fields of the rows counted: every field the origin names for them but its own
 * (a leading `_`, which rows never carry as labels: origin/rows.ts) and but those that are stream
 * labels wherever they are set. A field's hits are the rows where it is set; when the streams that
 * carry it as a label hold that many rows, it is never metadata (a stream label is a field of every
 * row of its stream), and grouping by `_stream` already tells its values apart.
 */
async function metadataFields(client: CachedOrigin, plan: SeriesBucketPlan, stats: ScanStats): Promise<string[]> {
  stats.subqueries += 2;
  const [names, streams] = await Promise.all([
    client.statsRows(`${plan.rows} | field_names`, plan.buckets.window),
    client.statsRows(`${plan.rows} | stats by (_stream) count() as __n`, plan.buckets.window),
  ]);
  const asLabel = new Map<string, number>();
  for (const row of streams) {
    const rows = Number(row.__n ?? "0");
    for (const name of Object.keys(parseStreamLabels(row._stream ?? "{}"))) {
      asLabel.set(name, (asLabel.get(name) ?? 0) + rows);
    }
  }
  return names
    .filter((row) => {
      const name = row.name ?? "";
      return name !== "" && !name.startsWith("_") && Number(row.hits ?? "0") > (asLabel.get(name) ?? 0);
    })
    .map((row) => row.name!)
    .sort();
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
        return fromLine ?? "unknown";
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

/**
 * /index/volume and /index/volume_range: bytes of log lines per group, computed by VictoriaLogs'
 * stats pipes over the selected streams and grouped by Loki's rules.
 *
 * Loki's rules (querier volume middleware and index):
 * - `aggregateBy=series` (default) groups by the target labels, or else by the selector's label
 *   names; with target labels, only streams carrying every target label count.
 * - `aggregateBy=labels` counts each stream's bytes once for each of its label names (or for each
 *   target label), answering one `{name=""}` series per label name.
 * - volume_range splits the range on an epoch-aligned grid of `step` (the first bucket starts at
 *   `start`), keeps the top `limit` groups of each bucket, and stamps each sample at its bucket's
 *   end: the grid line minus 1 ms, or `end` for the last bucket.
 * - Series are ordered by their first sample, largest first, then by name; when no series has
 *   more than one sample the answer is a vector.
 */
import type { Matcher } from "../logql/ast";
import type { Labels, MetricResult, Series } from "../engine/types";
import type { TimeWindow } from "../core/time-window";
import type { CachedOrigin } from "../cache/cached-origin";
import { parseStreamLabels, type VLRow } from "../origin/rows";
import type { StatsTable } from "../origin/stats-table";
import { parseVLTime } from "../origin/timefmt";
import { POINTS_PER_STATS_ROW, chunkLength } from "../cache/extents";
import { toInt } from "./index-stats";
import { fieldName, isSpecialField } from "../plan/logsql";
import { streamFilter } from "../plan/selector";
import { SERVICE_NAME, withServiceName } from "../engine/derived-fields";

export type VolumeAggregation = "series" | "labels";

export interface VolumeOptions {
  matchers: Matcher[];
  window: TimeWindow;
  /** Labels to group by; empty means the selector's label names. */
  targetLabels: string[];
  limit: number;
  aggregateBy: VolumeAggregation;
  /**
   * The `MAX_METRIC_POINTS` budget: two thirds as many (bucket, group or stream) rows are read at
   * most (see POINTS_PER_STATS_ROW); more answers PointLimitError instead of holding every row of a
   * high-cardinality grouping at a small step.
   */
  maxPoints?: number;
}

/** Loki's volume samples are stamped in milliseconds: a bucket ends 1 ms before the next grid line. */
const SPLIT_GAP_NS = 1_000_000n;

/**
 * Bytes per group over the whole window, largest first, cut to `limit` groups. Several clients (a
 * multi-tenant query) add up into the same groups, as Loki merges its tenants' volumes.
 */
export async function volume(clients: CachedOrigin | readonly CachedOrigin[], o: VolumeOptions): Promise<MetricResult> {
  const width = chunkLength(1n, o.window.end - o.window.start);
  const totals = new Map<string, Group>();
  for (const client of listOf(clients)) {
    const serviceNameLabels = client.derivedFields?.serviceNameLabels ?? [];
    const rows = await volumeRows(client, o, width);
    const add = groupAdder(rows, o, serviceNameLabels);
    for (let i = 0; i < rows.length; i++) add(totals, i);
  }
  const samples = topGroups(totals, o.limit).map((g) => ({ labels: g.labels, v: g.bytes }));
  return { type: "vector", t: o.window.end, samples };
}

/** Bytes per group per `step` bucket, the top `limit` groups of each bucket. */
export async function volumeRange(
  clients: CachedOrigin | readonly CachedOrigin[],
  o: VolumeOptions & { step: bigint },
): Promise<MetricResult> {
  const buckets = new Map<bigint, Map<string, Group>>();
  for (const client of listOf(clients)) {
    const serviceNameLabels = client.derivedFields?.serviceNameLabels ?? [];
    const rows = await volumeRows(client, o, o.step);
    const add = groupAdder(rows, o, serviceNameLabels);
    const gridStarts = rows.times.map((time) => {
      const t = parseVLTime(time);
      return t - (((t % o.step) + o.step) % o.step);
    });
    for (let i = 0; i < rows.length; i++) {
      const gridStart = gridStarts[rows.timeIndex(i)]!;
      let groups = buckets.get(gridStart);
      if (!groups) buckets.set(gridStart, (groups = new Map()));
      add(groups, i);
    }
  }
  const series = new Map<string, Series & { name: string }>();
  for (const gridStart of [...buckets.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const stamp = bucketStamp(gridStart, o.step, o.window.end);
    for (const g of topGroups(buckets.get(gridStart)!, o.limit)) {
      let s = series.get(g.name);
      if (!s) series.set(g.name, (s = { name: g.name, labels: g.labels, points: [] }));
      s.points.push({ t: stamp, v: g.bytes });
    }
  }
  const ordered = [...series.values()].sort((a, b) => b.points[0]!.v - a.points[0]!.v || compareNames(a.name, b.name));
  if (ordered.every((s) => s.points.length <= 1)) {
    const samples = ordered.map((s) => ({ labels: s.labels, v: s.points[0]!.v, t: s.points[0]!.t }));
    return { type: "vector", t: o.window.end, samples };
  }
  return { type: "matrix", series: ordered.map(({ labels, points }) => ({ labels, points })) };
}

function listOf(clients: CachedOrigin | readonly CachedOrigin[]): readonly CachedOrigin[] {
  return Array.isArray(clients) ? clients : [clients as CachedOrigin];
}

/** A bucket's sample time: its end on the grid less the split gap, or the request's end. */
export function bucketStamp(gridStart: bigint, step: bigint, end: bigint): bigint {
  const gridEnd = gridStart + step;
  return gridEnd < end ? gridEnd - SPLIT_GAP_NS : end;
}

interface Group {
  /** Loki's name of the group: `{a="x", b="y"}` by series, the label name by labels. */
  name: string;
  labels: Labels;
  bytes: number;
}

/**
 * Bytes per (epoch-aligned bucket of `width`, group fields or stream) over exactly the window. Rows
 * come per stream when labels are counted by name, or when a grouped label is one the Worker
 * derives (`service_name`): the origin holds no such field to group by.
 */
function volumeRows(client: CachedOrigin, o: VolumeOptions, width: bigint): Promise<StatsTable> {
  const serviceNameLabels = client.derivedFields?.serviceNameLabels ?? [];
  const by = [`_time:${width}ns`, ...(perStream(o, serviceNameLabels) ? ["_stream"] : seriesFields(o).map(fieldName))];
  return client.timeBuckets.rows({
    logsql: `${streamFilter(o.matchers, serviceNameLabels)} | stats by (${by.join(", ")}) sum_len(_msg) as __bytes`,
    window: o.window,
    width,
    shift: 0n,
    clip: true,
    section: "volumeResult",
    values: ["__bytes"],
    budget: o.maxPoints === undefined ? undefined : { points: o.maxPoints, perRow: POINTS_PER_STATS_ROW },
  });
}

function perStream(o: VolumeOptions, serviceNameLabels: readonly string[]): boolean {
  return o.aggregateBy === "labels" || (serviceNameLabels.length > 0 && seriesFields(o).includes(SERVICE_NAME));
}

/**
 * Adds row `i`'s bytes to the groups it belongs to under `o`'s aggregation; what a row's group (its
 * stream or grouped fields) adds to is worked out once per group.
 */
function groupAdder(
  rows: StatsTable,
  o: VolumeOptions,
  serviceNameLabels: readonly string[],
): (groups: Map<string, Group>, i: number) => void {
  const targets: (readonly { name: string; labels: Labels }[])[] = [];
  return (groups, i) => {
    const g = rows.groupIndex(i);
    const bytes = toInt(rows.value(i, 0));
    for (const t of (targets[g] ??= groupTargets(rows.groups[g]!, o, serviceNameLabels)))
      add(groups, t.name, t.labels, bytes);
  };
}

/** The groups a row of `group` adds its bytes to under `o`'s aggregation. */
function groupTargets(
  group: VLRow,
  o: VolumeOptions,
  serviceNameLabels: readonly string[],
): { name: string; labels: Labels }[] {
  const stream = perStream(o, serviceNameLabels)
    ? withServiceName(parseStreamLabels(group._stream ?? "{}"), serviceNameLabels)
    : undefined;
  if (o.aggregateBy === "labels") {
    if (!o.targetLabels.every((name) => stream![name])) return [];
    const names = o.targetLabels.length > 0 ? o.targetLabels : Object.keys(stream!);
    return names.map((name) => ({ name, labels: { [name]: "" } }));
  }
  // A reserved name (`_msg`, …) is no stream's label: no stream carries it as a target.
  if (o.targetLabels.some(isSpecialField)) return [];
  const labels: Labels = {};
  for (const name of seriesFields(o)) {
    const value = stream ? stream[name] : group[name];
    if (value) labels[name] = value;
    // Loki adds a `name=~".+"` matcher for every target label the selector does not name.
    else if (o.targetLabels.length > 0) return [];
  }
  return [{ name: seriesName(labels), labels }];
}

function add(groups: Map<string, Group>, name: string, labels: Labels, bytes: number): void {
  const g = groups.get(name);
  if (g) g.bytes += bytes;
  else groups.set(name, { name, labels, bytes });
}

/**
 * The labels grouped by when aggregating by series. A name VictoriaLogs reserves (`_msg`, …) is no
 * stream's label, so it groups nothing, as in Loki, instead of grouping by the line or the stream.
 */
function seriesFields(o: VolumeOptions): string[] {
  const names = o.targetLabels.length > 0 ? o.targetLabels : [...new Set(o.matchers.map((m) => m.name))];
  return names.filter((name) => !isSpecialField(name));
}

/** Largest first; ties by name, so the answer never depends on the order rows arrived in. */
function topGroups(groups: Map<string, Group>, limit: number): Group[] {
  return [...groups.values()].sort((a, b) => b.bytes - a.bytes || compareNames(a.name, b.name)).slice(0, limit);
}

/** Prometheus' text form of a label set, the name Loki sorts volume series by. */
function seriesName(labels: Labels): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`);
  return `{${pairs.join(", ")}}`;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

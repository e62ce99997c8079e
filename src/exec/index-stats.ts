/**
 * /index/stats and /index/volume(_range), computed by VictoriaLogs' stats pipes over the selected
 * streams: exact counts where Loki itself only estimates from chunk metadata.
 */
import type { Matcher } from "../logql/ast";
import type { Labels, Series } from "../engine/types";
import type { OriginClient, TimeWindow } from "../origin/client";
import type { VLRow } from "../origin/rows";
import { parseVLTime } from "../origin/timefmt";
import { chunkLength, extentRows } from "../cache/extents";
import { fieldName, isSpecialField } from "../plan/logsql";
import { streamFilter } from "../plan/selector";

export interface IndexStats {
  streams: number;
  chunks: number;
  bytes: number;
  entries: number;
}

export async function indexStats(client: OriginClient, matchers: Matcher[], window: TimeWindow): Promise<IndexStats> {
  // Per chunk and stream, so chunks can be cached: streams are then counted once across chunks.
  const width = wholeChunkBuckets(window);
  const rows = await extentRows(client, {
    logsql: `${streamFilter(matchers)} | len(_msg) as __n | stats by (${timeBuckets(width)}, _stream_id) count() as entries, sum(__n) as bytes`,
    window,
    width,
    shift: 0n,
    clip: true,
    section: "statsResult",
  });
  const streams = new Set<string>();
  let entries = 0;
  let bytes = 0;
  for (const row of rows) {
    streams.add(row._stream_id ?? "");
    entries += toInt(row.entries);
    bytes += toInt(row.bytes);
  }
  // Loki cuts a chunk per stream per ~2h or ~1.5 MB; VictoriaLogs has no chunks, so report one
  // per stream, the figure Grafana uses only for display.
  return { streams: streams.size, chunks: streams.size, bytes, entries };
}

export interface VolumeOptions {
  matchers: Matcher[];
  window: TimeWindow;
  /** Labels to group by; defaults to the selector's label names. */
  targetLabels?: string[];
  limit: number;
  /** Bucket width for volume_range, ns. */
  step?: bigint;
}

/** Bytes per group, largest first, cut to `limit` groups. */
export async function volume(client: OriginClient, o: VolumeOptions): Promise<{ labels: Labels; bytes: number }[]> {
  const groups = groupLabels(o);
  const width = wholeChunkBuckets(o.window);
  const totals = groupTotals(await volumeRows(client, o, groups, width), groups);
  return topGroups(totals, o.limit);
}

/** Bytes per group per step bucket (volume_range), for the top `limit` groups. */
export async function volumeRange(client: OriginClient, o: VolumeOptions & { step: bigint }): Promise<Series[]> {
  const groups = groupLabels(o);
  // One query serves both the ranking (totals over the window) and the buckets.
  const rows = await volumeRows(client, o, groups, o.step);
  const keep = new Set(topGroups(groupTotals(rows, groups), o.limit).map((t) => labelsKeyOf(t.labels)));
  const series = new Map<string, Series>();
  for (const row of rows) {
    const labels = groupOf(row, groups);
    if (!labels) continue;
    const key = labelsKeyOf(labels);
    if (!keep.has(key)) continue;
    let s = series.get(key);
    if (!s) series.set(key, (s = { labels, points: [] }));
    s.points.push({ t: parseVLTime(row._time ?? ""), v: toInt(row.__bytes) });
  }
  for (const s of series.values()) s.points.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
  return [...series.values()].sort((a, b) => compareKeys(labelsKeyOf(a.labels), labelsKeyOf(b.labels)));
}

/** Bytes per (epoch-aligned bucket of `width`, group) over exactly the window. */
function volumeRows(client: OriginClient, o: VolumeOptions, groups: string[], width: bigint) {
  const by = [timeBuckets(width), ...groups.map(fieldName)].join(", ");
  return extentRows(client, {
    logsql: `${streamFilter(o.matchers)} | len(_msg) as __n | stats by (${by}) sum(__n) as __bytes`,
    window: o.window,
    width,
    shift: 0n,
    clip: true,
    section: "volumeResult",
  });
}

function groupTotals(
  rows: readonly VLRow[],
  groups: readonly string[],
): Map<string, { labels: Labels; bytes: number }> {
  const totals = new Map<string, { labels: Labels; bytes: number }>();
  for (const row of rows) {
    const labels = groupOf(row, groups);
    if (!labels) continue;
    const key = labelsKeyOf(labels);
    const t = totals.get(key);
    if (t) t.bytes += toInt(row.__bytes);
    else totals.set(key, { labels, bytes: toInt(row.__bytes) });
  }
  return totals;
}

/** Largest first; ties by labels, so the answer never depends on the order rows arrived in. */
function topGroups(totals: Map<string, { labels: Labels; bytes: number }>, limit: number) {
  return [...totals.entries()]
    .sort(([ka, a], [kb, b]) => b.bytes - a.bytes || compareKeys(ka, kb))
    .slice(0, limit)
    .map(([, t]) => t);
}

/** The row's group labels (empty ones dropped), or undefined when it has none. */
function groupOf(row: VLRow, groups: readonly string[]): Labels | undefined {
  const labels: Labels = {};
  let any = false;
  for (const g of groups) {
    if (row[g]) {
      labels[g] = row[g]!;
      any = true;
    }
  }
  return any ? labels : undefined;
}

/**
 * Buckets as wide as a cache chunk for queries that need no time resolution of their own (stats,
 * volume): one row per chunk and group.
 */
function wholeChunkBuckets(window: TimeWindow): bigint {
  return chunkLength(1n, window.end - window.start);
}

function timeBuckets(width: bigint): string {
  return `_time:${width}ns`;
}

function labelsKeyOf(labels: Labels): string {
  return JSON.stringify(labels);
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The labels to group by. A name VictoriaLogs reserves (`_msg`, …) is no stream's label, so it
 * groups nothing, as in Loki, instead of grouping by the line or the stream.
 */
function groupLabels(o: VolumeOptions): string[] {
  const names =
    o.targetLabels && o.targetLabels.length > 0 ? o.targetLabels : [...new Set(o.matchers.map((m) => m.name))];
  return names.filter((name) => !isSpecialField(name));
}

function toInt(v: string | undefined): number {
  const n = Number(v ?? 0);
  return Number.isFinite(n) ? Math.round(n) : 0;
}

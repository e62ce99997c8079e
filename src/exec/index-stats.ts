/**
 * /index/stats and /index/volume(_range), computed by VictoriaLogs' stats pipes over the selected
 * streams: exact counts where Loki itself only estimates from chunk metadata.
 */
import type { Matcher } from "../logql/ast";
import type { Labels, Series } from "../engine/types";
import type { OriginClient, TimeWindow } from "../origin/client";
import { fieldName } from "../plan/logsql";
import { streamFilter } from "../plan/selector";

export interface IndexStats {
  streams: number;
  chunks: number;
  bytes: number;
  entries: number;
}

export async function indexStats(client: OriginClient, matchers: Matcher[], window: TimeWindow): Promise<IndexStats> {
  const q = `${streamFilter(matchers)} | len(_msg) as __n | stats count() as entries, sum(__n) as bytes, count_uniq(_stream_id) as streams`;
  for await (const row of client.query(q, window)) {
    const streams = toInt(row.streams);
    // Loki cuts a chunk per stream per ~2h or ~1.5 MB; VictoriaLogs has no chunks, so report one
    // per stream, the figure Grafana uses only for display.
    return { streams, chunks: streams, bytes: toInt(row.bytes), entries: toInt(row.entries) };
  }
  return { streams: 0, chunks: 0, bytes: 0, entries: 0 };
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
  const by = groups.map(fieldName).join(", ");
  const q = `${streamFilter(o.matchers)} | len(_msg) as __n | stats by (${by}) sum(__n) as __bytes`;
  const out: { labels: Labels; bytes: number }[] = [];
  for await (const row of client.query(q, o.window)) {
    const labels: Labels = {};
    for (const g of groups) if (row[g]) labels[g] = row[g]!;
    if (Object.keys(labels).length === 0) continue;
    out.push({ labels, bytes: toInt(row.__bytes) });
  }
  out.sort((a, b) => b.bytes - a.bytes);
  return out.slice(0, o.limit);
}

/** Bytes per group per step bucket (volume_range), for the top `limit` groups. */
export async function volumeRange(client: OriginClient, o: VolumeOptions & { step: bigint }): Promise<Series[]> {
  const top = await volume(client, o);
  const keep = new Set(top.map((t) => JSON.stringify(t.labels)));
  const groups = groupLabels(o);
  const stepSeconds = Number(o.step / 1_000_000_000n);
  const by = [`_time:${stepSeconds}s`, ...groups.map(fieldName)].join(", ");
  const q = `${streamFilter(o.matchers)} | len(_msg) as __n | stats by (${by}) sum(__n) as __bytes`;
  const series = new Map<string, Series>();
  for await (const row of client.query(q, o.window)) {
    const labels: Labels = {};
    for (const g of groups) if (row[g]) labels[g] = row[g]!;
    const key = JSON.stringify(labels);
    if (!keep.has(key)) continue;
    let s = series.get(key);
    if (!s) series.set(key, (s = { labels, points: [] }));
    s.points.push({ t: BigInt(Date.parse(row._time ?? "")) * 1_000_000n, v: toInt(row.__bytes) });
  }
  for (const s of series.values()) s.points.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
  return [...series.values()];
}

function groupLabels(o: VolumeOptions): string[] {
  if (o.targetLabels && o.targetLabels.length > 0) return o.targetLabels;
  return [...new Set(o.matchers.map((m) => m.name))];
}

function toInt(v: string | undefined): number {
  const n = Number(v ?? 0);
  return Number.isFinite(n) ? Math.round(n) : 0;
}

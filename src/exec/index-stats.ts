/**
 * /index/stats, computed by VictoriaLogs' stats pipes over the selected streams: exact counts where
 * Loki itself only estimates from chunk metadata.
 */
import type { Matcher } from "../logql/ast";
import type { TimeWindow } from "../core/time-window";
import { chunkLength } from "../cache/extents";
import type { CachedOrigin } from "../cache/cached-origin";
import { streamFilter } from "../plan/selector";

export interface IndexStats {
  streams: number;
  chunks: number;
  bytes: number;
  entries: number;
}

export async function indexStats(client: CachedOrigin, matchers: Matcher[], window: TimeWindow): Promise<IndexStats> {
  // Per chunk and stream, so chunks can be cached: streams are then counted once across chunks.
  const width = wholeChunkBuckets(window);
  const rows = await client.timeBuckets.rows({
    logsql: `${streamFilter(matchers, client.derivedFields?.serviceNameLabels)} | stats by (${timeBuckets(width)}, _stream_id) count() as entries, sum_len(_msg) as bytes`,
    window,
    width,
    shift: 0n,
    clip: true,
    section: "statsResult",
    values: ["entries", "bytes"],
  });
  const streams = new Set<string>();
  let entries = 0;
  let bytes = 0;
  for (const group of rows.groups) streams.add(group._stream_id ?? "");
  for (let i = 0; i < rows.length; i++) {
    entries += toInt(rows.value(i, 0));
    bytes += toInt(rows.value(i, 1));
  }
  // Loki cuts a chunk per stream per ~2h or ~1.5 MB; VictoriaLogs has no chunks, so report one
  // per stream, the figure Grafana uses only for display.
  return { streams: streams.size, chunks: streams.size, bytes, entries };
}

/** Several tenants' stats as one (a multi-tenant request): each figure summed, as Loki merges them. */
export function sumStats(all: readonly IndexStats[]): IndexStats {
  const total: IndexStats = { streams: 0, chunks: 0, bytes: 0, entries: 0 };
  for (const s of all) {
    total.streams += s.streams;
    total.chunks += s.chunks;
    total.bytes += s.bytes;
    total.entries += s.entries;
  }
  return total;
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

/** A count or byte sum VictoriaLogs sent as text; anything unreadable counts as 0. */
export function toInt(v: string | number | undefined): number {
  const n = Number(v ?? 0);
  return Number.isFinite(n) ? Math.round(n) : 0;
}

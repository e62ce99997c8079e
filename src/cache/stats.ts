/**
 * What the caches did for one request, in the sections of Loki's `stats.cache` object, so Grafana's
 * query inspector and `logcli --stats` show hits and misses the way they do against Loki's frontend.
 * One instance per request; the cache layers add to it as they work.
 */

/** Loki's `stats.cache` sections, in Loki's order. */
export const CACHE_SECTIONS = [
  "chunk",
  "index",
  "result",
  "statsResult",
  "volumeResult",
  "seriesResult",
  "labelResult",
  "instantMetricResult",
  "logResult",
  "taskResult",
] as const;

export type CacheSection = (typeof CACHE_SECTIONS)[number];

export interface CacheFigures {
  /** Entries (chunks or whole answers) found in a cache. */
  entriesFound: number;
  /** Entries looked up. */
  entriesRequested: number;
  /** Entries written. */
  entriesStored: number;
  /** Bytes read from the caches. */
  bytesReceived: number;
  /** Bytes written to the caches. */
  bytesSent: number;
  /** Cache operations (reads and writes). */
  requests: number;
  /** Time spent reading, ns. */
  downloadTime: number;
  /** Span of the query answered from cache, ns. */
  queryLengthServed: number;
}

const zero = (): CacheFigures => ({
  entriesFound: 0,
  entriesRequested: 0,
  entriesStored: 0,
  bytesReceived: 0,
  bytesSent: 0,
  requests: 0,
  downloadTime: 0,
  queryLengthServed: 0,
});

export class CacheStats {
  private readonly sections = new Map<CacheSection, CacheFigures>();
  /**
   * Why this request left the caches out altogether (`no-cache` from the client, `CACHE=off`), so
   * the `Cache-Status` header (http/cache-status.ts) can say a bypass was chosen, not a miss.
   */
  bypass?: string;
  /** Pieces of the answer planned but not looked up (asked of the origin): too recent, or cut at the range's edge. */
  uncachedPieces = 0;
  /** Of those, the pieces whose window ends within the freshness horizon (never kept). */
  freshPieces = 0;

  /** A piece that is not looked up was planned; `fresh`: because its window is too recent to keep. */
  notLookedUp(fresh: boolean): void {
    this.uncachedPieces++;
    if (fresh) this.freshPieces++;
  }

  section(name: CacheSection): CacheFigures {
    let s = this.sections.get(name);
    if (!s) this.sections.set(name, (s = zero()));
    return s;
  }

  /** A lookup: `body` is what was found (undefined for a miss). */
  lookedUp(name: CacheSection, body: string | undefined, elapsedMs: number, spanNs = 0n): void {
    const s = this.section(name);
    s.entriesRequested++;
    s.requests++;
    s.downloadTime += Math.round(elapsedMs * 1e6);
    if (body !== undefined) {
      s.entriesFound++;
      s.bytesReceived += body.length;
      s.queryLengthServed += Number(spanNs);
    }
  }

  stored(name: CacheSection, body: string): void {
    const s = this.section(name);
    s.entriesStored++;
    s.requests++;
    s.bytesSent += body.length;
  }

  /** Totals over every section (the per-request log line and Server-Timing use them). */
  totals(): { hits: number; misses: number; stored: number; bytesRead: number } {
    let hits = 0;
    let requested = 0;
    let stored = 0;
    let bytesRead = 0;
    for (const s of this.sections.values()) {
      hits += s.entriesFound;
      requested += s.entriesRequested;
      stored += s.entriesStored;
      bytesRead += s.bytesReceived;
    }
    return { hits, misses: requested - hits, stored, bytesRead };
  }

  /** Loki's `cache` object: every section present, zeros where nothing happened. */
  toJSON(): Record<CacheSection, CacheFigures> {
    const out = {} as Record<CacheSection, CacheFigures>;
    for (const name of CACHE_SECTIONS) out[name] = this.sections.get(name) ?? zero();
    return out;
  }
}

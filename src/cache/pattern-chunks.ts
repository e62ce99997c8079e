/**
 * Mined patterns of one time chunk. A chunk that lies wholly inside the request's range and ended
 * before the freshness horizon has fixed lines, hence fixed patterns and counts: a refreshing
 * Patterns tab mines only the chunks it has not seen (the newest edge) and merges the rest from here.
 *
 * The key names everything the patterns depend on: tenant, origin and credentials context (through
 * cacheKey), the selector's LogsQL, the step grid, the sampling cap and the chunk window.
 */
import type { MinedPattern } from "../engine/patterns/miner";
import type { TimeWindow } from "../core/time-window";
import type { ResultCache } from "./result-cache";

/** Larger chunks (serialized) are not kept: the chunk store is for answers, not archives. */
const MAX_CHUNK_BYTES = 2 * 1024 * 1024;

/** Mined patterns by time chunk: what to use for a patterns request (Logs Drilldown's Patterns tab). */
export interface PatternChunkCache {
  /** Whether the whole, aligned chunk `w` may be read from and written to the cache. */
  storable(w: TimeWindow): boolean;
  /** Notes a chunk mined without a lookup (Cache-Status counts it, fresh or not). */
  passedOver(w: TimeWindow): void;
  lookup(w: TimeWindow): Promise<MinedPattern[] | undefined>;
  store(w: TimeWindow, patterns: readonly MinedPattern[]): void;
}

/** The chunk cache of one patterns request, or undefined when caching is off for the request. */
export function patternChunkCache(cache: ResultCache | undefined, identity: string): PatternChunkCache | undefined {
  if (!cache) return undefined;
  const settled = cache.nowNs() - cache.horizonNs;
  return {
    storable: (w) => w.end <= settled,
    passedOver(w) {
      cache.stats.notLookedUp(w.end > settled);
    },
    async lookup(w) {
      const started = Date.now();
      const body = await cache.store.get(await cache.keyOf(identity, w), w);
      const patterns = body === undefined ? undefined : decodePatterns(body);
      cache.stats.lookedUp("result", patterns ? body : undefined, Date.now() - started, w.end - w.start);
      return patterns;
    },
    store(w, patterns) {
      const body = JSON.stringify({ patterns });
      if (body.length > MAX_CHUNK_BYTES) return;
      cache.stats.stored("result", body);
      cache.defer(cache.keyOf(identity, w).then((key) => cache.store.put(key, body, w)));
    },
  };
}

/** The stored patterns, or undefined when the body is not a pattern chunk (a corrupt entry is a miss). */
export function decodePatterns(body: string): MinedPattern[] | undefined {
  try {
    const parsed = JSON.parse(body) as { patterns?: unknown };
    if (!Array.isArray(parsed?.patterns)) return undefined;
    const out: MinedPattern[] = [];
    for (const p of parsed.patterns as Partial<MinedPattern>[]) {
      if (p === null || typeof p !== "object") return undefined;
      const { format, level, tokens, spacesAfter, samples } = p;
      if (format !== "logfmt" && format !== "json" && format !== "text") return undefined;
      if (typeof level !== "string" || !isArrayOf(tokens, "string") || !isArrayOf(spacesAfter, "number")) {
        return undefined;
      }
      if (!Array.isArray(samples) || !samples.every((s) => isArrayOf(s, "number") && s.length === 2)) return undefined;
      out.push({ format, level, tokens, spacesAfter, samples });
    }
    return out;
  } catch {
    return undefined;
  }
}

function isArrayOf(v: unknown, type: "string" | "number"): v is never[] {
  return Array.isArray(v) && v.every((x) => typeof x === type);
}

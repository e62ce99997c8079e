/**
 * The `Cache-Status` response header (RFC 9211) of one request: what the Worker's caches did, in
 * the standard vocabulary curl, browsers' developer tools and proxies already read, beside
 * `Server-Timing`.
 *
 * An answer is assembled from pieces (log windows, metric and volume chunks, whole label answers),
 * each looked up or asked of the origin, so the RFC's single-response terms map as:
 *
 * - `hit`: every piece came from a cache and the origin was not asked.
 * - `fwd=partial`: some pieces came from a cache, the rest from the origin; `detail` says how many
 *   (`"3/8 pieces"`, and how many of the others were too recent to keep, `", 2 fresh"`).
 * - `fwd=miss`: pieces were looked up and none was found.
 * - `fwd=bypass`: the caches were left out: by the client (`detail="no-cache"`), by configuration
 *   (`detail="CACHE=off"`), because every piece is within the freshness horizon
 *   (`detail="fresh window"`), or because the answer is never cached (`detail="not cached"`:
 *   instant queries, short log queries, detected fields).
 *
 * No header when neither a cache nor the origin took part (parameter errors, /drilldown-limits).
 * `stored` is left out: most writes happen after the answer is out, so the header cannot know them.
 */
import type { CacheStats } from "../cache/stats";

/** The cache's name in the header (RFC 9211 §2: a token naming the cache). */
export const CACHE_NAME = "loki-vl-worker";

export type CacheOutcome = "hit" | "partial" | "miss" | "bypass" | "none";

export interface CacheVerdict {
  outcome: CacheOutcome;
  /** The header's value, or undefined for `none`. */
  header?: string;
}

export function cacheVerdict(stats: CacheStats | undefined, originRequests: number): CacheVerdict {
  if (stats?.bypass !== undefined) return bypass(stats.bypass);
  const { hits, misses } = stats?.totals() ?? { hits: 0, misses: 0 };
  const lookups = hits + misses;
  const uncached = stats?.uncachedPieces ?? 0;
  const fresh = stats?.freshPieces ?? 0;
  if (lookups === 0) {
    if (originRequests === 0 && uncached === 0) return { outcome: "none" };
    return bypass(fresh > 0 && fresh === uncached ? "fresh window" : "not cached");
  }
  if (hits === lookups && uncached === 0 && originRequests === 0) {
    return { outcome: "hit", header: `${CACHE_NAME}; hit` };
  }
  const detail = `${hits}/${lookups + uncached} pieces${fresh > 0 ? `, ${fresh} fresh` : ""}`;
  const outcome = hits > 0 ? "partial" : "miss";
  return { outcome, header: `${CACHE_NAME}; fwd=${outcome}; detail="${detail}"` };
}

function bypass(why: string): CacheVerdict {
  return { outcome: "bypass", header: `${CACHE_NAME}; fwd=bypass; detail="${why}"` };
}

/**
 * How long an origin answer may be reused. Data older than the ingestion horizon no longer changes,
 * so historical answers live a day (and go to KV, shared by every data centre); answers touching
 * the last minutes can still grow and live only briefly in the local cache.
 */
import type { TimeWindow } from "../origin/client";

/** Windows ending before now − this are treated as immutable (Loki's `max_cache_freshness_per_query`). */
export const RECENT_HORIZON_MS = 10 * 60 * 1000;
export const HISTORICAL_TTL_S = 24 * 60 * 60;
export const RECENT_TTL_S = 30;
/** KV accepts 25 MiB values; keep a margin. */
export const KV_MAX_BYTES = 20 * 1024 * 1024;

export interface CachePolicy {
  historical: boolean;
  /** Cache API max-age, seconds. */
  maxAgeSeconds: number;
  /** Whether the answer may go to KV (historical only). */
  kv: boolean;
}

export function cachePolicy(window: TimeWindow, nowMs: number, horizonMs = RECENT_HORIZON_MS): CachePolicy {
  const horizonNs = BigInt(Math.floor(nowMs) - horizonMs) * 1_000_000n;
  const historical = window.end <= horizonNs;
  return {
    historical,
    maxAgeSeconds: historical ? HISTORICAL_TTL_S : RECENT_TTL_S,
    kv: historical,
  };
}

/** UTF-8 size bound without encoding the whole body when it is clearly small (≤ 3 bytes per UTF-16 unit). */
export function fitsInKv(body: string): boolean {
  if (body.length * 3 <= KV_MAX_BYTES) return true;
  if (body.length > KV_MAX_BYTES) return false;
  return new TextEncoder().encode(body).byteLength <= KV_MAX_BYTES;
}

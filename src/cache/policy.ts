/**
 * How long an origin answer may be reused.
 *
 * Answers touching the last minutes (the freshness horizon, Loki's `max_cache_freshness_per_query`)
 * can still grow with every line ingested: they live only seconds, in the local cache.
 *
 * Older answers are "historical", but historical is not the same as final. A shipper that reconnects
 * after an outage (a network cut, a full disk, a restarted agent) sends its backlog stamped with the
 * times the lines were written, an hour or two back, and VictoriaLogs accepts them. An empty or
 * partial answer cached for such a window would hide the backlog for as long as it lives. How likely
 * a window is to still receive lines falls with its age: shippers buffer for minutes to hours, rarely
 * for a day. So the time an answer lives is graded by how long ago its window ended:
 *
 * - less than an hour: two minutes. Backlogs land here most often; a dashboard refreshing every
 *   30 s still reuses the answer four times, and a backlog shows within two minutes of its arrival.
 * - less than six hours: twenty minutes. A longer outage's backlog still appears within one
 *   coffee break, while dashboards over the last few hours keep most of their pieces.
 * - older: a day. Lines for such windows are rare, and long ranges are where the cache pays most.
 *
 * Only answers that live a day go to KV. KV is the tier every data centre shares, worth a write for
 * a piece reused all day; a piece that lives minutes would be rewritten to KV every few minutes while
 * a dashboard refreshes (KV allows 1,000 writes a day on the Free plan and one write per key per
 * second) and would barely outlive KV's own propagation delay (about 60 s). Younger pieces stay in
 * the isolate's memory and the data centre's Cache API, which cost nothing per write.
 *
 * A stored entry carries its own expiry (stamp.ts), which readers check in every tier: the lifetime
 * holds wherever the entry is found, whatever the tier itself does. An operator who knows a backlog
 * arrived can also purge a tenant's entries for a time range at once (purges.ts, routes/admin.ts).
 */
import type { TimeWindow } from "../core/time-window";

/** Windows ending before now − this are historical (Loki's `max_cache_freshness_per_query`). */
export const RECENT_HORIZON_MS = 10 * 60 * 1000;
/** The longest any entry lives. */
export const HISTORICAL_TTL_S = 24 * 60 * 60;
export const RECENT_TTL_S = 30;
/** KV refuses an `expirationTtl` below this. */
export const KV_MIN_TTL_S = 60;
/** KV accepts 25 MiB values; keep a margin. */
export const KV_MAX_BYTES = 20 * 1024 * 1024;

const HOUR_MS = 60 * 60 * 1000;

/** The grades of historical windows, youngest first: windows that ended less than `ageMs` ago live `ttlS`. */
export const HISTORICAL_GRADES: readonly { ageMs: number; ttlS: number }[] = [
  { ageMs: HOUR_MS, ttlS: 2 * 60 },
  { ageMs: 6 * HOUR_MS, ttlS: 20 * 60 },
];

/** Seconds a historical answer for a window ending at `windowEndNs` may be reused, at `nowMs`. */
export function historicalTtlSeconds(windowEndNs: bigint, nowMs: number): number {
  const ageMs = nowMs - Number(windowEndNs / 1_000_000n);
  for (const grade of HISTORICAL_GRADES) if (ageMs < grade.ageMs) return grade.ttlS;
  return HISTORICAL_TTL_S;
}

export interface CachePolicy {
  historical: boolean;
  /** How long the answer may be reused, seconds (Cache API max-age, KV expirationTtl, the stamp). */
  maxAgeSeconds: number;
  /** Whether the answer may go to (and be looked up in) KV: only answers that live a day. */
  kv: boolean;
}

export function cachePolicy(window: TimeWindow, nowMs: number, horizonMs = RECENT_HORIZON_MS): CachePolicy {
  const horizonNs = BigInt(Math.floor(nowMs) - horizonMs) * 1_000_000n;
  const historical = window.end <= horizonNs;
  const maxAgeSeconds = historical ? historicalTtlSeconds(window.end, nowMs) : RECENT_TTL_S;
  return { historical, maxAgeSeconds, kv: historical && sharedInKv(maxAgeSeconds) };
}

/** Whether an answer that lives `ttlSeconds` is worth a KV write (see above). */
export function sharedInKv(ttlSeconds: number): boolean {
  return ttlSeconds >= HISTORICAL_TTL_S;
}

/** UTF-8 size bound without encoding the whole body when it is clearly small (≤ 3 bytes per UTF-16 unit). */
export function fitsInKv(body: string): boolean {
  if (body.length * 3 <= KV_MAX_BYTES) return true;
  if (body.length > KV_MAX_BYTES) return false;
  return new TextEncoder().encode(body).byteLength <= KV_MAX_BYTES;
}

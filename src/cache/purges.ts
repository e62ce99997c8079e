/**
 * Operator purges of a tenant's cached entries for a time range (routes/admin.ts records them).
 *
 * Entries are stored under SHA-256 keys of everything that names them, so there is no way to find
 * "this tenant's entries for 10:00–12:00" in the Cache API, in KV or in the isolates' memories. A
 * purge is therefore a record, not a deletion: each tenant's purges are kept in one KV value, and a
 * reader that finds an entry whose window overlaps a purge recorded after the entry was asked of
 * the origin treats it as a miss; the fill that follows replaces it. A record is kept as long as an
 * entry asked before it can live (the longest lifetime, plus margin), then dropped.
 *
 * One value per tenant keeps reading cheap: an isolate reads it (one KV read) at most every
 * RELOAD_MS, and only when it has found an entry to check. The price is that two purges of one
 * tenant recorded at the same moment in two places may keep only one (KV has no compare-and-set);
 * purges are rare operator actions, and repeating one is harmless.
 *
 * A tenant's value lives under a key derived from that tenant alone, and a record voids only entries
 * read for that tenant, so one tenant's purge can never reach another's entries. KV is eventually
 * consistent (about 60 s across locations), so a purge takes effect everywhere within about a
 * minute and a half, and at once in the isolate that recorded it.
 */
import type { Tenant } from "../core/tenant";
import type { TimeWindow } from "../core/time-window";
import { BoundedMap } from "../util/bounded-map";
import { HISTORICAL_TTL_S } from "./policy";

export interface PurgeRecord {
  start: bigint;
  end: bigint;
  /** Epoch ms of the purge: entries asked of the origin before it are void. */
  atMs: number;
}

export interface PurgeLog {
  /** The tenant's purges still in force. */
  recordsOf(tenant: Tenant): Promise<readonly PurgeRecord[]>;
  /** Voids the tenant's entries whose window overlaps `window` and that were asked before `atMs`. */
  purge(tenant: Tenant, window: TimeWindow, atMs: number): Promise<void>;
}

/** Whether an entry for `window`, asked of the origin at `askedAtMs`, was purged since. */
export function voidedBy(records: readonly PurgeRecord[], window: TimeWindow, askedAtMs: number): boolean {
  return records.some((r) => r.atMs >= askedAtMs && r.start < window.end && window.start < r.end);
}

/** The part of a KV namespace the purge log uses. */
export interface PurgeKv {
  get(key: string): Promise<string | null>;
  put(key: string, value: string, options: { expirationTtl: number }): Promise<void>;
}

const PREFIX = "purge:v1:";
/** An isolate re-reads a tenant's purges at most this often. */
const RELOAD_MS = 30_000;
/** How long a record must be kept: longer than any entry asked before it can live. */
const RECORD_TTL_S = HISTORICAL_TTL_S + 60 * 60;
/** More records than this (a runaway script) collapse into one that voids everything before the newest. */
const MAX_RECORDS = 1000;
const INTEGER = /^-?\d{1,20}$/;
/** Voids every window. */
const ALL_TIME = { start: -(2n ** 63n), end: 2n ** 63n - 1n };

type Loaded = { records: readonly PurgeRecord[]; loadedAtMs: number };
const loadedByTenant = new BoundedMap<Loaded>(10_000, 4 * 1024 * 1024, (l) => 64 + 48 * l.records.length);

export function kvPurgeLog(kv: PurgeKv): PurgeLog {
  return {
    async recordsOf(tenant) {
      const key = await keyOf(tenant);
      const now = Date.now();
      const held = loadedByTenant.get(key);
      if (held && now - held.loadedAtMs < RELOAD_MS && now >= held.loadedAtMs) return held.records;
      const records = decodeRecords(await kv.get(key));
      loadedByTenant.set(key, { records, loadedAtMs: now });
      return records;
    },
    async purge(tenant, window, atMs) {
      const key = await keyOf(tenant);
      // Records older than the longest lifetime concern no entry any more.
      let records = decodeRecords(await kv.get(key)).filter((r) => r.atMs > atMs - RECORD_TTL_S * 1000);
      records.push({ ...window, atMs });
      if (records.length > MAX_RECORDS) records = [{ ...ALL_TIME, atMs }];
      await kv.put(key, encodeRecords(records), { expirationTtl: RECORD_TTL_S });
      // This isolate sees the purge at once; the others within RELOAD_MS plus KV's propagation.
      loadedByTenant.set(key, { records, loadedAtMs: Date.now() });
    },
  };
}

function encodeRecords(records: readonly PurgeRecord[]): string {
  return JSON.stringify(records.map((r) => [String(r.start), String(r.end), r.atMs]));
}

/**
 * The stored records. A value that cannot be read must still void what it may concern: it reads as
 * one record voiding every entry asked before now.
 */
function decodeRecords(text: string | null): PurgeRecord[] {
  if (text === null) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) throw new Error("not a list");
    return parsed.map((item: unknown) => {
      if (!Array.isArray(item) || item.length !== 3) throw new Error("not a record");
      const [start, end, at] = item as unknown[];
      if (typeof start !== "string" || typeof end !== "string" || typeof at !== "number")
        throw new Error("not a record");
      if (!INTEGER.test(start) || !INTEGER.test(end)) throw new Error("not a record");
      return { start: BigInt(start), end: BigInt(end), atMs: at };
    });
  } catch {
    return [{ ...ALL_TIME, atMs: Date.now() }];
  }
}

/** The tenant's key: a digest, so no tenant id is readable in KV's key list. */
async function keyOf(tenant: Tenant): Promise<string> {
  const text = `purges-of:${tenant.accountId}:${tenant.projectId}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return PREFIX + hex;
}

/**
 * Operator purges of a tenant's cached entries for a time range (routes/admin.ts records them).
 *
 * Entries are stored under SHA-256 keys of everything that names them, so there is no way to find
 * "this tenant's entries for 10:00–12:00" in the Cache API, in KV or in the isolates' memories. A
 * purge is therefore a record, not a deletion: each tenant's purges are kept in KV (one key each, so
 * two purges at once cannot overwrite each other), and a reader that finds an entry whose window
 * overlaps a purge recorded after the entry was asked of the origin treats it as a miss; the fill
 * that follows replaces it. A record outlives every entry it can concern (the longest lifetime, plus
 * margin), then KV drops it.
 *
 * Records are listed per tenant only: a tenant's purge log is read through a key prefix derived from
 * that tenant alone, and a record voids only entries read for that tenant, so one tenant's purge can
 * never reach another's entries. KV is eventually consistent (about 60 s across locations) and each
 * isolate re-reads a tenant's records at most every RELOAD_MS, so a purge takes effect everywhere
 * within about a minute, at once in the isolate that recorded it.
 */
import type { Tenant, TimeWindow } from "../origin/client";
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

const PREFIX = "purge:v1:";
const INTEGER = /^-?\d{1,20}$/;
/** An isolate re-reads a tenant's purges at most this often (a KV list each time). */
const RELOAD_MS = 10_000;
/** A record lives longer than any entry asked before it. */
const RECORD_TTL_S = HISTORICAL_TTL_S + 60 * 60;

type Loaded = { records: readonly PurgeRecord[]; loadedAtMs: number };
const loadedByTenant = new BoundedMap<Loaded>(10_000, 4 * 1024 * 1024, (l) => 64 + 48 * l.records.length);

export interface RecordMetadata {
  start: string;
  end: string;
  at: number;
}

/** The part of a KV namespace the purge log uses. */
export interface PurgeKv {
  list(options: { prefix: string; cursor?: string | null }): Promise<{
    keys: { name: string; metadata?: unknown }[];
    list_complete: boolean;
    cursor?: string;
  }>;
  put(key: string, value: string, options: { metadata: RecordMetadata; expirationTtl: number }): Promise<void>;
}

export function kvPurgeLog(kv: PurgeKv): PurgeLog {
  return {
    async recordsOf(tenant) {
      const prefix = await prefixOf(tenant);
      const held = loadedByTenant.get(prefix);
      if (held && Date.now() - held.loadedAtMs < RELOAD_MS && Date.now() >= held.loadedAtMs) return held.records;
      const records: PurgeRecord[] = [];
      let cursor: string | undefined;
      do {
        const page = await kv.list({ prefix, cursor });
        for (const key of page.keys) {
          const m = key.metadata as Partial<RecordMetadata> | undefined;
          if (
            typeof m?.start !== "string" ||
            typeof m.end !== "string" ||
            typeof m.at !== "number" ||
            !INTEGER.test(m.start) ||
            !INTEGER.test(m.end)
          ) {
            // A record that cannot be read must still void what it may concern: everything before it.
            records.push({ start: -(2n ** 63n), end: 2n ** 63n, atMs: Number.MAX_SAFE_INTEGER });
            continue;
          }
          records.push({ start: BigInt(m.start), end: BigInt(m.end), atMs: m.at });
        }
        cursor = page.list_complete ? undefined : page.cursor;
      } while (cursor !== undefined);
      loadedByTenant.set(prefix, { records, loadedAtMs: Date.now() });
      return records;
    },
    async purge(tenant, window, atMs) {
      const prefix = await prefixOf(tenant);
      const metadata: RecordMetadata = { start: String(window.start), end: String(window.end), at: atMs };
      const id = `${String(atMs).padStart(15, "0")}-${crypto.randomUUID()}`;
      await kv.put(prefix + id, "", { metadata, expirationTtl: RECORD_TTL_S });
      // This isolate sees its own purge at once; the others within RELOAD_MS plus KV's propagation.
      const held = loadedByTenant.get(prefix);
      if (held) loadedByTenant.set(prefix, { ...held, records: [...held.records, { ...window, atMs }] });
    },
  };
}

/** The tenant's key prefix: a digest, so no tenant id is readable in KV's key list. */
async function prefixOf(tenant: Tenant): Promise<string> {
  const text = `purges-of:${tenant.accountId}:${tenant.projectId}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return `${PREFIX}${hex}:`;
}

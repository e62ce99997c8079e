/**
 * Where immutable pieces of answers (time chunks of stats results, log windows, metric chunks) are
 * kept: the isolate's memory (bounded), the data centre's Cache API, then KV, which every
 * data centre shares and which survives isolates and restarts. A piece found in a farther tier is
 * copied into the nearer ones so the next read stays local.
 *
 * Only historical pieces come here (their window ended before the freshness horizon): they can no
 * longer change, so they live a day. Storage failures and unreadable entries are misses, never errors.
 */
import { type AnswerCache, type AnswerKv, quietly } from "./layer";
import { BoundedMap } from "../util/bounded-map";
import { fitsInKv, HISTORICAL_TTL_S } from "./policy";

/**
 * The isolate's own tier: the most recently used immutable pieces, in its share of the isolate's
 * 128 MB. A refreshing dashboard served by one isolate finds its historical chunks here without any
 * I/O. Keys are the same digests as in the other tiers (tenant included), and only immutable pieces
 * come here, so nothing in it can be stale or cross tenants.
 */
const ISOLATE_TIER_BYTES = 16 * 1024 * 1024;
const isolateTier = new BoundedMap<string>(Number.MAX_SAFE_INTEGER, ISOLATE_TIER_BYTES, (body) => 2 * body.length);

export interface ChunkStore {
  get(key: string): Promise<string | undefined>;
  put(key: string, body: string): Promise<void>;
}

/**
 * The isolate's memory, the Cache API and KV, in that order; the Cache API and KV may be absent
 * (outside the Workers runtime, or KV not bound). `memory` defaults to the isolate-wide tier; null
 * leaves it out.
 */
export function tieredChunkStore(
  cache: AnswerCache | undefined,
  kv: AnswerKv | undefined,
  memory: BoundedMap<string> | null = isolateTier,
): ChunkStore {
  return {
    async get(key) {
      const remembered = memory?.get(key);
      if (remembered !== undefined) return remembered;
      const local = await quietly(cache?.get(key));
      if (local !== undefined) {
        memory?.set(key, local);
        return local;
      }
      const shared = await quietly(kv?.get(key));
      if (typeof shared !== "string") return undefined;
      memory?.set(key, shared);
      await quietly(cache?.put(key, shared, HISTORICAL_TTL_S));
      return shared;
    },
    async put(key, body) {
      // The same piece again (a panel evaluated twice before its chunks were read back): this
      // isolate wrote or read it, so the other tiers hold it; writing it again would cost a Cache
      // API and a KV write (KV takes one write per key per second) for nothing.
      if (memory?.get(key) === body) return;
      memory?.set(key, body);
      await Promise.all([
        quietly(cache?.put(key, body, HISTORICAL_TTL_S)),
        fitsInKv(body) ? quietly(kv?.put(key, body, HISTORICAL_TTL_S)) : undefined,
      ]);
    },
  };
}

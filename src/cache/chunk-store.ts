/**
 * Where immutable pieces of answers (time chunks of stats results) are kept: the data centre's
 * Cache API first, then KV, which every data centre shares and which survives isolates and restarts.
 * A piece found only in KV is copied into the Cache API so the next read stays local.
 *
 * Only historical pieces come here (their window ended before the freshness horizon): they can no
 * longer change, so they live a day. Storage failures and unreadable entries are misses, never errors.
 */
import type { AnswerCache, AnswerKv } from "./layer";
import { fitsInKv, HISTORICAL_TTL_S } from "./policy";

export interface ChunkStore {
  get(key: string): Promise<string | undefined>;
  put(key: string, body: string): Promise<void>;
}

/** Both tiers; either may be absent (outside the Workers runtime, or KV not bound). */
export function tieredChunkStore(cache: AnswerCache | undefined, kv: AnswerKv | undefined): ChunkStore {
  return {
    async get(key) {
      const local = await quietly(cache?.get(key));
      if (local !== undefined) return local;
      const shared = await quietly(kv?.get(key));
      if (typeof shared !== "string") return undefined;
      await quietly(cache?.put(key, shared, HISTORICAL_TTL_S));
      return shared;
    },
    async put(key, body) {
      await Promise.all([
        quietly(cache?.put(key, body, HISTORICAL_TTL_S)),
        fitsInKv(body) ? quietly(kv?.put(key, body, HISTORICAL_TTL_S)) : undefined,
      ]);
    },
  };
}

async function quietly<T>(p: Promise<T> | undefined): Promise<T | undefined> {
  if (!p) return undefined;
  try {
    return await p;
  } catch {
    return undefined;
  }
}

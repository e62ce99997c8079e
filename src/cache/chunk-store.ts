/**
 * Where immutable pieces of answers (time chunks of stats results, log windows, metric chunks) are
 * kept: the isolate's memory (bounded), the data centre's Cache API, then KV, which every
 * data centre shares and which survives isolates and restarts. A piece found in a farther tier is
 * copied into the nearer ones so the next read stays local.
 *
 * Only historical pieces come here (their window ended before the freshness horizon). How long one
 * lives depends on how long ago its window ended (policy.ts: late lines still arrive for young
 * windows), and only those that live a day go to KV; each piece carries its expiry and the time it was asked (stamp.ts), checked on every
 * read from every tier, together with the tenant's purges. Storage failures, expired, purged and
 * unreadable entries are misses, never errors.
 */
import { type AnswerCache, type AnswerKv, quietly } from "./storage";
import { BoundedMap } from "../util/bounded-map";
import type { TimeWindow } from "../core/time-window";
import { fitsInKv, historicalTtlSeconds, sharedInKv } from "./policy";
import { stamped, unstamped, validBody, type Validity } from "./stamp";

/**
 * The isolate's own tier: the most recently used immutable pieces, in its share of the isolate's
 * 128 MB. A refreshing dashboard served by one isolate finds its historical chunks here without any
 * I/O. Keys are the same digests as in the other tiers (tenant included), so nothing in it can cross
 * tenants, and its pieces are stamped and checked like the others', so none outlives its lifetime.
 */
const ISOLATE_TIER_BYTES = 16 * 1024 * 1024;
const isolateTier = new BoundedMap<string>(Number.MAX_SAFE_INTEGER, ISOLATE_TIER_BYTES, (body) => 2 * body.length);

/** Pieces by key; `window` is the time the piece's data covers (its lifetime and purges depend on it). */
export interface ChunkStore {
  get(key: string, window: TimeWindow): Promise<string | undefined>;
  put(key: string, body: string, window: TimeWindow): Promise<void>;
}

/** What the store checks pieces against, and when this request asked the origin for what it stores. */
export interface StoreClock extends Validity {
  askedAtMs: number;
}

const systemClock = (): StoreClock => ({ nowMs: () => Date.now(), askedAtMs: Date.now() });

/**
 * The isolate's memory, the Cache API and KV, in that order; the Cache API and KV may be absent
 * (outside the Workers runtime, or KV not bound). `memory` defaults to the isolate-wide tier; null
 * leaves it out.
 */
export function tieredChunkStore(
  cache: AnswerCache | undefined,
  kv: AnswerKv | undefined,
  memory: BoundedMap<string> | null = isolateTier,
  clock: StoreClock = systemClock(),
): ChunkStore {
  /** Seconds left to live for a stamped entry, for the Cache API copy of what a farther tier held. */
  const secondsLeft = (text: string) => {
    const expires = unstamped(text)?.stamp.expiresAtMs ?? 0;
    return Math.max(1, Math.floor((expires - clock.nowMs()) / 1000));
  };
  return {
    async get(key, window) {
      const remembered = memory?.get(key);
      if (remembered !== undefined) {
        const body = await validBody(remembered, window, clock);
        if (body !== undefined) return body;
      }
      const local = await quietly(cache?.get(key));
      const localBody = await validBody(local, window, clock);
      if (localBody !== undefined) {
        memory?.set(key, local!);
        return localBody;
      }
      // Only pieces that live a day are in KV: a younger window's is not looked for there.
      if (!sharedInKv(historicalTtlSeconds(window.end, clock.nowMs()))) return undefined;
      const shared = await quietly(kv?.get(key));
      const sharedBody = await validBody(shared, window, clock);
      if (sharedBody === undefined) return undefined;
      memory?.set(key, shared!);
      await quietly(cache?.put(key, shared!, secondsLeft(shared!)));
      return sharedBody;
    },
    async put(key, body, window) {
      // The same piece again (a panel evaluated twice before its chunks were read back): this
      // isolate wrote or read it, so the other tiers hold it; writing it again would cost a Cache
      // API and a KV write (KV takes one write per key per second) for nothing.
      const held = memory?.get(key);
      if (held !== undefined && (await validBody(held, window, clock)) === body) return;
      const ttl = historicalTtlSeconds(window.end, clock.nowMs());
      const text = stamped(body, { expiresAtMs: clock.nowMs() + ttl * 1000, askedAtMs: clock.askedAtMs });
      memory?.set(key, text);
      await Promise.all([
        quietly(cache?.put(key, text, ttl)),
        sharedInKv(ttl) && fitsInKv(text) ? quietly(kv?.put(key, text, ttl)) : undefined,
      ]);
    },
  };
}

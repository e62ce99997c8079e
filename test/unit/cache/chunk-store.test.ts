/**
 * The tiers of immutable pieces: a read fills the nearer tiers, a write goes to every tier once, and
 * writing a piece this isolate already holds unchanged costs no storage write. Every piece is stamped
 * with its expiry (graded by its window's age) and the time it was asked; a read from any tier
 * refuses an expired piece and one the tenant's purges void.
 */
import { describe, expect, it } from "vitest";
import { type StoreClock, tieredChunkStore } from "../../../src/cache/chunk-store";
import type { AnswerCache, AnswerKv } from "../../../src/cache/storage";
import type { PurgeRecord } from "../../../src/cache/purges";
import { stamped } from "../../../src/cache/stamp";
import { BoundedMap } from "../../../src/util/bounded-map";

const NOW = Date.parse("2024-05-01T12:00:00Z");
const ns = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
const MIN_MS = 60_000;
/** A window that ended a day ago: it lives the longest, a day. */
const OLD = { start: ns("2024-04-30T10:00:00Z"), end: ns("2024-04-30T11:00:00Z") };
/** A window that ended 40 minutes ago: late lines may still come, it lives two minutes. */
const YOUNG = { start: ns("2024-05-01T11:00:00Z"), end: ns("2024-05-01T11:20:00Z") };
const DAY = stamped("one", { expiresAtMs: NOW + 86_400_000, askedAtMs: NOW });

function tiers(clock?: StoreClock) {
  const writes: string[] = [];
  const cacheData = new Map<string, string>();
  const kvData = new Map<string, string>();
  const cache: AnswerCache = {
    get: async (k) => cacheData.get(k),
    put: async (k, v, ttl) => {
      writes.push(`cache ${k}=${v} ${ttl}`);
      cacheData.set(k, v);
    },
  };
  const kv: AnswerKv = {
    get: async (k) => kvData.get(k) ?? null,
    put: async (k, v, ttl) => {
      writes.push(`kv ${k}=${v} ${ttl}`);
      kvData.set(k, v);
    },
  };
  const memory = new BoundedMap<string>(100, 1 << 20, (v) => v.length);
  const at = clock ?? { nowMs: () => NOW, askedAtMs: NOW };
  return { writes, cacheData, kvData, store: tieredChunkStore(cache, kv, memory, at), memory };
}

describe("tieredChunkStore", () => {
  it("writes a new piece to both storage tiers and keeps it in memory", async () => {
    const t = tiers();
    await t.store.put("a", "one", OLD);
    expect(t.writes).toEqual([`cache a=${DAY} 86400`, `kv a=${DAY} 86400`]);
    expect(t.memory.get("a")).toBe(DAY);
    expect(await t.store.get("a", OLD)).toBe("one");
  });

  it("does not write a piece it already holds unchanged, and writes a changed one", async () => {
    const t = tiers();
    await t.store.put("a", "one", OLD);
    await t.store.put("a", "one", OLD);
    expect(t.writes).toHaveLength(2);
    await t.store.put("a", "two", OLD);
    expect(t.writes).toHaveLength(4);
    expect(await t.store.get("a", OLD)).toBe("two");
  });

  it("writes every time without a memory tier", async () => {
    const writes: string[] = [];
    const cache: AnswerCache = { get: async () => undefined, put: async (k, v) => void writes.push(`${k}=${v}`) };
    const store = tieredChunkStore(cache, undefined, null, { nowMs: () => NOW, askedAtMs: NOW });
    await store.put("a", "one", OLD);
    await store.put("a", "one", OLD);
    expect(writes).toEqual([`a=${DAY}`, `a=${DAY}`]);
  });

  it("copies a piece found in KV into the Cache API and memory, for the time it has left", async () => {
    const t = tiers();
    const shared = stamped("shared", { expiresAtMs: NOW + 5 * MIN_MS, askedAtMs: NOW - MIN_MS });
    t.kvData.set("k", shared);
    // A young window's piece is never looked for in KV.
    expect(await t.store.get("k", YOUNG)).toBeUndefined();
    expect(await t.store.get("k", OLD)).toBe("shared");
    expect(t.writes).toEqual([`cache k=${shared} 300`]);
    expect(t.memory.get("k")).toBe(shared);
  });

  it("gives a young window's piece a short life, and no tier serves it after that", async () => {
    let now = NOW;
    const t = tiers({ nowMs: () => now, askedAtMs: NOW });
    await t.store.put("y", "empty", YOUNG);
    // Only the Cache API (and memory): a piece that lives minutes is not worth a KV write.
    expect(t.writes.map((w) => `${w.split(" ")[0]} ${w.split(" ").at(-1)}`)).toEqual(["cache 120"]);
    now = NOW + 119_000;
    expect(await t.store.get("y", YOUNG)).toBe("empty");
    now = NOW + 120_000;
    expect(await t.store.get("y", YOUNG)).toBeUndefined();
  });

  it("refuses unstamped entries (written by an older version, or corrupt)", async () => {
    const t = tiers();
    t.cacheData.set("k", "one");
    t.kvData.set("k", '{"rows":[]}');
    expect(await t.store.get("k", OLD)).toBeUndefined();
  });

  it("refuses a piece asked before a purge of an overlapping range, in every tier, and keeps the others", async () => {
    const purges: PurgeRecord[] = [];
    const t = tiers({ nowMs: () => NOW, askedAtMs: NOW - MIN_MS, purges: async () => purges });
    await t.store.put("old", "one", OLD);
    await t.store.put("young", "two", YOUNG);
    purges.push({ start: YOUNG.start, end: YOUNG.start + 1n, atMs: NOW });
    expect(await t.store.get("young", YOUNG)).toBeUndefined();
    expect(await t.store.get("old", OLD)).toBe("one");
    // A piece asked after the purge is served.
    const after = tiers({ nowMs: () => NOW, askedAtMs: NOW + 1, purges: async () => purges });
    await after.store.put("young", "three", YOUNG);
    expect(await after.store.get("young", YOUNG)).toBe("three");
  });
});

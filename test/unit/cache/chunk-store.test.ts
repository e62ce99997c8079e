/**
 * The tiers of immutable pieces: a read fills the nearer tiers, a write goes to every tier once, and
 * writing a piece this isolate already holds unchanged costs no storage write.
 */
import { describe, expect, it } from "vitest";
import { tieredChunkStore } from "../../../src/cache/chunk-store";
import type { AnswerCache, AnswerKv } from "../../../src/cache/layer";
import { BoundedMap } from "../../../src/util/bounded-map";

function tiers() {
  const writes: string[] = [];
  const cacheData = new Map<string, string>();
  const kvData = new Map<string, string>();
  const cache: AnswerCache = {
    get: async (k) => cacheData.get(k),
    put: async (k, v) => {
      writes.push(`cache ${k}=${v}`);
      cacheData.set(k, v);
    },
  };
  const kv: AnswerKv = {
    get: async (k) => kvData.get(k) ?? null,
    put: async (k, v) => {
      writes.push(`kv ${k}=${v}`);
      kvData.set(k, v);
    },
  };
  const memory = new BoundedMap<string>(100, 1 << 20, (v) => v.length);
  return { writes, cacheData, kvData, store: tieredChunkStore(cache, kv, memory), memory };
}

describe("tieredChunkStore", () => {
  it("writes a new piece to both storage tiers and keeps it in memory", async () => {
    const t = tiers();
    await t.store.put("a", "one");
    expect(t.writes).toEqual(["cache a=one", "kv a=one"]);
    expect(t.memory.get("a")).toBe("one");
    expect(await t.store.get("a")).toBe("one");
  });

  it("does not write a piece it already holds unchanged, and writes a changed one", async () => {
    const t = tiers();
    await t.store.put("a", "one");
    await t.store.put("a", "one");
    expect(t.writes).toEqual(["cache a=one", "kv a=one"]);
    await t.store.put("a", "two");
    expect(t.writes).toEqual(["cache a=one", "kv a=one", "cache a=two", "kv a=two"]);
  });

  it("writes every time without a memory tier", async () => {
    const writes: string[] = [];
    const cache: AnswerCache = { get: async () => undefined, put: async (k, v) => void writes.push(`${k}=${v}`) };
    const store = tieredChunkStore(cache, undefined, null);
    await store.put("a", "one");
    await store.put("a", "one");
    expect(writes).toEqual(["a=one", "a=one"]);
  });

  it("copies a piece found in KV into the Cache API and memory", async () => {
    const t = tiers();
    t.kvData.set("k", "shared");
    expect(await t.store.get("k")).toBe("shared");
    expect(t.cacheData.get("k")).toBe("shared");
    expect(t.memory.get("k")).toBe("shared");
  });
});

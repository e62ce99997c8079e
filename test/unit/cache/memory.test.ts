import { describe, expect, it } from "vitest";
import { BoundedLru } from "../../../src/cache/memory";

describe("BoundedLru", () => {
  it("evicts the least recently used entries to stay within its byte bound", () => {
    const lru = new BoundedLru(2 * 100); // 100 UTF-16 units
    lru.set("a", "x".repeat(9)); // 10 units each
    lru.set("b", "x".repeat(9));
    for (let i = 0; i < 8; i++) lru.set(`c${i}`, "x".repeat(8));
    expect(lru.size).toBe(200);
    expect(lru.get("a")).toBeDefined(); // now most recently used
    lru.set("d", "x".repeat(9)); // over the bound: "b" is the oldest
    expect(lru.get("b")).toBeUndefined();
    expect(lru.get("a")).toBe("x".repeat(9));
    expect(lru.size).toBeLessThanOrEqual(200);
  });

  it("refuses a piece larger than an eighth of its bound, and replaces a key's value", () => {
    const lru = new BoundedLru(800);
    lru.set("big", "x".repeat(60));
    expect(lru.get("big")).toBeUndefined();
    lru.set("k", "one");
    lru.set("k", "three");
    expect(lru.get("k")).toBe("three");
    expect(lru.size).toBe(2 * (1 + 5));
  });
});

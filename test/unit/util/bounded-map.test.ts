import { describe, expect, it } from "vitest";
import { BoundedMap } from "../../../src/util/bounded-map";

const text = (v: string) => 2 * v.length;

describe("BoundedMap", () => {
  it("evicts the least recently used entries to stay within its byte bound", () => {
    const map = new BoundedMap<string>(100, 2 * 100, text); // 100 UTF-16 units
    map.set("a", "x".repeat(9)); // 10 units each with the key
    map.set("b", "x".repeat(9));
    for (let i = 0; i < 8; i++) map.set(`c${i}`, "x".repeat(8));
    expect(map.byteSize).toBe(200);
    expect(map.get("a")).toBeDefined(); // now most recently used
    map.set("d", "x".repeat(9)); // over the bound: "b" is the oldest
    expect(map.get("b")).toBeUndefined();
    expect(map.get("a")).toBe("x".repeat(9));
    expect(map.byteSize).toBeLessThanOrEqual(200);
  });

  it("evicts to stay within its entry bound", () => {
    const map = new BoundedMap<number>(3, 1_000_000);
    for (let i = 0; i < 5; i++) map.set(String(i), i);
    expect(map.size).toBe(3);
    expect(map.get("0")).toBeUndefined();
    expect(map.get("4")).toBe(4);
  });

  it("refuses an entry larger than an eighth of its bound, and replaces a key's value", () => {
    const map = new BoundedMap<string>(100, 800, text);
    map.set("big", "x".repeat(60));
    expect(map.get("big")).toBeUndefined();
    map.set("k", "one");
    map.set("k", "three");
    expect(map.get("k")).toBe("three");
    expect(map.byteSize).toBe(2 * (1 + 5));
  });
});

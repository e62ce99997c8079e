/** De-duplication of tail entries by (labels, metadata, timestamp, line), per time bucket, in bounded memory. */
import { describe, expect, it } from "vitest";
import { SeenBuckets, entryKey } from "../../../src/exec/tail-seen";
import type { LogEntry } from "../../../src/engine/types";

const entry = (ts: bigint, line: string, stream: Record<string, string> = { app: "a" }, metadata = {}): LogEntry => ({
  ts,
  line,
  stream,
  metadata,
  parsed: {},
});

describe("entryKey", () => {
  it("tells apart entries differing only in timestamp, line, stream or metadata", () => {
    const keys = new Set([
      entryKey(entry(1n, "x")),
      entryKey(entry(2n, "x")),
      entryKey(entry(1n, "y")),
      entryKey(entry(1n, "x", { app: "b" })),
      entryKey(entry(1n, "x", { app: "a" }, { trace: "1" })),
    ]);
    expect(keys.size).toBe(5);
    expect(entryKey(entry(1n, "x"))).toBe(entryKey({ ...entry(1n, "x"), stream: { app: "a" } }));
  });

  it("keys do not depend on label order, and label/line boundaries cannot be forged", () => {
    expect(entryKey(entry(1n, "x", { a: "1", b: "2" }))).toBe(entryKey(entry(1n, "x", { b: "2", a: "1" })));
    expect(entryKey(entry(1n, "x", { a: "1b" }))).not.toBe(entryKey(entry(1n, "x", { a: "1", b: "" })));
    expect(entryKey(entry(1n, "ab", { a: "" }))).not.toBe(entryKey(entry(1n, "b", { a: "a" })));
  });

  it("is an exact integer (53 bits), so a Float64Array holds it without loss", () => {
    for (let i = 0; i < 1000; i++) {
      const k = entryKey(entry(BigInt(i), `line ${i}`));
      expect(Number.isSafeInteger(k)).toBe(true);
      expect(new Float64Array([k])[0]).toBe(k);
    }
  });
});

describe("SeenBuckets", () => {
  const key = (ts: bigint, line = "x") => entryKey(entry(ts, line));

  it("knows a bucket's keys and count once it is read, and nothing of other buckets", () => {
    const seen = new SeenBuckets(10n, 100);
    expect(seen.bucketOf(25n)).toBe(20n);
    expect(seen.hitsOf(20n)).toBe(-1);
    seen.replace(20n, 2, [key(21n), key(25n), key(25n)]);
    expect(seen.hitsOf(20n)).toBe(2);
    expect(seen.size).toBe(2);
    expect(seen.has(21n, key(21n))).toBe(true);
    expect(seen.has(25n, key(25n))).toBe(true);
    expect(seen.has(25n, key(25n, "y"))).toBe(false);
    expect(seen.has(35n, key(35n))).toBe(false);
  });

  it("a re-read bucket's keys replace the old ones; added keys keep the old count", () => {
    const seen = new SeenBuckets(10n, 100);
    seen.replace(20n, 1, [key(21n)]);
    seen.addKeys(20n, [key(22n)]);
    expect(seen.hitsOf(20n)).toBe(1);
    expect(seen.has(22n, key(22n))).toBe(true);
    seen.replace(20n, 3, [key(21n), key(22n), key(23n)]);
    expect(seen.size).toBe(3);
    seen.addKeys(40n, [key(41n)]);
    expect(seen.hitsOf(40n)).toBe(-1);
    expect(seen.size).toBe(4);
  });

  it("forgets buckets older than the floor and never lowers it", () => {
    const seen = new SeenBuckets(10n, 100);
    for (let b = 0n; b < 50n; b += 10n) seen.replace(b, 1, [key(b)]);
    seen.prune(30n);
    expect(seen.size).toBe(2);
    expect(seen.floor).toBe(30n);
    seen.prune(10n);
    expect(seen.floor).toBe(30n);
    seen.replace(10n, 1, [key(10n)]);
    expect(seen.size).toBe(2);
  });

  it("over capacity, drops the oldest buckets and raises the floor to the oldest kept", () => {
    const seen = new SeenBuckets(10n, 3);
    for (let b = 0n; b < 60n; b += 10n) seen.replace(b, 1, [key(b)]);
    seen.prune(0n);
    expect(seen.size).toBe(3);
    expect(seen.floor).toBe(30n);
    expect(seen.has(30n, key(30n))).toBe(true);
    expect(seen.has(20n, key(20n))).toBe(false);
  });

  it("keeps the newest bucket even when it alone is over capacity", () => {
    const seen = new SeenBuckets(10n, 2);
    seen.replace(0n, 1, [key(1n)]);
    seen.replace(10n, 3, [key(11n, "a"), key(11n, "b"), key(11n, "c")]);
    seen.prune(0n);
    expect(seen.floor).toBe(10n);
    expect(seen.size).toBe(3);
  });
});

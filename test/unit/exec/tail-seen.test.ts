/** De-duplication of tail entries by (labels, timestamp, line), in bounded memory. */
import { describe, expect, it } from "vitest";
import { SeenEntries, entryKey } from "../../../src/exec/tail-seen";
import type { LogEntry } from "../../../src/engine/types";

const entry = (ts: bigint, line: string, stream: Record<string, string> = { app: "a" }, metadata = {}): LogEntry => ({
  ts,
  line,
  stream,
  metadata,
  parsed: {},
});

describe("SeenEntries", () => {
  it("accepts an entry once and refuses its repeats", () => {
    const seen = new SeenEntries(10);
    expect(seen.add(entry(1n, "x"))).toBe(true);
    expect(seen.add(entry(1n, "x"))).toBe(false);
    expect(seen.add({ ...entry(1n, "x"), stream: { app: "a" } })).toBe(false);
    expect(seen.size).toBe(1);
  });

  it("tells apart entries differing only in timestamp, line, stream or metadata", () => {
    const seen = new SeenEntries(10);
    expect(seen.add(entry(1n, "x"))).toBe(true);
    expect(seen.add(entry(2n, "x"))).toBe(true);
    expect(seen.add(entry(1n, "y"))).toBe(true);
    expect(seen.add(entry(1n, "x", { app: "b" }))).toBe(true);
    expect(seen.add(entry(1n, "x", { app: "a" }, { trace: "1" }))).toBe(true);
    expect(seen.size).toBe(5);
  });

  it("keys do not depend on label order, and label/line boundaries cannot be forged", () => {
    expect(entryKey(entry(1n, "x", { a: "1", b: "2" }))).toBe(entryKey(entry(1n, "x", { b: "2", a: "1" })));
    expect(entryKey(entry(1n, "x", { a: "1b" }))).not.toBe(entryKey(entry(1n, "x", { a: "1", b: "" })));
    expect(entryKey(entry(1n, "ab", { a: "" }))).not.toBe(entryKey(entry(1n, "b", { a: "a" })));
  });

  it("forgets entries older than the floor and never lowers it", () => {
    const seen = new SeenEntries(10);
    for (let t = 1n; t <= 5n; t++) seen.add(entry(t, "x"));
    seen.prune(3n);
    expect(seen.size).toBe(3);
    expect(seen.floor).toBe(3n);
    seen.prune(1n);
    expect(seen.floor).toBe(3n);
    expect(seen.add(entry(3n, "x"))).toBe(false);
    expect(seen.add(entry(2n, "x"))).toBe(true);
  });

  it("over capacity, drops the oldest keys and raises the floor to the oldest kept", () => {
    const seen = new SeenEntries(3);
    for (let t = 1n; t <= 6n; t++) seen.add(entry(t, "x"));
    seen.prune(0n);
    expect(seen.size).toBe(3);
    expect(seen.floor).toBe(4n);
    expect(seen.add(entry(4n, "x"))).toBe(false);
    expect(seen.add(entry(6n, "x"))).toBe(false);
  });

  it("keeps every key at the new floor's timestamp even past capacity", () => {
    const seen = new SeenEntries(2);
    seen.add(entry(1n, "old"));
    for (const l of ["a", "b", "c"]) seen.add(entry(5n, l));
    seen.prune(0n);
    expect(seen.floor).toBe(5n);
    expect(seen.size).toBe(3);
    expect(seen.add(entry(5n, "b"))).toBe(false);
  });
});

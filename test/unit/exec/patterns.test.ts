import { describe, expect, it } from "vitest";
import { lineBuckets, patternChunkLength } from "../../../src/exec/patterns";
import { decodePatterns } from "../../../src/cache/pattern-chunks";
import type { MinedPattern } from "../../../src/engine/patterns/miner";

const S = 1_000_000_000n;

describe("pattern chunks", () => {
  it("cuts a range into about 12 chunks, each a multiple of the step and at least 5 minutes", () => {
    expect(patternChunkLength(6n * 3600n * S, 60n * S)).toBe(1800n * S);
    expect(patternChunkLength(6n * 3600n * S, 7n * S)).toBe(1806n * S);
    expect(patternChunkLength(3600n * S, 14n * S)).toBe(308n * S);
    expect(patternChunkLength(6n * 3600n * S, 3600n * S)).toBe(3600n * S);
  });

  it("reads back what it stores, and treats anything else as a miss", () => {
    const p: MinedPattern = {
      format: "text",
      level: "info",
      tokens: ["a", "<_>", "c", "d"],
      spacesAfter: [0, 1, 2],
      samples: [[1000, 3]],
    };
    expect(decodePatterns(JSON.stringify({ patterns: [p] }))).toEqual([p]);
    expect(decodePatterns("{")).toBeUndefined();
    expect(decodePatterns(JSON.stringify({ entries: [] }))).toBeUndefined();
    expect(decodePatterns(JSON.stringify({ patterns: [{ ...p, format: "xml" }] }))).toBeUndefined();
    expect(decodePatterns(JSON.stringify({ patterns: [{ ...p, samples: [[1, "2"]] }] }))).toBeUndefined();
  });
});

describe("a group's line buckets", () => {
  const start = Date.UTC(2026, 1, 1);
  it("reads step indexes from the run's start, and lines at an edge by their own time", () => {
    const json = JSON.stringify([
      "0",
      "2",
      "2",
      "2026-02-01T00:00:05.999999999Z",
      "2026-02-01T00:00:06.0000001Z",
      "1e+1",
    ]);
    expect(lineBuckets(json, start, 3000, 3000n)).toEqual([
      start,
      start + 6000,
      start + 6000,
      start + 3000,
      start + 6000,
      start + 30_000,
    ]);
    expect(lineBuckets(undefined, start, 3000, 3000n)).toEqual([]);
    expect(lineBuckets("[]", start, 3000, 3000n)).toEqual([]);
  });

  it("refuses what is not a list of buckets", () => {
    for (const bad of ['{"a":1}', '["x"]', '["1"', "[1]"]) {
      expect(() => lineBuckets(bad, start, 3000, 3000n), bad).toThrow();
    }
  });
});

import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { EntryTopK } from "../../../src/exec/topk";
import type { Direction, LogEntry } from "../../../src/engine/types";

function entry(ts: bigint, id: number): LogEntry {
  return { ts, line: `line ${id}`, stream: {}, metadata: {}, parsed: {} };
}

/** The reference: every entry sorted by direction, the first `limit` timestamps. */
function expectedTimes(times: bigint[], limit: number, direction: Direction): bigint[] {
  const sorted = [...times].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (direction === "backward") sorted.reverse();
  return sorted.slice(0, limit);
}

describe("EntryTopK", () => {
  const times = fc.oneof(
    // Runs in either order (as origins send them), shuffled input, and many ties.
    fc.array(fc.bigInt({ min: 0n, max: 40n }), { maxLength: 60 }),
    fc.array(fc.bigInt({ min: 0n, max: 1000n }), { maxLength: 60 }).map((a) => a.sort((x, y) => Number(x - y))),
    fc.array(fc.bigInt({ min: 0n, max: 1000n }), { maxLength: 60 }).map((a) => a.sort((x, y) => Number(y - x))),
    fc
      .tuple(fc.array(fc.bigInt({ min: 0n, max: 9n }), { maxLength: 30 }), fc.array(fc.bigInt({ min: 0n, max: 9n })))
      .map(([a, b]) => [...a.sort((x, y) => Number(y - x)), ...b]),
  );

  it("keeps the `limit` best entries in direction order, whatever the arrival order (property)", () => {
    fc.assert(
      fc.property(
        times,
        fc.integer({ min: 1, max: 25 }),
        fc.constantFrom<Direction>("backward", "forward"),
        (ts, limit, direction) => {
          const top = new EntryTopK(limit, direction);
          const pushed = ts.map((t, i) => entry(t, i));
          for (const e of pushed) {
            const before = top.sorted();
            const admitted = top.admits(e.ts);
            top.push(e);
            // An entry the heap says it cannot admit leaves the result as it was.
            if (!admitted) expect(top.sorted()).toEqual(before);
          }
          const got = top.sorted();
          expect(got.map((e) => e.ts)).toEqual(expectedTimes(ts, limit, direction));
          expect(new Set(got).size).toBe(got.length);
          for (const e of got) expect(pushed).toContain(e);
          expect(top.full).toBe(ts.length >= limit);
        },
      ),
      { numRuns: 2000, seed: 5 },
    );
  });

  it("keeps the first of equal timestamps that arrive in order once full", () => {
    const top = new EntryTopK(2, "backward");
    const [a, b, c] = [entry(5n, 0), entry(5n, 1), entry(5n, 2)];
    for (const e of [a, b, c]) top.push(e);
    expect(top.sorted()).toEqual([a, b]);
  });
});

import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ENTRY_TEXT_BUDGET, EntryTextBudget, EntryTopK, entryTextLength } from "../../../src/exec/topk";
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

  it("counts an entry's own labels with its line against the text budget, and names the limit", () => {
    // 16 entries of 1 Mi characters in a parsed label (what a label_format repeat makes): the
    // line is short, the labels are not.
    const big = "x".repeat(1024 * 1024);
    const top = new EntryTopK(100, "backward");
    const push = (i: number) =>
      top.push({ ts: BigInt(1000 - i), line: "l", stream: { app: "a" }, metadata: {}, parsed: { big } });
    for (let i = 0; i < 15; i++) push(i);
    expect(() => push(15)).toThrow(
      "the query would return more than 16Mi characters of log lines and labels (limit 100 entries)",
    );
  });

  it("measures lines, metadata and parsed labels (names included), not the shared stream labels", () => {
    const e: LogEntry = {
      ts: 1n,
      line: "abc",
      stream: { app: "a".repeat(1000) },
      metadata: { trace: "0123" },
      parsed: { k: "vv" },
    };
    expect(entryTextLength(e)).toBe(3 + 5 + 4 + 1 + 2);
    expect(entryTextLength({ ...e, rawLine: '"a\\b"' } as LogEntry)).toBe(3 + 9 + 3);
    // As an answer writes them: a control character is six characters of JSON, a quote two.
    expect(entryTextLength({ ...e, line: 'a"b', metadata: {}, parsed: { k: "\u0001" } })).toBe(4 + 1 + 6);
  });

  it("charges every heap of one query to one budget, and an evicted entry gives its text back", () => {
    const budget = new EntryTextBudget(10);
    const line = "y".repeat(ENTRY_TEXT_BUDGET / 4);
    const a = new EntryTopK(10, "backward", budget);
    const b = new EntryTopK(10, "backward", budget);
    a.push({ ts: 1n, line, stream: {}, metadata: {}, parsed: {} });
    a.push({ ts: 2n, line, stream: {}, metadata: {}, parsed: {} });
    b.push({ ts: 3n, line, stream: {}, metadata: {}, parsed: {} });
    expect(budget.chars).toBe((3 * ENTRY_TEXT_BUDGET) / 4);
    expect(a.heldChars).toBe(ENTRY_TEXT_BUDGET / 2);
    // Two heaps of half the budget each would each fit alone; together they do not.
    b.push({ ts: 4n, line, stream: {}, metadata: {}, parsed: {} });
    expect(() => b.push({ ts: 5n, line: "z", stream: {}, metadata: {}, parsed: {} })).toThrow("16Mi characters");
    // Full, a heap that takes a better entry gives back the one it evicts.
    const c = new EntryTopK(1, "backward", new EntryTextBudget(1));
    c.push({ ts: 1n, line, stream: {}, metadata: {}, parsed: {} });
    c.push({ ts: 2n, line: "short", stream: {}, metadata: {}, parsed: {} });
    expect(c.heldChars).toBe(5);
  });
});

import { describe, expect, it } from "vitest";
import type { ChunkStore } from "../../../src/cache/chunk-store";
import { type LogWindowQuery, planLogWindows, type WindowAnswer } from "../../../src/cache/log-window-plan";
import type { ResultCache } from "../../../src/cache/result-cache";
import { CacheStats } from "../../../src/cache/stats";
import type { LogEntry } from "../../../src/engine/types";
import { splitWindows } from "../../../src/exec/windows";
import type { TimeWindow } from "../../../src/core/time-window";
import { SubrequestBudget } from "../../../src/origin/subrequest-budget";

const MIN = 60_000_000_000n;
const HOUR = 60n * MIN;
const NOW = 1_000n * HOUR;

function results(entries = new Map<string, string>()): { cache: ResultCache; entries: Map<string, string> } {
  const store: ChunkStore = {
    get: async (k) => entries.get(k),
    put: async (k, v) => void entries.set(k, v),
  };
  const cache: ResultCache = {
    store,
    stats: new CacheStats(),
    horizonNs: 10n * MIN,
    nowNs: () => NOW,
    defer: () => {},
    later: (task) => task(),
    keyOf: async (material, w) => `${material}@${w.start}-${w.end}`,
  };
  return { cache, entries };
}

const query = (range: TimeWindow, limit = 100): LogWindowQuery => ({
  identity: "q",
  range,
  splitInterval: HOUR,
  direction: "backward",
  limit,
  split: splitWindows,
});

/** One entry per minute of `w`, newest first (a backward answer). */
function minutes(w: TimeWindow): LogEntry[] {
  const out: LogEntry[] = [];
  for (let t = w.end - MIN; t >= w.start; t -= MIN)
    out.push({ ts: t, line: `m${t / MIN}`, stream: {}, metadata: {}, parsed: {} });
  return out;
}

async function readAll(plan: NonNullable<ReturnType<typeof planLogWindows>>, asked: TimeWindow[]): Promise<bigint[]> {
  const seen: bigint[] = [];
  const fetch = async (w: TimeWindow): Promise<WindowAnswer> => {
    asked.push(w);
    const entries = minutes(w);
    return { entries, rows: entries.length, bytes: 0, subqueries: 1, charged: 0 };
  };
  await plan.readCut(fetch, (a) => {
    for (const e of a.entries) seen.push(e.ts);
    return true;
  });
  return seen;
}

describe("planLogWindows", () => {
  it("leaves the query to the origin without a results cache, below one interval, or without budget room", () => {
    const budget = SubrequestBudget.unlimited();
    const long = { start: NOW - 6n * HOUR, end: NOW - HOUR };
    expect(planLogWindows(undefined, budget, query(long))).toBeUndefined();
    expect(
      planLogWindows(results().cache, budget, query({ start: NOW - 2n * HOUR, end: NOW - 90n * MIN })),
    ).toBeUndefined();
    const tight = new SubrequestBudget({ subrequests: 24, cacheCalls: 100, kvOperations: 100 });
    expect(planLogWindows(results().cache, tight, query(long))).toBeUndefined();
    expect(planLogWindows(results().cache, budget, query(long))).toBeDefined();
  });

  it("reads a historical range once from the origin, then from the cache alone, in direction order", async () => {
    const budget = SubrequestBudget.unlimited();
    const range = { start: NOW - 6n * HOUR, end: NOW - HOUR };
    const { cache, entries } = results();
    const asked: TimeWindow[] = [];
    const first = await readAll(planLogWindows(cache, budget, query(range, 1000))!, asked);
    expect(first).toEqual(minutes(range).map((e) => e.ts));
    expect(asked.length).toBeGreaterThan(0);
    expect(entries.size).toBe(5);

    const again: TimeWindow[] = [];
    const second = await readAll(planLogWindows(results(entries).cache, budget, query(range, 1000))!, again);
    expect(again).toEqual([]);
    expect(second).toEqual(first);
  });

  it("keeps the settled twelfths of a window still growing, and asks again only for the rest", async () => {
    const budget = SubrequestBudget.unlimited();
    const range = { start: NOW - 3n * HOUR, end: NOW };
    const groups = planLogWindows(results().cache, budget, query(range))!.groups();
    // Two whole historical hours, then the last hour: its twelfths that ended before the horizon,
    // and the rest (the last 10 minutes) in one window.
    expect(groups.map((g) => g.length)).toEqual([11, 1, 1]);
    expect(groups[0]![0]).toEqual({ start: NOW - 10n * MIN, end: NOW });
    expect(groups[0]!.slice(1).every((w) => w.end - w.start === 5n * MIN)).toBe(true);
  });
});

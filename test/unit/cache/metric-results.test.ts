import { describe, expect, it } from "vitest";
import type { ChunkStore } from "../../../src/cache/chunk-store";
import type { ResultCache } from "../../../src/cache/result-cache";
import { decodeEntries, encodeEntries } from "../../../src/cache/log-windows";
import { decodeSeries, encodeSeries, type MetricChunkCache, metricChunkCache } from "../../../src/cache/metric-results";
import { CacheStats } from "../../../src/cache/stats";
import { SeriesLimit, type MetricQuery } from "../../../src/engine/metric";
import type { LogEntry, Series } from "../../../src/engine/types";
import { SubrequestBudget } from "../../../src/origin/subrequest-budget";

const S = 1_000_000_000n;
const MIN = 60n * S;
const T0 = 1_700_000_400n * S; // a multiple of 5 minutes

/** A pure "evaluator": value at t is t in minutes, one series per parity of the minute. */
function evaluator() {
  const asked: MetricQuery[] = [];
  const evaluate = async (q: MetricQuery): Promise<Series[]> => {
    asked.push(q);
    const even: Series = { labels: { p: "even" }, points: [] };
    const odd: Series = { labels: { p: "odd" }, points: [] };
    for (let t = q.start; t <= q.end; t += q.step)
      ((t / MIN) % 2n === 0n ? even : odd).points.push({ t, v: Number(t / MIN) });
    return [even, odd].filter((s) => s.points.length > 0);
  };
  return { asked, evaluate };
}

/** The metric chunk cache over a request's results and budget, asked for one matrix. */
function cachedMatrix(
  client: { results: ResultCache; budget: SubrequestBudget },
  ...args: Parameters<MetricChunkCache["matrix"]>
) {
  return metricChunkCache(client.budget, client.results).matrix(...args);
}

function clientAt(nowNs: bigint, store = new Map<string, string>(), budget = SubrequestBudget.unlimited()) {
  const pending: Promise<unknown>[] = [];
  const chunks: ChunkStore = {
    get: async (k) => store.get(k),
    put: async (k, v) => void store.set(k, v),
  };
  const results: ResultCache = {
    store: chunks,
    stats: new CacheStats(),
    horizonNs: 10n * MIN,
    nowNs: () => nowNs,
    defer: (p) => pending.push(p),
    later: (task) => task(),
    keyOf: async (material, w) => `${material}@${w.start}-${w.end}`,
  };
  return {
    client: { results, budget },
    store,
    settle: () => Promise.all(pending),
    results,
  };
}

describe("cachedMatrix", () => {
  it("equals one evaluation of the whole range, and a slid range evaluates only its new chunks", async () => {
    const q = { start: T0, end: T0 + 60n * MIN, step: MIN, instant: false };
    const whole = await evaluator().evaluate(q);
    const { client, store, settle } = clientAt(T0 + 3n * 60n * MIN);
    const ev = evaluator();
    expect(await cachedMatrix(client, "q", q, new SeriesLimit(500), ev.evaluate)).toEqual(whole);
    expect(ev.asked).toHaveLength(1); // one run: all chunks were missing
    await settle();

    const slid = { start: T0 + 7n * MIN, end: T0 + 67n * MIN, step: MIN, instant: false };
    const again = clientAt(T0 + 3n * 60n * MIN, store);
    const ev2 = evaluator();
    expect(await cachedMatrix(again.client, "q", slid, new SeriesLimit(500), ev2.evaluate)).toEqual(
      await evaluator().evaluate(slid),
    );
    // Chunks of 5 minutes: [T0+65m, T0+70m) is the only one not evaluated before.
    expect(ev2.asked).toEqual([{ start: T0 + 65n * MIN, end: T0 + 69n * MIN, step: MIN, instant: false }]);
  });

  it("a partial limit cuts the joined answer to whole series, and the chunks stay whole", async () => {
    const q = { start: T0, end: T0 + 30n * MIN, step: MIN, instant: false };
    const whole = await evaluator().evaluate(q);
    const { client, store, settle } = clientAt(T0 + 3n * 60n * MIN);
    const limit = new SeriesLimit(1, true);
    const part = await cachedMatrix(client, "q", q, limit, evaluator().evaluate);
    await settle();
    expect(limit.reached).toBe(true);
    expect(part).toHaveLength(1);
    expect(part![0]).toEqual(whole.find((s) => s.labels.p === part![0]!.labels.p));
    // What was stored answers a request without the partial limit whole.
    const strict = new SeriesLimit(500);
    const ev = evaluator();
    expect(await cachedMatrix(client, "q", q, strict, ev.evaluate)).toEqual(whole);
    expect(ev.asked).toEqual([]);
    expect(strict.reached).toBe(false);
    expect(store.size).toBeGreaterThan(0);
  });

  it("never stores chunks after the horizon, and applies the series limit to the joined answer", async () => {
    const q = { start: T0, end: T0 + 30n * MIN, step: MIN, instant: false };
    const { client, store, settle } = clientAt(T0 + 20n * MIN);
    await cachedMatrix(client, "q", q, new SeriesLimit(500), evaluator().evaluate);
    await settle();
    const stored = [...store.keys()].map((k) => BigInt(k.split("@")[1]!.split("-")[1]!));
    expect(stored.every((end) => end <= T0 + 10n * MIN)).toBe(true);
    await expect(cachedMatrix(client, "q", q, new SeriesLimit(1), evaluator().evaluate)).rejects.toThrow(
      "maximum number of series (1)",
    );
  });

  it("evaluates once from the first missing chunk to the last when the runs would not fit the request's budget", async () => {
    const q = { start: T0, end: T0 + 60n * MIN, step: MIN, instant: false };
    const { client, store, settle } = clientAt(T0 + 3n * 60n * MIN);
    await cachedMatrix(client, "q", q, new SeriesLimit(500), evaluator().evaluate);
    await settle();
    // Three separate missing chunks: [10m,15m), [30m,35m), [50m,55m).
    for (const k of [...store.keys()]) {
      const start = BigInt(k.split("@")[1]!.split("-")[0]!);
      if ([10n, 30n, 50n].includes((start - T0) / MIN)) store.delete(k);
    }
    const budget = new SubrequestBudget({ subrequests: 4, cacheCalls: 100, kvOperations: 100 });
    const again = clientAt(T0 + 3n * 60n * MIN, store, budget);
    const ev = evaluator();
    expect(await cachedMatrix(again.client, "q", q, new SeriesLimit(500), ev.evaluate)).toEqual(
      await evaluator().evaluate(q),
    );
    // A share of 2 evaluations: the three runs become one, [10m, 55m).
    expect(ev.asked).toEqual([{ start: T0 + 10n * MIN, end: T0 + 54n * MIN, step: MIN, instant: false }]);
  });

  it("reads a corrupt entry as a miss", async () => {
    const q = { start: T0, end: T0 + 10n * MIN, step: MIN, instant: false };
    const { client, store, settle } = clientAt(T0 + 60n * MIN);
    await cachedMatrix(client, "q", q, new SeriesLimit(500), evaluator().evaluate);
    await settle();
    for (const k of store.keys()) store.set(k, '{"series":[["x"]]}');
    const ev = evaluator();
    expect(await cachedMatrix(client, "q", q, new SeriesLimit(500), ev.evaluate)).toEqual(
      await evaluator().evaluate(q),
    );
    expect(ev.asked).toHaveLength(1);
  });
});

describe("stored forms", () => {
  it("round-trip series values JSON cannot hold", () => {
    const series: Series[] = [
      {
        labels: { a: "1" },
        points: [
          { t: 5n, v: Number.NaN },
          { t: 6n, v: Infinity },
          { t: 7n, v: -Infinity },
          { t: 8n, v: 0.1 },
        ],
      },
    ];
    expect(decodeSeries(encodeSeries(series))).toEqual(series);
    expect(decodeSeries("<html>")).toBeUndefined();
  });

  it("round-trip log entries, the origin's line literal included", () => {
    const entries: LogEntry[] = [
      {
        ts: 1769904000123456789n,
        line: 'a "b"',
        rawLine: '"a \\"b\\""',
        stream: { app: "x" },
        metadata: { u: "1" },
        parsed: { p: "q" },
      },
      { ts: 2n, line: "é\u2028", stream: {}, metadata: {}, parsed: {} },
    ];
    expect(decodeEntries(encodeEntries(entries))).toEqual(entries);
    // A line with its literal is kept once, as the literal.
    expect(JSON.parse(encodeEntries(entries.slice(0, 1))).entries[0][1]).toBeNull();
    // Entries written with both (earlier releases) still read back.
    expect(decodeEntries('{"entries":[["1","a \\"b\\"",{},{},{},"\\"a \\\\\\"b\\\\\\"\\""]]}')).toEqual([
      { ts: 1n, line: 'a "b"', rawLine: '"a \\"b\\""', stream: {}, metadata: {}, parsed: {} },
    ]);
    expect(decodeEntries('{"entries":[["1",null,{},{},{}]]}')).toBeUndefined();
    expect(decodeEntries('{"entries":[["1",null,{},{},{},"not a literal"]]}')).toBeUndefined();
    expect(decodeEntries('{"entries":[["1",null,{},{},{},"3"]]}')).toBeUndefined();
    expect(decodeEntries('{"entries":[["x","line",{},{},{}]]}')).toBeUndefined();
    expect(decodeEntries('{"entries":[["1","line",{"a":2},{},{}]]}')).toBeUndefined();
  });
});

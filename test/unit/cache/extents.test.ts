import { describe, expect, it } from "vitest";
import type { ChunkStore } from "../../../src/cache/chunk-store";
import {
  chunkLength,
  decodeChunk,
  encodeChunk,
  type ExtentQuery,
  planChunks,
  type StatsOrigin,
  timeBucketCache,
} from "../../../src/cache/extents";
import type { ResultCache } from "../../../src/cache/result-cache";
import { CacheStats } from "../../../src/cache/stats";
import { PointLimitError } from "../../../src/engine/metric/errors";
import type { TimeWindow } from "../../../src/core/time-window";
import type { VLRow } from "../../../src/origin/rows";
import { formatRFC3339Nano } from "../../../src/origin/timefmt";
import { SubrequestBudget } from "../../../src/origin/subrequest-budget";
import { StatsTable } from "../../../src/origin/stats-table";
import { readStatsAnswer } from "../../../src/origin/stats-answer";

const MIN = 60_000_000_000n;
const HOUR = 60n * MIN;
const T0 = 1_700_000_000n * 1_000_000_000n - ((1_700_000_000n * 1_000_000_000n) % HOUR); // an hour boundary

/** One row per minute bucket with value 1 — an origin whose answer is a pure function of the window. */
class FakeOrigin {
  readonly asked: TimeWindow[] = [];
  readonly logsql: string[] = [];
  async statsRows(logsql: string, w: TimeWindow): Promise<VLRow[]> {
    this.asked.push(w);
    this.logsql.push(logsql);
    const rows: VLRow[] = [];
    let t = w.start - (((w.start % MIN) + MIN) % MIN);
    if (t < w.start) t += MIN;
    for (; t < w.end; t += MIN) rows.push({ _time: formatRFC3339Nano(t), __v: "1" });
    return rows;
  }
  /**
   * The rows as the origin writes them, read by the Worker's own reader; a `union` appends one row
   * naming the request's window.
   */
  async readStatsRows(
    logsql: string,
    w: TimeWindow,
    table: StatsTable,
    beforeRow?: () => void,
    untimed?: VLRow[],
  ): Promise<void> {
    const rows = await this.statsRows(logsql, w);
    if (logsql.includes("| union (")) rows.push({ __name: `${w.start}-${w.end}` });
    readStatsAnswer(rows.map((row) => `${JSON.stringify(row)}\n`).join(""), table, beforeRow, untimed);
  }
}

class MemoryStore implements ChunkStore {
  readonly entries = new Map<string, string>();
  async get(key: string) {
    return this.entries.get(key);
  }
  async put(key: string, body: string) {
    this.entries.set(key, body);
  }
}

/** A client's origin side (its stats rows and budget) with the request's results beside it. */
type FakeClient = StatsOrigin & { results: ResultCache };

/** The time-bucket cache over a fake client, asked for the rows of one query (as the origin's rows). */
async function extentRows(client: FakeClient, q: ExtentQuery): Promise<VLRow[]> {
  const table = await timeBucketCache(client, client.results).rows(q);
  return Array.from({ length: table.length }, (_, i) => table.row(i));
}

function setup(nowNs: bigint, budget = SubrequestBudget.unlimited()) {
  const origin = new FakeOrigin();
  const store = new MemoryStore();
  const pending: Promise<unknown>[] = [];
  const stats = new CacheStats();
  const results: ResultCache = {
    store,
    stats,
    horizonNs: 10n * MIN,
    nowNs: () => nowNs,
    defer: (p) => pending.push(p),
    later: (task) => task(),
    keyOf: async (logsql, chunk) => `${chunk.start}#${chunk.end}#${logsql}`,
  };
  const client: FakeClient = {
    results,
    readStatsRows: origin.readStatsRows.bind(origin),
    budget,
  } as unknown as FakeClient;
  return { origin, store, stats, client, settle: () => Promise.all(pending) };
}

const query = (window: TimeWindow, clip: boolean): ExtentQuery => ({
  logsql: "* | stats by (_time:1m) count() as __v",
  window,
  width: MIN,
  shift: 0n,
  clip,
  section: "result",
  values: ["__v"],
});

const times = (rows: VLRow[]) => rows.map((r) => r._time ?? "").sort();

describe("chunk planning", () => {
  it("sizes chunks as a multiple of the bucket width, at least 5 minutes and at most 48 per query", () => {
    expect(chunkLength(MIN, 3n * HOUR)).toBe(5n * MIN);
    expect(chunkLength(7n * MIN, HOUR)).toBe(7n * MIN);
    expect(chunkLength(MIN, 48n * HOUR)).toBe(HOUR);
    expect(chunkLength(HOUR, 7n * 24n * HOUR)).toBe(4n * HOUR);
  });

  it("aligns chunks to the bucket grid and stores only settled chunks (whole ones when clipping)", () => {
    const window = { start: T0 + 2n * MIN, end: T0 + 23n * MIN };
    const now = T0 + 30n * MIN; // settled up to T0 + 20m
    const clipped = planChunks(query(window, true), now, 10n * MIN);
    expect(clipped.map((p) => [p.chunk.start - T0, p.chunk.end - T0].map((x) => Number(x / MIN)))).toEqual([
      [0, 5],
      [5, 10],
      [10, 15],
      [15, 20],
      [20, 25],
    ]);
    expect(clipped.map((p) => p.storable)).toEqual([false, true, true, true, false]);
    expect(clipped[0]!.request).toEqual({ start: T0 + 2n * MIN, end: T0 + 5n * MIN });
    expect(clipped[4]!.request).toEqual({ start: T0 + 20n * MIN, end: T0 + 23n * MIN });

    const whole = planChunks(query(window, false), now, 10n * MIN);
    expect(whole.map((p) => p.storable)).toEqual([true, true, true, true, false]);
    expect(whole[0]!.request).toEqual(whole[0]!.chunk);
  });
});

describe("extentRows", () => {
  it("answers a repeat from the store and a slid window with one request for the new edge", async () => {
    const now = T0 + 3n * HOUR;
    const { origin, client, stats, settle } = setup(now);
    const first = { start: now - 3n * HOUR, end: now };
    const rows1 = await extentRows(client, query(first, false));
    await settle();
    expect(origin.asked).toEqual([first]); // all chunks missing: one contiguous run
    expect(rows1).toHaveLength(180);

    origin.asked.length = 0;
    const slid = { start: first.start + MIN, end: first.end + MIN };
    const client2: FakeClient = { ...client, results: { ...client.results, nowNs: () => now + MIN } };
    const rows2 = await extentRows(client2, query(slid, false));
    // Only the chunks after the horizon (now + 1m − 10m, rounded down to 5 minutes) are asked for.
    expect(origin.asked).toEqual([{ start: now - 10n * MIN, end: now + 5n * MIN }]);
    expect(times(rows2).filter((t) => t >= formatRFC3339Nano(slid.start) && t < formatRFC3339Nano(slid.end))).toEqual(
      times(await new FakeOrigin().statsRows("", slid)),
    );
    expect(stats.section("result").entriesFound).toBeGreaterThan(30);
  });

  it("returns the rows a request appends after its buckets, from the requests made only, and stores none", async () => {
    const now = T0 + 3n * HOUR;
    const { origin, client, store, settle } = setup(now);
    const window = { start: now - HOUR, end: now };
    const q = { ...query(window, false), after: "* | field_names as __name" };
    const first = await timeBucketCache(client, client.results).rowsAndAfter(q);
    await settle();
    expect(origin.logsql).toEqual([`${q.logsql} | union (* | field_names as __name)`]);
    expect(first.table.length).toBe(60);
    expect(first.after).toEqual([{ __name: `${window.start}-${window.end}` }]);
    expect(store.entries.size).toBeGreaterThan(0);
    for (const body of store.entries.values()) expect(body).not.toContain("__name");

    // Again: the settled chunks come from the store, and only the fresh edge's request appends rows.
    origin.asked.length = 0;
    const again = await timeBucketCache(client, client.results).rowsAndAfter(q);
    expect(origin.asked).toHaveLength(1);
    expect(again.table.length).toBe(60);
    expect(again.after).toEqual([{ __name: `${origin.asked[0]!.start}-${origin.asked[0]!.end}` }]);
  });

  it("asks separate requests for separate runs of missing chunks, clipped at the window's edges", async () => {
    const now = T0 + 10n * HOUR;
    const { origin, client, store, settle } = setup(now);
    const window = { start: T0 + 2n * MIN, end: T0 + 58n * MIN };
    await extentRows(client, query(window, true));
    await settle();
    // Drop two non-adjacent stored chunks: [20m,25m) and [40m,45m).
    for (const key of [...store.entries.keys()]) {
      const [s] = key.split("#");
      const m = (BigInt(s!) - T0) / MIN;
      if (m === 20n || m === 40n) store.entries.delete(key);
    }
    origin.asked.length = 0;
    const rows = await extentRows(client, query(window, true));
    expect(origin.asked).toEqual([
      { start: T0 + 2n * MIN, end: T0 + 5n * MIN },
      { start: T0 + 20n * MIN, end: T0 + 25n * MIN },
      { start: T0 + 40n * MIN, end: T0 + 45n * MIN },
      { start: T0 + 55n * MIN, end: T0 + 58n * MIN },
    ]);
    expect(times(rows)).toEqual(times(await new FakeOrigin().statsRows("", window)));
  });

  it("asks one request from the first missing chunk to the last when the runs would not fit the request's budget", async () => {
    const now = T0 + 10n * HOUR;
    // 5 origin requests left: a share of 2 windows, fewer than the 4 runs below.
    const budget = new SubrequestBudget({ subrequests: 5, cacheCalls: 100, kvOperations: 100 });
    const { origin, client, store, settle } = setup(now, budget);
    const window = { start: T0 + 2n * MIN, end: T0 + 58n * MIN };
    await extentRows(client, query(window, true));
    await settle();
    for (const key of [...store.entries.keys()]) {
      const [s] = key.split("#");
      const m = (BigInt(s!) - T0) / MIN;
      if (m === 20n || m === 40n) store.entries.delete(key);
    }
    const storedBefore = new Map(store.entries);
    origin.asked.length = 0;
    const rows = await extentRows(client, query(window, true));
    expect(origin.asked).toEqual([window]);
    expect(times(rows)).toEqual(times(await new FakeOrigin().statsRows("", window)));
    await settle();
    // The two missing chunks are stored again; the ones asked for again were not rewritten.
    expect(store.entries.size).toBe(storedBefore.size + 2);
  });

  it("treats a corrupt entry as a miss", async () => {
    const now = T0 + 10n * HOUR;
    const { origin, client, store, settle } = setup(now);
    const window = { start: T0, end: T0 + 10n * MIN };
    await extentRows(client, query(window, true));
    await settle();
    for (const key of store.entries.keys()) store.entries.set(key, "<html>proxy error</html>");
    origin.asked.length = 0;
    const rows = await extentRows(client, query(window, true));
    expect(origin.asked).toEqual([window]);
    expect(rows).toHaveLength(10);
    await settle();
    for (const body of store.entries.values()) expect(decodeChunk(body, ["__v"])?.length).toBe(5);
  });

  it("never stores a chunk that ends after the horizon", async () => {
    const now = T0 + 12n * MIN;
    const { client, store, settle } = setup(now);
    await extentRows(client, query({ start: T0, end: now }, true));
    await settle();
    // Settled up to T0 + 2m: no whole chunk has ended by then.
    expect(store.entries.size).toBe(0);
  });

  it("reads no more rows than the points budget allows, and stores nothing from a refused answer", async () => {
    const now = T0 + 10n * HOUR;
    const window = { start: T0, end: T0 + 30n * MIN };
    const refused = setup(now);
    const budget = { points: 40, perRow: 4 };
    const error = await extentRows(refused.client, { ...query(window, true), budget }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PointLimitError);
    expect((error as PointLimitError).limit).toBe(40);
    // The origin is asked for one row more than fit, so a larger answer is never read.
    expect(refused.origin.logsql.every((q) => q.endsWith(" | limit 11"))).toBe(true);
    await refused.settle();
    expect(refused.store.entries.size).toBe(0);

    // Within the budget: the same rows and the same chunk keys as without one.
    const fits = setup(now);
    const rows = await extentRows(fits.client, { ...query(window, true), budget: { points: 400, perRow: 4 } });
    expect(rows).toHaveLength(30);
    await fits.settle();
    const plain = setup(now);
    await extentRows(plain.client, query(window, true));
    await plain.settle();
    expect([...fits.store.entries.keys()].sort()).toEqual([...plain.store.entries.keys()].sort());
  });
});

describe("stored chunks", () => {
  const rows: VLRow[] = [
    { _time: "2026-01-01T00:00:00Z", pod: "a", __c: "2", __v: "NaN" },
    { _time: "2026-01-01T00:01:00Z", pod: "b", __c: "1", __v: "Infinity" },
    { _time: "2026-01-01T00:00:00Z", pod: "b", __c: "3", __v: "-1.5" },
  ];
  const tableOf = (list: VLRow[]) => {
    const table = new StatsTable(["__c", "__v"]);
    for (const row of list) table.add(row);
    return table;
  };
  const rowsOf = (table: StatsTable | undefined) =>
    table && Array.from({ length: table.length }, (_, i) => table.row(i));

  it("keep the rows they were given, non-finite results included, each time and group once", () => {
    const body = encodeChunk(tableOf(rows), [0, 1, 2]);
    expect(body.match(/"pod"/g)).toHaveLength(2);
    expect(rowsOf(decodeChunk(body, ["__c", "__v"]))).toEqual(rows);
    // Some of a table's rows: only theirs.
    expect(rowsOf(decodeChunk(encodeChunk(tableOf(rows), [2]), ["__c", "__v"]))).toEqual([rows[2]]);
  });

  it("are read in the earlier form of the origin's rows as objects", () => {
    expect(rowsOf(decodeChunk(JSON.stringify({ rows }), ["__c", "__v"]))).toEqual(rows);
  });

  it("are a miss when their results are named otherwise, or their indexes point nowhere", () => {
    const body = encodeChunk(tableOf(rows), [0, 1, 2]);
    expect(decodeChunk(body, ["__v"])).toBeUndefined();
    const parsed = JSON.parse(body) as { rows: unknown[] };
    parsed.rows[0] = 7;
    expect(decodeChunk(JSON.stringify(parsed), ["__c", "__v"])).toBeUndefined();
    expect(decodeChunk(JSON.stringify({ ...parsed, rows: [0, 0, 1] }), ["__c", "__v"])).toBeUndefined();
    expect(decodeChunk(JSON.stringify({ ...parsed, rows: [0, 0, "1", 2] }), ["__c", "__v"])).toBeUndefined();
  });

  it("keep each row's texts of a table's text columns (a quantile's lists), absent ones too", () => {
    const listed: VLRow[] = [
      { _time: "2026-01-01T00:00:00Z", pod: "a", __n: "2", __v: '["1.5","2"]' },
      { _time: "2026-01-01T00:00:00Z", pod: "a", __n: "1", __v: "[3]" },
      { _time: "2026-01-01T00:01:00Z", pod: "b", __n: "0" },
    ];
    const table = new StatsTable(["__n"], ["__v"]);
    for (const row of listed) table.add(row);
    const body = encodeChunk(table, [0, 1, 2]);
    // The texts are no group's: one group per pod.
    expect(body.match(/"pod"/g)).toHaveLength(2);
    const decoded = decodeChunk(body, ["__n"], ["__v"]);
    expect(rowsOf(decoded)).toEqual(listed);
    expect(decoded?.groups).toEqual([{ pod: "a" }, { pod: "b" }]);
    expect(decoded && [0, 1, 2].map((i) => decoded.text(i, 0))).toEqual(['["1.5","2"]', "[3]", undefined]);
  });

  it("are a miss when stored with a text as a group's and read as a text column, or the other way round", () => {
    const asGroups = new StatsTable(["__n"]);
    asGroups.add({ _time: "2026-01-01T00:00:00Z", pod: "a", __n: "1", __v: "[3]" });
    const asTexts = new StatsTable(["__n"], ["__v"]);
    asTexts.add({ _time: "2026-01-01T00:00:00Z", pod: "a", __n: "1", __v: "[3]" });
    expect(decodeChunk(encodeChunk(asGroups, [0]), ["__n"], ["__v"])).toBeUndefined();
    expect(decodeChunk(encodeChunk(asTexts, [0]), ["__n"])).toBeUndefined();
    expect(decodeChunk(encodeChunk(asTexts, [0]), ["__n"], ["__w"])).toBeUndefined();
    const parsed = JSON.parse(encodeChunk(asTexts, [0])) as { rows: unknown[] };
    parsed.rows[3] = 3;
    expect(decodeChunk(JSON.stringify(parsed), ["__n"], ["__v"])).toBeUndefined();
  });
});

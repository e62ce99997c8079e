/**
 * An unwrap grouped by labels the rows may hold only in their lines has two plans: one grouped by
 * the rows' fields, which defers (`__bad_label`) when a line gives a grouped label, and one grouped
 * by Loki's values of the labels. The stream index, asked while the first runs, tells when no
 * selected stream has a grouped label: the second plan is then asked at once and the first
 * abandoned. Answers against the real origin are proved in test/worker/unwrap-pushdown.test.ts;
 * here the origin is a double whose first plan answers only when told.
 */
import { describe, expect, it } from "vitest";
import type { CachedOrigin } from "../../../src/cache/cached-origin";
import { type StatsOrigin, timeBucketCache } from "../../../src/cache/extents";
import type { VLRow } from "../../../src/origin/rows";
import type { StatsTable } from "../../../src/origin/stats-table";
import { readStatsAnswer } from "../../../src/origin/stats-answer";
import { runUnwrapPlan, type UnwrapOutcome } from "../../../src/exec/unwrap-pushdown";
import type { UnwrapBucketPlan } from "../../../src/plan/unwrap-pushdown";

const S = 1_000_000_000n;
const MINUTE = 60n * S;
const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString().replace(".000Z", ".000000001Z");

const grid = { start: 1n * MINUTE, end: 2n * MINUTE, step: MINUTE, instant: false };
const buckets = {
  window: { start: 1n, end: 3n * MINUTE + 1n },
  width: MINUTE,
  shift: 1n,
  bucketsPerWindow: 1,
  offset: 0n,
  fn: "sum" as const,
  phi: NaN,
};
/** Grouped by Loki's values of `method`, held in `__v_method`. */
const byParsed: UnwrapBucketPlan = { ...buckets, logsql: "by-parsed", groupBy: ["__v_method"], labels: ["method"] };
const byFields: UnwrapBucketPlan = {
  ...buckets,
  logsql: "by-fields",
  groupBy: ["method"],
  parsedLabels: byParsed,
  streams: [{ name: "app", op: "=", value: "checkout" }],
};

const bucket = (fields: Partial<VLRow>): VLRow => ({
  _time: iso(0n),
  __n: "1",
  __bad: "0",
  __v: "5",
  ...fields,
});

interface Origin {
  /** Stream label names the index answers, or an error. */
  streamLabels: string[] | Error;
  /** The first plan's rows, once `release` is called (never, unless called). */
  byFields: VLRow[];
  byParsed: VLRow[];
}

/** The double, and the plans asked of it (in order) and abandoned. */
function originOf(o: Origin) {
  const asked: string[] = [];
  const abandoned: string[] = [];
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const client = (signal?: AbortSignal): CachedOrigin => {
    const origin = {
      readStatsRows: async (logsql: string, _window: unknown, table: StatsTable, beforeRow?: () => void) => {
        asked.push(logsql);
        if (logsql === "by-fields") {
          await new Promise<void>((resolve, reject) => {
            void released.then(resolve);
            signal?.addEventListener("abort", () => {
              abandoned.push(logsql);
              reject(new DOMException("abandoned", "AbortError"));
            });
          });
        }
        const rows = logsql === "by-fields" ? o.byFields : o.byParsed;
        readStatsAnswer(rows.map((row) => `${JSON.stringify(row)}\n`).join(""), table, beforeRow);
      },
    } as unknown as StatsOrigin;
    return {
      timeBuckets: timeBucketCache(origin, undefined),
      withSignal: (s: AbortSignal) => client(s),
      values: async () => {
        if (o.streamLabels instanceof Error) throw o.streamLabels;
        return { values: o.streamLabels.map((value) => ({ value, hits: 1 })) };
      },
    } as unknown as CachedOrigin;
  };
  return { client: client(), asked, abandoned, release: () => release() };
}

const stats = () => ({ rowsScanned: 0, bytesScanned: 0, subqueries: 0 });

function pointsByMethod(out: UnwrapOutcome): Record<string, number[]> {
  if (!Array.isArray(out)) throw new Error(`declined: ${JSON.stringify(out)}`);
  return Object.fromEntries(out.map((s) => [s.labels["method"], s.points.map((p) => p.v)]));
}

describe("runUnwrapPlan, grouped by labels of the lines", () => {
  it("asks the plan grouped by Loki's values at once when no selected stream has the label", async () => {
    const o = originOf({
      streamLabels: ["app", "cluster"],
      byFields: [bucket({ method: "" })],
      byParsed: [bucket({ __v_method: "GET", __v: "7" })],
    });
    // The first plan never answers on its own: only abandoning it lets the answer come.
    const out = await runUnwrapPlan(o.client, byFields, grid, stats());
    expect(pointsByMethod(out)).toEqual({ GET: [7] });
    expect(o.abandoned).toEqual(["by-fields"]);
  });

  it("keeps the first plan's answer when a selected stream has the label", async () => {
    const o = originOf({
      streamLabels: ["app", "method"],
      byFields: [bucket({ method: "PUT", __v: "3" })],
      byParsed: [bucket({ __v_method: "GET", __v: "7" })],
    });
    const answer = runUnwrapPlan(o.client, byFields, grid, stats());
    o.release();
    expect(pointsByMethod(await answer)).toEqual({ PUT: [3] });
    expect(o.asked).toEqual(["by-fields"]);
    expect(o.abandoned).toEqual([]);
  });

  it("asks the second plan after the first when its rows give the label in their lines", async () => {
    const o = originOf({
      streamLabels: ["app", "method"],
      byFields: [bucket({ method: "", __bad_label: "1" })],
      byParsed: [bucket({ __v_method: "GET", __v: "7" })],
    });
    const answer = runUnwrapPlan(o.client, byFields, grid, stats());
    o.release();
    expect(pointsByMethod(await answer)).toEqual({ GET: [7] });
    expect(o.asked).toEqual(["by-fields", "by-parsed"]);
  });

  it("lets the first plan decide when the stream index fails", async () => {
    const o = originOf({
      streamLabels: new Error("index unavailable"),
      byFields: [bucket({ method: "PUT", __v: "3" })],
      byParsed: [bucket({ __v_method: "GET", __v: "7" })],
    });
    const answer = runUnwrapPlan(o.client, byFields, grid, stats());
    o.release();
    expect(pointsByMethod(await answer)).toEqual({ PUT: [3] });
    expect(o.abandoned).toEqual([]);
  });
});

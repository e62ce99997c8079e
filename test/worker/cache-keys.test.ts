/**
 * A cache key names exactly one query. Queries whose canonical text is the same after Loki's display
 * rounding (`size > 1549B` and `size > 1500B` both print `size>1.5kB`; `vector(0.0000004)` prints
 * `vector(0.000000)`) are different queries with different answers, and each must get its own,
 * with the results cache on, in workerd against the real VictoriaLogs.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { pushStreams } from "../support/push-streams";
import { call } from "./support/request";

const TENANT = "9271:0";
const HOUR_S = 3600;

/**
 * Three hours on the 3-hour step grid, ending 6 to 9 hours ago: the metric queries evaluate once, at
 * END_S, over exactly this range, and the chunk of evaluation times holding END_S ended hours before
 * the freshness horizon, so every piece of every answer is cached.
 */
const STEP_S = 3 * HOUR_S;
const END_S = Math.floor(Date.now() / 1000 / STEP_S) * STEP_S - 2 * STEP_S;
const START_S = END_S - STEP_S;
/** A name no earlier run can have used: the lines below are the only ones the queries can see. */
const APP = `keys-${Date.now().toString(36)}`;

async function ask(path: string, params: Record<string, string>, over: Partial<Env> = {}) {
  // Cache writes run after the response (settle); the next request finds them, as in production.
  const res = await call(path, params, { headers: { "X-Scope-OrgID": TENANT }, env: over, settle: true });
  expect(res.status, res.body).toBe(200);
  return res.json as {
    data: {
      result: { values: [unknown, string][]; stream?: Record<string, string> }[];
      stats: { cache: Record<string, { entriesFound: number }> };
    };
  };
}

const range = (query: string, extra: Record<string, string> = {}, over: Partial<Env> = {}) =>
  ask("/loki/api/v1/query_range", { query, start: String(START_S), end: String(END_S), limit: "100", ...extra }, over);

/** How many cached pieces the answer was built from: a repeated query must be served from the cache. */
const found = (a: Awaited<ReturnType<typeof ask>>) =>
  Object.values(a.data.stats.cache).reduce((n, s) => n + s.entriesFound, 0);

/** The lines of a log answer, sorted. */
const lines = (a: Awaited<ReturnType<typeof ask>>) => a.data.result.flatMap((s) => s.values.map((v) => v[1])).sort();
/** The sample values of a metric answer, in order. */
const samples = (a: Awaited<ReturnType<typeof ask>>) => a.data.result.flatMap((s) => s.values.map((v) => Number(v[1])));

describe("different queries never share a cache key", () => {
  it("pushes the lines the queries count", async () => {
    const at = (s: number, i: number) => String(BigInt(s) * 1_000_000_000n + BigInt(i));
    const middle = START_S + 90 * 60;
    await pushStreams(
      TENANT,
      [
        {
          stream: { app: APP },
          values: [
            [at(middle, 1), "size=1520B msg=small"],
            [at(middle, 2), "size=1600B msg=large"],
          ],
        },
      ],
      async () => {
        const got = lines(await range(`{app="${APP}"}`, {}, { CACHE: "off" }));
        return got.length === 2 || `${got.length} of 2 lines`;
      },
    );
  });

  it("log queries: size > 1549B and size > 1500B each get their own lines", async () => {
    const over1549 = `{app="${APP}"} | logfmt | size > 1549B`;
    const over1500 = `{app="${APP}"} | logfmt | size > 1500B`;
    expect(lines(await range(over1549))).toEqual(["size=1600B msg=large"]);
    expect(lines(await range(over1500))).toEqual(["size=1520B msg=small", "size=1600B msg=large"]);
    // Asked again, now from the cache: still each its own.
    const again = await range(over1549);
    expect(found(again)).toBeGreaterThan(0);
    expect(lines(again)).toEqual(["size=1600B msg=large"]);
    expect(lines(await range(over1500))).toEqual(["size=1520B msg=small", "size=1600B msg=large"]);
  });

  it("metric queries: size > 1549B and size > 1500B each get their own counts", async () => {
    const count = (bytes: string) => `sum(count_over_time({app="${APP}"} | logfmt | size > ${bytes} [3h]))`;
    const at = { step: String(STEP_S) };
    // One evaluation time, END_S: its 3 h range holds both lines.
    expect(samples(await range(count("1549B"), at))).toEqual([1]);
    expect(samples(await range(count("1500B"), at))).toEqual([2]);
    const again = await range(count("1549B"), at);
    expect(found(again)).toBeGreaterThan(0);
    expect(samples(again)).toEqual([1]);
  });

  it("vector(0.0000004) and vector(0.0000003) each get their own product", async () => {
    const times = (v: string) => `sum(count_over_time({app="${APP}"}[3h])) * vector(${v})`;
    const at = { step: String(STEP_S) };
    expect(samples(await range(times("0.0000004"), at))).toEqual([2 * 0.0000004]);
    expect(samples(await range(times("0.0000003"), at))).toEqual([2 * 0.0000003]);
    const again = await range(times("0.0000004"), at);
    expect(found(again)).toBeGreaterThan(0);
    expect(samples(again)).toEqual([2 * 0.0000004]);
  });
});

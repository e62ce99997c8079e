/**
 * A metric query answered by the Worker (in workerd, against the test VictoriaLogs, results cache
 * off) with push-down on or off, and the comparison of the two answers: the push-down tests hold
 * every pushed (or projected) answer equal to local evaluation of the same query.
 */
import { expect } from "vitest";
import { call } from "./request";
import { pushStreams } from "../../support/push-streams";
import type { Env } from "../../../src/config";

export interface MetricAnswer {
  status: number;
  body: string;
  /** Points by the series' sorted label pairs (as JSON). */
  series: Map<string, [number, string][]>;
  /** `totalLinesProcessed` and `totalBytesProcessed`; -1 for an error answer. */
  linesScanned: number;
  bytesScanned: number;
  /** Chunks looked up and stored (`stats.cache.result`), with `cached`. */
  chunks?: { requested: number; stored: number };
}

/**
 * `params` with `step` makes a range query, without it an instant one. `cached` turns the results
 * cache on, and waits for its writes after the answer, as the next request would find them.
 */
export async function askMetric(
  query: string,
  params: Record<string, string>,
  pushdown: boolean,
  headers: Record<string, string> = {},
  cached = false,
  /** More of the Worker's variables (level discovery, ...). */
  vars: Partial<Env> = {},
): Promise<MetricAnswer> {
  const instant = !("step" in params);
  const path = instant ? "/loki/api/v1/query" : "/loki/api/v1/query_range";
  const res = await call(
    path,
    { query, ...params },
    { headers, env: { ...vars, PUSHDOWN: pushdown ? "on" : "off", CACHE: cached ? "on" : "off" }, settle: cached },
  );
  const body = res.body;
  const series = new Map<string, [number, string][]>();
  if (res.status !== 200) return { status: res.status, body, series, linesScanned: -1, bytesScanned: -1 };
  const json = JSON.parse(body);
  for (const s of json.data.result) {
    const key = JSON.stringify(Object.entries(s.metric).sort());
    series.set(key, instant ? [s.value] : s.values);
  }
  const { totalLinesProcessed, totalBytesProcessed } = json.data.stats.summary;
  const result = json.data.stats.cache?.result;
  return {
    status: 200,
    body,
    series,
    linesScanned: totalLinesProcessed,
    bytesScanned: totalBytesProcessed,
    ...(cached && result ? { chunks: { requested: result.entriesRequested, stored: result.entriesStored } } : {}),
  };
}

/**
 * Same status (and error text), same series, same timestamps, and values equal up to `relative`
 * (sums in another order differ in the last places). Non-finite values on both sides count as
 * equal: Inf + −Inf comes out as either side depending on the order series are added in.
 */
export function expectSameAnswer(pushed: MetricAnswer, local: MetricAnswer, query: string, relative = 1e-12): void {
  expect(pushed.status, `${query}: ${pushed.body}`).toBe(local.status);
  if (local.status !== 200) {
    expect(pushed.body, query).toBe(local.body);
    return;
  }
  expect([...pushed.series.keys()].sort(), query).toEqual([...local.series.keys()].sort());
  for (const [key, points] of local.series) {
    const other = pushed.series.get(key)!;
    expect(
      other.map((p) => p[0]),
      `${query} ${key}`,
    ).toEqual(points.map((p) => p[0]));
    other.forEach((p, i) => {
      const a = Number(p[1]);
      const b = Number(points[i]![1]);
      if (!Number.isFinite(a) && !Number.isFinite(b)) return;
      expect(Math.abs(a - b), `${query} ${key} at ${p[0]}: ${a} vs ${b}`).toBeLessThanOrEqual(
        relative * Math.max(1, Math.abs(b)),
      );
    });
  }
}

/** The query answered with push-down on and off, at once; the two answers must be the same. */
export async function pushedAndLocal(
  query: string,
  params: Record<string, string>,
  headers: Record<string, string> = {},
  vars: Partial<Env> = {},
): Promise<{ pushed: MetricAnswer; local: MetricAnswer }> {
  const [pushed, local] = await Promise.all([
    askMetric(query, params, true, headers, false, vars),
    askMetric(query, params, false, headers, false, vars),
  ]);
  expectSameAnswer(pushed, local, query);
  return { pushed, local };
}

/**
 * The property tests' run over generated line sets: each set's queries answered pushed and local
 * at once (pushedAndLocal holds each pair equal), over five minutes from `start` at a 30 s step, or
 * 10 s for every other query. Where `mustPush(set, query)` holds, the query must have been pushed
 * down; the counts say how many were, and how many others fell back to rows, so that a test can
 * check the property was tried both ways.
 */
export async function pushedAcrossSets(
  setCount: number,
  queriesOf: (set: number) => string[],
  mustPush: (set: number, query: string) => boolean,
  start: number,
  headers: Record<string, string>,
  vars: Partial<Env> = {},
): Promise<{ pushedAsRequired: number; fellBack: number }> {
  let pushedAsRequired = 0;
  let fellBack = 0;
  for (let k = 0; k < setCount; k++) {
    const answers = await Promise.all(
      queriesOf(k).map((query, j) =>
        pushedAndLocal(
          query,
          { start: String(start), end: String(start + 300), step: j % 2 ? "10" : "30" },
          headers,
          vars,
        ).then((answer) => ({ ...answer, query })),
      ),
    );
    for (const { pushed, query } of answers) {
      if (mustPush(k, query)) {
        expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
        pushedAsRequired++;
      } else if (pushed.linesScanned > 0) fellBack++;
    }
  }
  return { pushedAsRequired, fellBack };
}

/**
 * Pushes `streams` (each labelled app=`app`) into `tenant`, and waits until the Worker counts every
 * line in the hour that ends half an hour after `at` (unix seconds), where the tests put them.
 */
export async function pushCounted(
  tenant: string,
  app: string,
  streams: { values: unknown[] }[],
  at: number,
  vars: Partial<Env> = {},
): Promise<void> {
  const total = streams.reduce((n, s) => n + s.values.length, 0);
  await pushStreams(tenant, streams, async () => {
    const probe = await askMetric(
      `sum(count_over_time({app="${app}"}[1h]))`,
      { time: String(at + 1800) },
      false,
      { "X-Scope-OrgID": tenant },
      false,
      vars,
    );
    const seen = [...probe.series.values()][0]?.[0]?.[1];
    return seen === String(total) || `saw ${seen ?? "none"} of ${total} lines`;
  });
}

/** Generated lines of one stream: plain and tricky ones, and the name a label holds besides the lines'. */
export interface LineSet {
  plain: readonly string[];
  tricky: readonly string[];
  /** The label as a stream label or as structured metadata of every line. */
  label?: "stream" | "metadata";
}

/**
 * The property tests' sets as streams (app=`app`, set=`s<k>`), pushed with pushCounted: one line
 * every 7 s from `start` (unix seconds), set k shifted by k seconds, so windows hold several and cut
 * sets in between; `labelled` gives the label's value where a set holds it as a stream label or as
 * metadata.
 */
export function lineSetStreams(
  app: string,
  sets: readonly LineSet[],
  start: number,
  labelled: { stream: Record<string, string>; metadata: Record<string, string> },
): { stream: Record<string, string>; values: unknown[] }[] {
  const base = BigInt(start) * 1_000_000_000n;
  return sets.map((set, k) => ({
    stream: { app, set: `s${k}`, ...(set.label === "stream" ? labelled.stream : {}) },
    values: [...set.plain, ...set.tricky].map((line, i) => {
      const ts = String(base + BigInt(i * 7 + k) * 1_000_000_000n);
      return set.label === "metadata" ? [ts, line, labelled.metadata] : [ts, line];
    }),
  }));
}

/**
 * An instant answer as `name=value,…` (labels sorted) → the sample's value; an empty object for no
 * series. For tests whose expected answers are worked out by hand.
 */
export async function labelledValues(
  query: string,
  at: Record<string, string>,
  pushdown: boolean,
  headers: Record<string, string>,
): Promise<Record<string, string>> {
  const res = await askMetric(query, at, pushdown, headers);
  expect(res.status, `${query}: ${res.body}`).toBe(200);
  const out: Record<string, string> = {};
  for (const [key, points] of res.series) {
    const labels = (JSON.parse(key) as [string, string][]).map(([k, v]) => `${k}=${v}`).join(",");
    out[labels] = points[0]![1];
  }
  return out;
}

/** labelledValues with push-down off and on, each equal to `expected`. */
export async function expectLabelledValues(
  query: string,
  at: Record<string, string>,
  headers: Record<string, string>,
  expected: Record<string, string>,
): Promise<void> {
  for (const pushdown of [false, true]) {
    expect(await labelledValues(query, at, pushdown, headers), `${query} (pushdown ${pushdown})`).toEqual(expected);
  }
}

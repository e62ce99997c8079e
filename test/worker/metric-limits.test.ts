/**
 * The limits that bound what a metric query or volume_range holds while it reads, over the compat
 * dataset: Loki's `max_query_series` on the answer's series, and the Worker's MAX_METRIC_POINTS
 * budget on everything else (inner series, window accumulators, kept samples, bucket rows). Each is
 * set per request; `| json` over api-gateway's lines makes nearly every line its own series (their
 * client_ip, bytes and latency differ). Aggregations that fold into the windows hold only their
 * groups, so they answer under limits their inner series exceed, with the values of an evaluation
 * that does not fold (`* 1` keeps the inner series apart) under the default limits.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { call } from "./support/request";

const RANGE = { start: "1769904000", end: "1769925600" };

interface Answer {
  status: number;
  body: string;
  /** Points by the series' sorted label pairs (as JSON). */
  series: Map<string, [number, string][]>;
}

async function ask(path: string, params: Record<string, string>, vars: Partial<Env> = {}): Promise<Answer> {
  const res = await call(
    `/loki/api/v1/${path}`,
    { ...RANGE, ...params },
    {
      // The push-down computes some of these at the origin: off, so that the Worker evaluates them.
      env: { CACHE: "off", PUSHDOWN: "off", ...vars },
    },
  );
  const body = res.body;
  const series = new Map<string, [number, string][]>();
  if (res.status === 200) {
    for (const s of JSON.parse(body).data.result) series.set(JSON.stringify(Object.entries(s.metric).sort()), s.values);
  }
  return { status: res.status, body, series };
}

const seriesLimit = (n: number) =>
  `maximum number of series (${n}) reached for a single query; consider reducing query cardinality by adding more specific stream selectors, reducing the time range, or aggregating results with functions like sum(), count() or topk()`;
const pointsLimit = (n: number) =>
  `maximum number of points held in memory (${n}) reached for a single query; consider reducing query cardinality by adding more specific stream selectors or grouping by fewer labels, reducing the time range, or increasing the step (the limit is the Worker's MAX_METRIC_POINTS)`;

const INNER = '{app="api-gateway"} | json';

describe("max_query_series", () => {
  it("a range aggregation with more series than the limit is Loki's 400", async () => {
    const r = await ask(
      "query_range",
      { query: `count_over_time(${INNER} [1h])`, step: "300" },
      { MAX_QUERY_SERIES: "50" },
    );
    expect(r.status, r.body).toBe(400);
    expect(r.body).toBe(seriesLimit(50));
    // ... as with the default limit: thousands of series.
    const d = await ask("query_range", { query: `count_over_time(${INNER} [1h])`, step: "300" });
    expect(d.status, d.body).toBe(400);
    expect(d.body).toBe(seriesLimit(500));
  });

  it.each([
    [`sum by (level) (count_over_time(${INNER} [1h]))`, `sum by (level) (count_over_time(${INNER} [1h]) * 1)`],
    [
      `max by (level) (max_over_time(${INNER} | unwrap latency_ms [5m]) by (client_ip, level))`,
      `max by (level) (max_over_time(${INNER} | unwrap latency_ms [5m]) by (client_ip, level) * 1)`,
    ],
    [
      `max by (level) (max_over_time(${INNER} | unwrap latency_ms [1h]))`,
      `max by (level) (max_over_time(${INNER} | unwrap latency_ms [1h]) * 1)`,
    ],
    [
      `min by (method) (min_over_time(${INNER} | unwrap latency_ms [30m]))`,
      `min by (method) (min_over_time(${INNER} | unwrap latency_ms [30m]) * 1)`,
    ],
  ])("%s holds only its groups: answered under a limit its inner series exceed", async (query, unfolded) => {
    const limits = { MAX_QUERY_SERIES: "5", MAX_METRIC_POINTS: "2000" };
    const folded = await ask("query_range", { query, step: "300" }, limits);
    const reference = await ask("query_range", { query: unfolded, step: "300" });
    // Holding the inner series apart does not fit in those limits.
    expect((await ask("query_range", { query: unfolded, step: "300" }, limits)).body).toBe(pointsLimit(2000));
    expect(reference.status, reference.body).toBe(200);
    expect(folded.status, folded.body).toBe(200);
    expect(folded.series.size).toBeGreaterThan(0);
    expect(folded.series.size).toBeLessThanOrEqual(5);
    expect([...folded.series.keys()].sort()).toEqual([...reference.series.keys()].sort());
    for (const [key, points] of reference.series) expect(folded.series.get(key), `${query} ${key}`).toEqual(points);
  });
});

describe("MAX_METRIC_POINTS", () => {
  it("an aggregation that cannot fold stops at the budget with a 400 naming it", async () => {
    const query = `max by (level) (count_over_time(${INNER} [1h]))`;
    const r = await ask("query_range", { query, step: "300" }, { MAX_METRIC_POINTS: "5000" });
    expect(r.status, r.body).toBe(400);
    expect(r.body).toBe(pointsLimit(5000));
    // The same query under the default budget is answered.
    expect((await ask("query_range", { query, step: "300" })).status).toBe(200);
  });

  it("quantile windows count the samples they keep", async () => {
    const query = `quantile_over_time(0.9, ${INNER} | unwrap latency_ms [1h]) by (level)`;
    const r = await ask("query_range", { query, step: "60" }, { MAX_METRIC_POINTS: "1000" });
    expect(r.status, r.body).toBe(400);
    expect(r.body).toBe(pointsLimit(1000));
    const d = await ask("query_range", { query, step: "60" });
    expect(d.status, d.body).toBe(200);
  });

  it("a push-down reads at most a quarter of the budget in bucket rows", async () => {
    const query = 'sum by (pod) (count_over_time({app=~".+"}[1m]))';
    const r = await ask("query_range", { query, step: "60" }, { PUSHDOWN: "on", MAX_METRIC_POINTS: "400" });
    expect(r.status, r.body).toBe(400);
    expect(r.body).toBe(pointsLimit(400));
    const d = await ask("query_range", { query, step: "60" }, { PUSHDOWN: "on" });
    expect(d.status, d.body).toBe(200);
  });

  it("volume_range reads at most a quarter of the budget in bucket rows", async () => {
    const params = { query: '{app=~".+"}', targetLabels: "pod", step: "60" };
    const r = await ask("index/volume_range", params, { MAX_METRIC_POINTS: "4000" });
    expect(r.status, r.body).toBe(400);
    expect(r.body).toBe(pointsLimit(4000));
    const d = await ask("index/volume_range", params);
    expect(d.status, d.body).toBe(200);
    expect(d.series.size).toBeGreaterThan(0);
  });
});

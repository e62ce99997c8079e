/**
 * Logs Drilldown past `max_query_series`, over the compat dataset, as Loki answers it: a request
 * tagged `X-Query-Tags: Source=grafana-lokiexplore-app` gets 200 with at most the limit's series,
 * each with exactly the values it has in the whole answer, and Loki's warning in the answer's
 * `warnings` (between `status` and `data`); any other request gets the 400. The limit is set low
 * per request; the whole answer is the untagged one under a limit it does not reach.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { call } from "./support/request";
import { watchOrigin } from "../support/watch-origin";
import { readConfig } from "../../src/config";

const RANGE = { start: "1769904000", end: "1769925600" };
const DRILLDOWN = { "X-Query-Tags": "Source=grafana-lokiexplore-app" };
const LIMIT = 40;

interface Answer {
  status: number;
  body: string;
  warnings?: unknown;
  /** The keys of the answer's top-level object, in order. */
  keys: string[];
  /** Points (or the one value of an instant vector) by the series' sorted label pairs (as JSON). */
  series: Map<string, unknown>;
}

async function ask(
  path: string,
  params: Record<string, string>,
  vars: Partial<Env> = {},
  headers: Record<string, string> = {},
): Promise<Answer> {
  // Cache writes run after the answer (settle): the next request finds them, as in production.
  const res = await call(`/loki/api/v1/${path}`, { ...RANGE, ...params }, { headers, env: vars, settle: true });
  const body = res.body;
  const series = new Map<string, unknown>();
  let keys: string[] = [];
  let warnings: unknown;
  if (res.status === 200) {
    const json = JSON.parse(body);
    keys = Object.keys(json);
    warnings = json.warnings;
    for (const s of json.data.result)
      series.set(JSON.stringify(Object.entries(s.metric ?? s.stream).sort()), s.values ?? s.value);
  }
  return { status: res.status, body, warnings, keys, series };
}

const seriesLimit = (n: number) =>
  `maximum number of series (${n}) reached for a single query; consider reducing query cardinality by adding more specific stream selectors, reducing the time range, or aggregating results with functions like sum(), count() or topk()`;
const partialWarning = (n: number) =>
  `maximum number of series (${n}) reached for a single query; returning partial results`;

/** The tagged answer is `limit` series of the whole answer, each with its whole values. */
function expectPartialOf(part: Answer, whole: Answer, limit: number): void {
  expect(part.status, part.body).toBe(200);
  expect(part.warnings).toEqual([partialWarning(limit)]);
  expect(part.keys).toEqual(["status", "warnings", "data"]);
  expect(whole.series.size).toBeGreaterThan(limit);
  expect(part.series.size).toBe(limit);
  for (const [labels, values] of part.series) expect(values, labels).toEqual(whole.series.get(labels));
}

const INNER = '{app="api-gateway"} | json';
/** `trace_id` is structured metadata, one value per line: the origin counts it (push-down). */
const TRACES = '{app="api-gateway"}';
const SHAPES: [string, string][] = [
  ["a breakdown by structured metadata", `sum by (trace_id) (count_over_time(${TRACES} [5m]))`],
  ["a rate breakdown", `sum by (trace_id, level) (rate(${TRACES} [10m]))`],
  ["a breakdown by a parsed field", `sum by (client_ip) (count_over_time(${INNER} [5m]))`],
  ["a range aggregation's own series", `count_over_time(${INNER} | keep client_ip [30m])`],
  ["series the answer builds step by step", `sum by (client_ip) (count_over_time(${INNER} [5m])) * 2`],
  ["an unwrap breakdown", `max by (client_ip) (max_over_time(${INNER} | unwrap latency_ms [10m]))`],
];

describe.each([
  ["evaluated by the Worker", { CACHE: "off", PUSHDOWN: "off" }],
  ["with the push-down", { CACHE: "off" }],
] as [string, Partial<Env>][])("Logs Drilldown past max_query_series, %s", (_, vars) => {
  it.each(SHAPES)("range query, %s: the partial answer with Loki's warning; untagged, the 400", async (_n, query) => {
    const params = { query, step: "300" };
    const whole = await ask("query_range", params, { ...vars, MAX_QUERY_SERIES: "100000" });
    expect(whole.status, whole.body).toBe(200);
    expect(whole.warnings).toBeUndefined();
    const part = await ask("query_range", params, { ...vars, MAX_QUERY_SERIES: String(LIMIT) }, DRILLDOWN);
    expectPartialOf(part, whole, LIMIT);
    const refused = await ask("query_range", params, { ...vars, MAX_QUERY_SERIES: String(LIMIT) });
    expect(refused.status, refused.body).toBe(400);
    expect(refused.body).toBe(seriesLimit(LIMIT));
  });

  it("instant query: the partial vector with Loki's warning; untagged, the 400", async () => {
    const params = { query: `sum by (client_ip) (count_over_time(${INNER} [6h]))`, time: RANGE.end };
    const whole = await ask("query", params, { ...vars, MAX_QUERY_SERIES: "100000" });
    expect(whole.status, whole.body).toBe(200);
    const part = await ask("query", params, { ...vars, MAX_QUERY_SERIES: String(LIMIT) }, DRILLDOWN);
    expectPartialOf(part, whole, LIMIT);
    const refused = await ask("query", params, { ...vars, MAX_QUERY_SERIES: String(LIMIT) });
    expect(refused.status, refused.body).toBe(400);
    expect(refused.body).toBe(seriesLimit(LIMIT));
  });

  it("under the limit, a tagged answer is the whole answer, without warnings", async () => {
    const params = { query: `sum by (level) (count_over_time(${INNER} [5m]))`, step: "300" };
    const untagged = await ask("query_range", params, { ...vars, MAX_QUERY_SERIES: String(LIMIT) });
    const tagged = await ask("query_range", params, { ...vars, MAX_QUERY_SERIES: String(LIMIT) }, DRILLDOWN);
    expect(tagged.status, tagged.body).toBe(200);
    expect(tagged.keys).toEqual(["status", "data"]);
    expect(tagged.series).toEqual(untagged.series);
  });
});

describe("the X-Query-Tags header, read as Loki reads it", () => {
  const query = `sum by (client_ip) (count_over_time(${INNER} [5m]))`;
  it.each([
    ["Source=grafana-lokiexplore-app,Feature=breakdown", 200],
    ["source=GRAFANA-LOKIEXPLORE-APP", 200],
    ["Feature=x,Source=grafana-lokiexplore-app", 200],
    ["Source=grafana", 400],
    ["Source=grafana-lokiexplore-app/x", 400],
    ["grafana-lokiexplore-app", 400],
    // Loki trims neither keys nor values: a space after the comma is part of the key.
    ["Feature=x, Source=grafana-lokiexplore-app", 400],
  ])("%s → %i", async (tags, status) => {
    const r = await ask(
      "query_range",
      { query, step: "300" },
      { CACHE: "off", PUSHDOWN: "off", MAX_QUERY_SERIES: String(LIMIT) },
      { "X-Query-Tags": tags },
    );
    expect(r.status, r.body).toBe(status);
  });
});

describe("the results cache and partial answers", () => {
  // Each test asks its own query (a distinct step), so that what an earlier test stored is not found.
  it("a tagged partial answer leaves nothing an untagged request reads as whole", async () => {
    const params = { query: `sum by (client_ip) (count_over_time(${INNER} [5m]))`, step: "600" };
    const uncachedWhole = await ask("query_range", params, { CACHE: "off", MAX_QUERY_SERIES: "100000" });
    const part = await ask("query_range", params, { MAX_QUERY_SERIES: String(LIMIT) }, DRILLDOWN);
    expectPartialOf(part, uncachedWhole, LIMIT);
    const again = await ask("query_range", params, { MAX_QUERY_SERIES: String(LIMIT) }, DRILLDOWN);
    expectPartialOf(again, uncachedWhole, LIMIT);
    const refused = await ask("query_range", params, { MAX_QUERY_SERIES: String(LIMIT) });
    expect(refused.status, refused.body).toBe(400);
    expect(refused.body).toBe(seriesLimit(LIMIT));
    const whole = await ask("query_range", params, { MAX_QUERY_SERIES: "100000" });
    expect(whole.warnings).toBeUndefined();
    expect(whole.series).toEqual(uncachedWhole.series);
  });

  it("chunks a whole answer stored give a tagged request its partial answer, exact", async () => {
    const params = { query: `sum by (client_ip) (count_over_time(${INNER} [5m]))`, step: "900" };
    const whole = await ask("query_range", params, { MAX_QUERY_SERIES: "100000" });
    expect(whole.status, whole.body).toBe(200);
    const part = await ask("query_range", params, { MAX_QUERY_SERIES: String(LIMIT) }, DRILLDOWN);
    expectPartialOf(part, whole, LIMIT);
    const refused = await ask("query_range", params, { MAX_QUERY_SERIES: String(LIMIT) });
    expect(refused.status, refused.body).toBe(400);
  });
});

describe("a pushed-down breakdown past the limit", () => {
  it("has the origin pick the groups first, then count only those", async () => {
    const params = { query: `sum by (trace_id) (count_over_time(${TRACES} [5m]))`, step: "300" };
    const whole = await ask("query_range", params, { CACHE: "off", MAX_QUERY_SERIES: "100000" });
    const calls = watchOrigin(readConfig(env as Env).originUrl);
    const part = await ask("query_range", params, { CACHE: "off", MAX_QUERY_SERIES: String(LIMIT) }, DRILLDOWN);
    expectPartialOf(part, whole, LIMIT);
    const picks = calls.filter((c) => c.query.includes("stats by (trace_id) count() as __c"));
    expect(picks).toHaveLength(1);
    expect(picks[0]!.query).toContain(`| limit ${LIMIT + 1}`);
    const counts = calls.filter((c) => c.query.includes("| stats by (_time:"));
    expect(counts.length).toBeGreaterThan(0);
    // Each bucket query names exactly the groups answered, so it returns rows of no other group.
    for (const c of counts) {
      expect(c.query.match(/trace_id:=/g)).toHaveLength(LIMIT);
      for (const labels of part.series.keys()) expect(c.query).toContain(JSON.parse(labels)[0][1]);
    }
  });
});

describe("Loki's internal streams (__aggregated_metric__, __pattern__)", () => {
  // A label no stream has matches `!="x"` on every stream: Loki still answers other clients nothing.
  const tagged = { CACHE: "off" } as Partial<Env>;
  it.each([
    ["query_range", { query: '{app="api-gateway", __pattern__!="x"}', limit: "5" }],
    ["query_range", { query: 'count_over_time({app="api-gateway", __aggregated_metric__!="x"} [1h])', step: "3600" }],
    [
      "query_range",
      { query: 'sum(count_over_time({app="api-gateway", __aggregated_metric__!="x"} [1h]))', step: "3600" },
    ],
    ["query", { query: 'sum(count_over_time({app="api-gateway", __pattern__=~".*"} [6h]))', time: RANGE.end }],
  ])("%s %j: Logs Drilldown reads them, other clients get nothing", async (path, params) => {
    const drilldown = await ask(path, params, tagged, DRILLDOWN);
    expect(drilldown.status, drilldown.body).toBe(200);
    const rows = JSON.parse(drilldown.body).data.result;
    expect(rows.length).toBeGreaterThan(0);
    const other = await ask(path, params, tagged);
    expect(other.status, other.body).toBe(200);
    expect(JSON.parse(other.body).data.result).toEqual([]);
  });
});

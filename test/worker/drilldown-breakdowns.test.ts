/**
 * Logs Drilldown breakdowns past `max_query_series`, pushed down, computed from the groups they
 * answer only: for every pushed kind (parser, level, guarded unwrap, plain buckets) and for scalar
 * operations over one, the tagged answer holds exactly the limit's series, each with the values it
 * has in the whole answer evaluated by the Worker from rows (PUSHDOWN=off, no limit reached), with
 * Loki's warning; the origin was asked for the buckets of those groups only. A row the parser's
 * guard voids an answer for, in any group, sends the breakdown back to the whole computation.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { readConfig } from "../../src/config";
import { DEFAULT_SERVICE_NAME_LABELS } from "../../src/engine/derived-fields";
import { askMetric, pushCounted, type MetricAnswer } from "./support/metric-answers";
import { watchOrigin, type OriginCall } from "../support/watch-origin";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const TENANT = "30:1";
const DRILLDOWN = { "X-Scope-OrgID": TENANT, "X-Query-Tags": "Source=grafana-lokiexplore-app" };
const UNTAGGED = { "X-Scope-OrgID": TENANT };
const LIMIT = 10;
const RANGE = { start: String(DATA_START), end: String(DATA_START + 1800), step: "300" };
const DISCOVERY: Partial<Env> = {
  DISCOVER_LOG_LEVELS: "true",
  DISCOVER_SERVICE_NAME: DEFAULT_SERVICE_NAME_LABELS.join(","),
};

const PODS = 30;
const LEVELS = ["info", "error", "warn"];
const pad = (n: number) => String(n).padStart(3, "0");

/**
 * 600 JSON lines (45 trace ids, 30 pods, a span id per line as structured metadata) and 600
 * logfmt lines (40 client addresses), over the first half hour; and, in app `ddbad`, the same JSON
 * lines and one with a `\u` escape in a key, which the parser's guard cannot prove Loki reads alike.
 */
function streams(): { stream: Record<string, string>; values: unknown[] }[] {
  const out = new Map<string, { stream: Record<string, string>; values: unknown[] }>();
  const add = (stream: Record<string, string>, value: unknown[]) => {
    const key = JSON.stringify(stream);
    let s = out.get(key);
    if (!s) out.set(key, (s = { stream, values: [] }));
    s.values.push(value);
  };
  for (let i = 0; i < 600; i++) {
    const ts = `${DATA_START + i * 3}000000000`;
    const pod = `pod-${pad(i % PODS)}`;
    const level = LEVELS[i % 3]!;
    const json = JSON.stringify({ level, trace_id: `t-${pad((i * 7) % 45)}`, latency_ms: (i % 17) + 1 });
    add({ app: "ddgen", fmt: "json", pod }, [ts, json, { span_id: `s-${pad(i % 50)}` }]);
    add({ app: "ddbad", fmt: "json", pod }, [ts, json]);
    add({ app: "ddgen", fmt: "logfmt", pod }, [ts, `level=${level} client_ip=10.1.0.${i % 40} latency_ms=${i % 9}`]);
  }
  add({ app: "ddbad", fmt: "json", pod: "pod-999" }, [
    `${DATA_START + 1}000000000`,
    '{"trace_id":"t-zzz","no\\u0074e":"caf\\u00e9"}',
  ]);
  return [...out.values()];
}

/** The answer of the Worker evaluating from rows, with no limit reached. */
const whole = (query: string, params: Record<string, string>, vars: Partial<Env> = {}) =>
  askMetric(query, params, false, UNTAGGED, false, { ...vars, MAX_QUERY_SERIES: "100000" });

/** The tagged answer with push-down on and the limit low, and the origin requests it made. */
async function tagged(
  query: string,
  params: Record<string, string>,
  vars: Partial<Env> = {},
): Promise<{ part: MetricAnswer; calls: OriginCall[]; warnings: unknown }> {
  const calls = watchOrigin(readConfig(env as Env).originUrl);
  const part = await askMetric(query, params, true, DRILLDOWN, false, { ...vars, MAX_QUERY_SERIES: String(LIMIT) });
  const warnings = part.status === 200 ? JSON.parse(part.body).warnings : undefined;
  return { part, calls: [...calls], warnings };
}

/** `limit` series of the whole answer, each with its values, and Loki's warning. */
function expectPartialOf(part: MetricAnswer, warnings: unknown, all: MetricAnswer, query: string): void {
  expect(part.status, part.body).toBe(200);
  expect(warnings, query).toEqual([
    `maximum number of series (${LIMIT}) reached for a single query; returning partial results`,
  ]);
  expect(all.status, all.body).toBe(200);
  expect(all.series.size, query).toBeGreaterThan(LIMIT);
  expect(part.series.size, query).toBe(LIMIT);
  for (const [labels, points] of part.series) {
    const expected = all.series.get(labels);
    expect(expected, `${query} ${labels}`).toBeDefined();
    expect(
      points.map((p) => p[0]),
      `${query} ${labels}`,
    ).toEqual(expected!.map((p) => p[0]));
    // An average's sum is added in another order by the origin: equal up to float rounding.
    points.forEach((p, i) => {
      const want = Number(expected![i]![1]);
      expect(Math.abs(Number(p[1]) - want), `${query} ${labels} at ${p[0]}`).toBeLessThanOrEqual(
        1e-12 * Math.max(1, Math.abs(want)),
      );
    });
  }
}

/** The origin's bucket queries: each names exactly `LIMIT` groups by `field`, the answer's. */
function expectBucketsOfKeptGroups(calls: OriginCall[], field: string, part: MetricAnswer, label: string): void {
  const buckets = calls.filter((c) => c.query.includes("| stats by (_time:"));
  expect(buckets.length).toBeGreaterThan(0);
  const kept = [...part.series.keys()].map((k) => (JSON.parse(k) as [string, string][]).find(([n]) => n === label)![1]);
  for (const c of buckets) {
    const named = [...c.query.matchAll(new RegExp(`\\(${field}:="([^"]*)"\\)`, "g"))].map((m) => m[1]!);
    expect(named).toHaveLength(LIMIT);
    for (const value of kept) expect(named).toContain(value);
  }
}

beforeAll(async () => {
  await pushCounted(
    TENANT,
    "ddgen",
    streams().filter((s) => s.stream.app === "ddgen"),
    DATA_START,
  );
  await pushCounted(
    TENANT,
    "ddbad",
    streams().filter((s) => s.stream.app === "ddbad"),
    DATA_START,
  );
}, 120_000);

describe("Drilldown breakdowns past the limit, group-first", () => {
  it.each([
    [
      "a JSON field (the parser push-down)",
      'sum by (trace_id) (count_over_time({app="ddgen", fmt="json"} | json | drop __error__, __error_details__ | trace_id!="" [5m]))',
      // Grouped and filtered: grouped by a copy of the value (the empty-value mark's, parser-pushdown.ts).
      "__g_trace_id",
      "trace_id",
    ],
    [
      "a logfmt field (the parser push-down)",
      'sum by (client_ip) (count_over_time({app="ddgen", fmt="logfmt"} | logfmt | drop __error__, __error_details__ | client_ip!="" [5m]))',
      "__v_client_ip",
      "client_ip",
    ],
    [
      "structured metadata under an unwrap sum (the guarded unwrap push-down)",
      'sum by (span_id) (sum_over_time({app="ddgen", fmt="json"} | json | unwrap latency_ms [5m]))',
      "span_id",
      "span_id",
    ],
    [
      "a stream label under an unwrap average",
      'avg_over_time({app="ddgen", fmt="json"} | json | unwrap latency_ms [5m]) by (pod)',
      "pod",
      "pod",
    ],
    [
      "a JSON field, divided by a scalar",
      'sum by (trace_id) (count_over_time({app="ddgen", fmt="json"} | json | drop __error__ | trace_id!="" [5m])) / 60',
      "__g_trace_id",
      "trace_id",
    ],
    [
      "a structured metadata field, as Drilldown asks for it (the bucket push-down)",
      'sum by (span_id) (count_over_time({app="ddgen", fmt="json"} | span_id!="" [5m]))',
      "span_id",
      "span_id",
    ],
    ["a stream label, times a scalar", 'sum by (pod) (count_over_time({app="ddgen"} [5m])) * 2', "pod", "pod"],
    [
      "a JSON field compared with a scalar under bool",
      'sum by (trace_id) (count_over_time({app="ddgen", fmt="json"} | json | drop __error__ [5m])) > bool 2',
      "__v_trace_id",
      "trace_id",
    ],
  ])("range query, %s: the limit's series, exact, from their groups' buckets only", async (_, query, field, label) => {
    const all = await whole(query, RANGE);
    const { part, calls, warnings } = await tagged(query, RANGE);
    expectPartialOf(part, warnings, all, query);
    expect(part.linesScanned, query).toBe(0);
    expectBucketsOfKeptGroups(calls, field, part, label);
    const picks = calls.filter((c) => c.query.includes(`| limit ${LIMIT + 1}`));
    expect(picks).toHaveLength(1);
  });

  it("level push-down by a label and the level: series of the limit's label values, exact", async () => {
    const query = 'sum by (pod, detected_level) (count_over_time({app="ddgen"} [5m]))';
    const all = await whole(query, RANGE, DISCOVERY);
    const { part, calls, warnings } = await tagged(query, RANGE, DISCOVERY);
    expectPartialOf(part, warnings, all, query);
    expect(part.linesScanned, query).toBe(0);
    const buckets = calls.filter((c) => c.query.includes("| stats by (_time:"));
    expect(buckets.length).toBeGreaterThan(0);
    for (const c of buckets) expect(c.query.match(/pod:="/g)).toHaveLength(LIMIT);
  });

  it("instant query: the same path", async () => {
    const query =
      'sum by (trace_id) (count_over_time({app="ddgen", fmt="json"} | json | drop __error__, __error_details__ | trace_id!="" [1h]))';
    const params = { time: String(DATA_START + 1800) };
    const all = await whole(query, params);
    const { part, calls, warnings } = await tagged(query, params);
    expectPartialOf(part, warnings, all, query);
    expect(part.linesScanned, query).toBe(0);
    expectBucketsOfKeptGroups(calls, "__g_trace_id", part, "trace_id");
  });

  it("untagged, the 400 as before", async () => {
    const query = 'sum by (trace_id) (count_over_time({app="ddgen", fmt="json"} | json | drop __error__ [5m])) / 60';
    const refused = await askMetric(query, RANGE, true, UNTAGGED, false, { MAX_QUERY_SERIES: String(LIMIT) });
    expect(refused.status, refused.body).toBe(400);
  });

  it("a row the parser's guard voids the answer for, in a group not kept: no restricted count, the answer exact", async () => {
    const query =
      'sum by (trace_id) (count_over_time({app="ddbad", fmt="json"} | json | drop __error__, __error_details__ | trace_id!="" [5m]))';
    const all = await whole(query, RANGE);
    const { part, calls, warnings } = await tagged(query, RANGE);
    expectPartialOf(part, warnings, all, query);
    // The group query saw the guard's row: the lines were read instead.
    expect(part.linesScanned, query).toBeGreaterThan(0);
    expect(calls.filter((c) => c.query.includes("| filter (__g_trace_id:="))).toHaveLength(0);
  });

  it.each([
    [
      "parsed",
      'sum by (trace_id) (count_over_time({app="ddgen", fmt="json"} | json | drop __error__, __error_details__ | trace_id!="" [10s]))',
    ],
    ["structured metadata", 'sum by (span_id) (count_over_time({app="ddgen", fmt="json"} [45s]))'],
  ])(
    "a step longer than the range, where a kept group may have no sample (%s): still the limit's series, exact",
    async (_, query) => {
      // Each value is on lines 135 s or 150 s apart: a window of seconds every 5 min misses most of them.
      const all = await whole(query, RANGE);
      const { part, warnings } = await tagged(query, RANGE);
      expectPartialOf(part, warnings, all, query);
    },
  );

  it("with the results cache: a tagged partial answer leaves nothing an untagged request reads as whole", async () => {
    const query =
      'sum by (trace_id) (count_over_time({app="ddgen", fmt="json"} | json | drop __error__, __error_details__ | trace_id!="" [5m]))';
    const params = { ...RANGE, step: "600" };
    const all = await whole(query, params);
    const limit = { MAX_QUERY_SERIES: String(LIMIT) };
    for (let i = 0; i < 2; i++) {
      const part = await askMetric(query, params, true, DRILLDOWN, true, limit);
      expectPartialOf(part, JSON.parse(part.body).warnings, all, query);
    }
    const refused = await askMetric(query, params, true, UNTAGGED, true, limit);
    expect(refused.status, refused.body).toBe(400);
    const cachedWhole = await askMetric(query, params, true, UNTAGGED, true, { MAX_QUERY_SERIES: "100000" });
    expect(JSON.parse(cachedWhole.body).warnings).toBeUndefined();
    expect(cachedWhole.series).toEqual(all.series);
  });

  it("a comparison that drops series is not restricted: the limit's series of the whole answer", async () => {
    const query = 'sum by (trace_id) (count_over_time({app="ddgen", fmt="json"} | json | drop __error__ [5m])) > 2';
    const all = await whole(query, RANGE);
    const { part, calls, warnings } = await tagged(query, RANGE);
    expectPartialOf(part, warnings, all, query);
    expect(calls.filter((c) => c.query.includes(`| limit ${LIMIT + 1}`))).toHaveLength(0);
  });
});

/**
 * Loki API behaviour Grafana and logcli depend on at the edges of the surface: entry limits on
 * metric queries, `series` without matchers, volume buckets and aggregation by label, and the
 * ruler's read API. Data is pushed into a tenant of its own so each answer is worked out by hand
 * from the lines below, following the rules of Loki's own handlers.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { pushStreams } from "../support/push-streams";
import { call as callWorker } from "./support/request";

const TENANT = "7:5";
const T = 1769990400; // 2026-02-02T00:00:00Z, a multiple of 30 min
const at = (s: number) => String(BigInt(T + s) * 1_000_000_000n);

// Line lengths are the byte volumes: web 4+8+2 and 6+4, db 1+13.
const STREAMS = [
  {
    stream: { app: "web", env: "prod", team: "a" },
    values: [
      [at(10), "aaaa"],
      [at(1805), "bbbbbbbb"],
      [at(3601), "cc"],
    ],
  },
  {
    stream: { app: "web", env: "dev" },
    values: [
      [at(20), "dddddd"],
      [at(3700), "eeee"],
    ],
  },
  {
    stream: { app: "db", env: "prod", team: "b" },
    values: [
      [at(30), "f"],
      [at(1900), "ggggggggggggg"],
    ],
  },
];
const ALL_SERIES = STREAMS.map((s) => s.stream);

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

async function call(path: string, params: Record<string, string | string[]> = {}): Promise<Answer> {
  const res = await callWorker(path, params, { headers: { "X-Scope-OrgID": TENANT }, env: { CACHE: "off" } });
  return { status: res.status, type: res.headers.get("Content-Type"), body: res.body };
}

function data(a: Answer): unknown {
  expect(a.status, a.body).toBe(200);
  return (JSON.parse(a.body) as { data: unknown }).data;
}

function expectError(a: Answer, status: number, message: string): void {
  expect(a.status, a.body).toBe(status);
  expect(a.type).toBe("text/plain; charset=utf-8");
  expect(a.body).toBe(message);
}

const sortSets = (sets: unknown) =>
  (sets as Record<string, string>[]).map((s) => JSON.stringify(Object.entries(s).sort())).sort();

const ALL = { query: '{app=~".+"}', start: String(T), end: String(T + 5400) };

beforeAll(async () => {
  await pushStreams(TENANT, STREAMS, async () => {
    const series = await call("/loki/api/v1/series", { "match[]": '{app=~".+"}', ...ALL });
    const volume = await call("/loki/api/v1/index/volume", ALL);
    return (
      (series.status === 200 && sortSets(data(series)).length === 3 && volume.body.includes('"24"')) || series.body
    );
  });
});

describe("entry limit", () => {
  it("does not apply to metric queries, which Grafana sends with its max lines as limit", async () => {
    const instant = await call("/loki/api/v1/query", {
      query: 'sum(count_over_time({app=~".+"}[2h]))',
      time: String(T + 5400),
      limit: "10000",
    });
    expect(data(instant)).toMatchObject({ resultType: "vector", result: [{ metric: {}, value: [T + 5400, "7"] }] });
    const range = await call("/loki/api/v1/query_range", {
      query: 'sum by (app) (count_over_time({app=~".+"}[30m]))',
      start: String(T + 1800),
      end: String(T + 3600),
      step: "1800",
      limit: "10000",
    });
    expect(data(range)).toMatchObject({
      resultType: "matrix",
      result: [
        {
          metric: { app: "db" },
          values: [
            [T + 1800, "1"],
            [T + 3600, "1"],
          ],
        },
        {
          metric: { app: "web" },
          values: [
            [T + 1800, "2"],
            [T + 3600, "1"],
          ],
        },
      ],
    });
  });

  it("still caps log queries with Loki's message, and a non-positive limit fails for every query", async () => {
    const logs = await call("/loki/api/v1/query_range", { ...ALL, limit: "10000" });
    expectError(logs, 400, "max entries limit per query exceeded, limit > max_entries_limit_per_query (10000 > 5000)");
    const metric = await call("/loki/api/v1/query_range", {
      ...ALL,
      query: 'count_over_time({app="web"}[1h])',
      limit: "0",
    });
    expectError(metric, 400, "limit must be a positive value");
  });
});

describe("series", () => {
  it("lists every stream when no matcher is given, or only `{}` (logcli series '{}')", async () => {
    const range = { start: ALL.start, end: ALL.end };
    for (const params of [range, { ...range, "match[]": "{}" }, { ...range, match: "{ }" }]) {
      expect(sortSets(data(await call("/loki/api/v1/series", params)))).toEqual(sortSets(ALL_SERIES));
    }
  });

  it("still rejects `{}` among other matchers, as Loki's matcher parser does", async () => {
    const a = await call("/loki/api/v1/series", { ...ALL, "match[]": ["{}", '{app="db"}'] });
    expect(a.status).toBe(400);
  });
});

describe("index/volume_range", () => {
  it("buckets on the step grid from start and stamps each bucket's end (grid line − 1 ms, or end)", async () => {
    const a = data(await call("/loki/api/v1/index/volume_range", { ...ALL, step: "1800" }));
    expect(a).toMatchObject({
      resultType: "matrix",
      result: [
        {
          metric: { app: "web" },
          values: [
            [T + 1799.999, "10"],
            [T + 3599.999, "8"],
            [T + 5400, "6"],
          ],
        },
        {
          metric: { app: "db" },
          values: [
            [T + 1799.999, "1"],
            [T + 3599.999, "13"],
          ],
        },
      ],
    });
  });

  it("starts the first bucket at start, not on the grid", async () => {
    const a = data(await call("/loki/api/v1/index/volume_range", { ...ALL, start: String(T + 15), step: "1800" }));
    const web = (a as { result: { metric: { app: string }; values: unknown[] }[] }).result.find(
      (s) => s.metric.app === "web",
    );
    expect(web?.values[0]).toEqual([T + 1799.999, "6"]);
  });

  it("keeps the top `limit` groups of each bucket and orders series by their first sample", async () => {
    const a = data(await call("/loki/api/v1/index/volume_range", { ...ALL, step: "1800", limit: "1" }));
    expect(a).toMatchObject({
      resultType: "matrix",
      result: [
        { metric: { app: "db" }, values: [[T + 3599.999, "13"]] },
        {
          metric: { app: "web" },
          values: [
            [T + 1799.999, "10"],
            [T + 5400, "6"],
          ],
        },
      ],
    });
  });

  it("answers a vector when no series has more than one sample", async () => {
    const a = data(await call("/loki/api/v1/index/volume_range", { ...ALL, step: "5400" }));
    expect(a).toMatchObject({
      resultType: "vector",
      result: [
        { metric: { app: "web" }, value: [T + 5400, "24"] },
        { metric: { app: "db" }, value: [T + 5400, "14"] },
      ],
    });
  });
});

describe("index/volume aggregation", () => {
  it("aggregateBy=labels counts each stream once per label name", async () => {
    const a = data(await call("/loki/api/v1/index/volume", { ...ALL, aggregateBy: "labels" }));
    expect(a).toMatchObject({
      resultType: "vector",
      result: [
        { metric: { app: "" }, value: [T + 5400, "38"] },
        { metric: { env: "" }, value: [T + 5400, "38"] },
        { metric: { team: "" }, value: [T + 5400, "28"] },
      ],
    });
  });

  it("target labels keep only streams that carry them, by labels and by series", async () => {
    const byLabels = data(
      await call("/loki/api/v1/index/volume", { ...ALL, aggregateBy: "labels", targetLabels: "team" }),
    );
    expect(byLabels).toMatchObject({ result: [{ metric: { team: "" }, value: [T + 5400, "28"] }] });
    const bySeries = data(await call("/loki/api/v1/index/volume", { ...ALL, targetLabels: "team" }));
    expect(bySeries).toMatchObject({
      result: [
        { metric: { team: "a" }, value: [T + 5400, "14"] },
        { metric: { team: "b" }, value: [T + 5400, "14"] },
      ],
    });
  });

  it("volume_range by labels", async () => {
    const a = data(
      await call("/loki/api/v1/index/volume_range", {
        ...ALL,
        step: "1800",
        aggregateBy: "labels",
        targetLabels: "team",
      }),
    );
    expect(a).toMatchObject({
      resultType: "matrix",
      result: [
        {
          metric: { team: "" },
          values: [
            [T + 1799.999, "5"],
            [T + 3599.999, "21"],
            [T + 5400, "2"],
          ],
        },
      ],
    });
  });

  it("rejects what Loki rejects: an unknown aggregation, a negative limit", async () => {
    expectError(
      await call("/loki/api/v1/index/volume", { ...ALL, aggregateBy: "pods" }),
      400,
      "invalid aggregation option",
    );
    expectError(
      await call("/loki/api/v1/index/volume_range", { ...ALL, limit: "-1" }),
      400,
      "limit must be a positive value",
    );
  });
});

describe("ruler read API", () => {
  it("answers as a Loki without rule groups", async () => {
    for (const path of ["/prometheus/api/v1/rules", "/prometheus/api/v1/rules?type=alert"]) {
      const [p, q] = path.split("?");
      const a = await call(p!, Object.fromEntries(new URLSearchParams(q ?? "")));
      expect(a.status).toBe(200);
      expect(a.type).toBe("application/json");
      expect(a.body).toBe('{"status":"success","data":{"groups":[]},"errorType":"","error":""}');
    }
    const alerts = await call("/prometheus/api/v1/alerts");
    expect(alerts.body).toBe('{"status":"success","data":{"alerts":[]},"errorType":"","error":""}');
    for (const path of ["/loki/api/v1/rules", "/loki/api/v1/rules/ns", "/api/prom/rules"]) {
      expectError(await call(path), 404, "no rule groups found\n");
    }
    expectError(await call("/loki/api/v1/rules/ns/group"), 404, "group does not exist\n");
  });

  it("rejects an unknown rule type with the Prometheus API error", async () => {
    const a = await call("/prometheus/api/v1/rules", { type: "x" });
    expect(a.status).toBe(400);
    expect(a.body).toBe('{"status":"error","data":null,"errorType":"bad_data","error":"not supported value \\"x\\""}');
  });
});

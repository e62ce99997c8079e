/**
 * `detected_level` and `service_name` derived at query time as Loki's distributor adds them at
 * ingest, against a real VictoriaLogs holding lines pushed without either. Each expected answer is
 * worked out from the lines below by Loki's rules (test/unit/engine/derived-fields.test.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { pushStreams } from "../support/push-streams";
import type { Env } from "../../src/config";
import { call as callWorker } from "./support/request";

const TENANT = "7:6";
const T = 1769990400; // 2026-02-02T00:00:00Z
const at = (s: number) => String(BigInt(T + s) * 1_000_000_000n);

const STREAMS = [
  {
    // service_name from `app`; levels from logfmt, JSON, nothing, and the earliest level word.
    stream: { app: "shop", env: "prod" },
    values: [
      [at(10), 'level=error msg="payment failed"'],
      [at(20), '{"level":"WARN","msg":"slow"}'],
      [at(30), "GET /index.html 200"],
      [at(40), "panic: fatal error in worker"],
    ],
  },
  // service_name from `job`; the level from the stream's `level` label.
  { stream: { job: "batch", level: "debug" }, values: [[at(50), "starting"]] },
  {
    // No label to name the service: unknown_service. Levels from the OTel severity number and
    // from an existing detected_level, normalised.
    stream: { team: "x" },
    values: [
      [at(60), "something happened", { severity_number: "17" }],
      [at(70), "something else", { detected_level: "WARNING" }],
    ],
  },
  // A real service_name is kept.
  { stream: { service_name: "real", app: "other" }, values: [[at(80), "info: started"]] },
];

const ON: Partial<Env> = { DISCOVER_LOG_LEVELS: "true", DISCOVER_SERVICE_NAME: undefined };

interface Answer {
  status: number;
  body: string;
}

async function call(
  path: string,
  params: Record<string, string>,
  opts: { env?: Partial<Env>; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await callWorker(path, params, {
    headers: { "X-Scope-OrgID": TENANT, ...opts.headers },
    env: { CACHE: "off", ...(opts.env ?? ON) },
  });
  return { status: res.status, body: res.body };
}

function data(a: Answer): any {
  expect(a.status, a.body).toBe(200);
  return JSON.parse(a.body).data;
}

const W = { start: String(T), end: String(T + 3600) };
const key = (m: Record<string, string>) => JSON.stringify(Object.entries(m).sort());

function vectorOf(a: Answer): Record<string, string> {
  return Object.fromEntries(data(a).result.map((s: any) => [key(s.metric), s.value[1]]));
}

function lines(a: Answer): string[] {
  return data(a)
    .result.flatMap((s: any) => s.values.map((v: string[]) => v[1]))
    .sort();
}

beforeAll(async () => {
  await pushStreams(TENANT, STREAMS, async () => {
    const a = await call("/loki/api/v1/query_range", { ...W, query: '{service_name=~".+"}', limit: "100" });
    return (a.status === 200 && lines(a).length === 8) || a.body;
  });
});

describe("detected_level", () => {
  it("groups Grafana's logs volume query as Loki would", async () => {
    const query = 'sum by (level, detected_level) (count_over_time({service_name=~".+"} | drop __error__ [1h]))';
    for (const PUSHDOWN of ["on", "off"]) {
      const a = await call("/loki/api/v1/query", { query, time: String(T + 3600) }, { env: { ...ON, PUSHDOWN } });
      expect(vectorOf(a)).toEqual({
        [key({ detected_level: "error" })]: "2",
        [key({ detected_level: "warn" })]: "2",
        [key({ detected_level: "unknown" })]: "1",
        [key({ detected_level: "fatal" })]: "1",
        [key({ detected_level: "info" })]: "1",
        [key({ level: "debug", detected_level: "debug" })]: "1",
      });
    }
  });

  it("is a label of every series of a metric query that keeps its labels", async () => {
    const a = await call("/loki/api/v1/query", {
      query: 'count_over_time({service_name="shop"}[1h])',
      time: String(T + 3600),
    });
    const base = { app: "shop", env: "prod", service_name: "shop" };
    expect(vectorOf(a)).toEqual({
      [key({ ...base, detected_level: "error" })]: "1",
      [key({ ...base, detected_level: "warn" })]: "1",
      [key({ ...base, detected_level: "unknown" })]: "1",
      [key({ ...base, detected_level: "fatal" })]: "1",
    });
  });

  it("filters like Logs Drilldown's level filter, also for levels the line does not spell", async () => {
    const error = await call("/loki/api/v1/query_range", {
      ...W,
      query: '{service_name="shop"} | detected_level="error"',
    });
    expect(lines(error)).toEqual(['level=error msg="payment failed"']);
    const debug = await call("/loki/api/v1/query_range", {
      ...W,
      query: '{service_name="batch"} | detected_level="debug"',
    });
    expect(lines(debug)).toEqual(["starting"]);
  });

  it("is structured metadata of each entry when labels are categorized", async () => {
    const a = await call(
      "/loki/api/v1/query_range",
      { ...W, query: '{service_name="unknown_service"}' },
      { headers: { "X-Loki-Response-Encoding-Flags": "categorize-labels" } },
    );
    const meta = data(a).result.flatMap((s: any) => s.values.map((v: any[]) => v[2].structuredMetadata));
    expect(meta.map((m: Record<string, string>) => m.detected_level).sort()).toEqual(["error", "warn"]);
    expect(data(a).result.every((s: any) => s.stream.service_name === "unknown_service")).toBe(true);
  });
});

describe("detected_level added to the answer's entries only", () => {
  it("equals detected_level read from every row", async () => {
    const levels = async (query: string) => {
      const a = await call(
        "/loki/api/v1/query_range",
        { ...W, query },
        { headers: { "X-Loki-Response-Encoding-Flags": "categorize-labels" } },
      );
      return data(a)
        .result.flatMap((s: any) => s.values.map((v: any[]) => `${v[1]} ${v[2].structuredMetadata.detected_level}`))
        .sort();
    };
    // Line filters and parsers let the level wait; a filter on the level needs it on every row.
    const early = await levels('{service_name=~".+"} | detected_level=~".+"');
    expect(early).toHaveLength(8);
    for (const stages of ['!= "zzz"', "| json", '| logfmt | drop level | msg!="x"', "| decolorize | unpack"]) {
      expect(await levels(`{service_name=~".+"} ${stages}`), stages).toEqual(early);
    }
  });
});

describe("service_name", () => {
  it("selects streams by their derived name, and by their own name only when they have one", async () => {
    expect(lines(await call("/loki/api/v1/query_range", { ...W, query: '{service_name="batch"}' }))).toEqual([
      "starting",
    ]);
    expect(lines(await call("/loki/api/v1/query_range", { ...W, query: '{service_name="real"}' }))).toEqual([
      "info: started",
    ]);
    expect(lines(await call("/loki/api/v1/query_range", { ...W, query: '{service_name="other"}' }))).toEqual([]);
    expect(
      lines(await call("/loki/api/v1/query_range", { ...W, query: '{service_name=~"sh.*", env="prod"}' })),
    ).toHaveLength(4);
  });

  it("is a label of every stream: labels, values and series", async () => {
    expect(data(await call("/loki/api/v1/labels", W))).toContain("service_name");
    expect(data(await call("/loki/api/v1/label/service_name/values", W))).toEqual([
      "batch",
      "real",
      "shop",
      "unknown_service",
    ]);
    expect(data(await call("/loki/api/v1/series", { ...W, "match[]": '{service_name="shop"}' }))).toEqual([
      { app: "shop", env: "prod", service_name: "shop" },
    ]);
  });

  it("groups Logs Drilldown's service volume", async () => {
    const a = await call("/loki/api/v1/index/volume", { ...W, query: '{service_name=~".+"}', limit: "5000" });
    const bytes = (xs: string[]) => String(xs.reduce((n, l) => n + l.length, 0));
    expect(vectorOf(a)).toEqual({
      [key({ service_name: "shop" })]: bytes(STREAMS[0]!.values.map((v) => v[1] as string)),
      [key({ service_name: "batch" })]: bytes(["starting"]),
      [key({ service_name: "unknown_service" })]: bytes(["something happened", "something else"]),
      [key({ service_name: "real" })]: bytes(["info: started"]),
    });
  });

  it("is not derived with discovery off, as in a Loki configured so", async () => {
    const off = { DISCOVER_LOG_LEVELS: "false", DISCOVER_SERVICE_NAME: "" };
    const a = await call("/loki/api/v1/query_range", { ...W, query: '{service_name="shop"}' }, { env: off });
    expect(lines(a)).toEqual([]);
    expect(data(await call("/loki/api/v1/label/service_name/values", W, { env: off }))).toEqual(["real"]);
  });
});

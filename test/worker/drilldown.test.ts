/**
 * The Logs Drilldown endpoints against a real VictoriaLogs, on data pushed into a tenant of its own
 * so every expected answer can be worked out by hand from the lines below.
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { pushStreams } from "../support/push-streams";
import type { Env } from "../../src/config";
import { fetchWorker } from "./support/request";

const TENANT = "7:3";
const T = 1769990400; // 2026-02-02T00:00:00Z
const at = (s: number) => String(BigInt(T + s) * 1_000_000_000n);
const WINDOW = { start: String(T), end: String(T + 3600) };
const UUIDS = [
  "123e4567-e89b-12d3-a456-426614174001",
  "123e4567-e89b-12d3-a456-426614174002",
  "123e4567-e89b-12d3-a456-426614174003",
];

// Stream labels exercise the detected_labels rule: `instance` is numeric but static (kept), `build`
// is all numbers (dropped), `flag` is 0/1 (kept), `req` is all UUIDs (dropped), `__stream_shard__`
// is internal (dropped).
const STREAMS = [
  {
    stream: {
      app: "shop",
      env: "prod",
      service_name: "shop",
      instance: "1",
      build: "101",
      flag: "0",
      req: UUIDS[0],
      __stream_shard__: "0",
    },
    values: [
      [
        at(1),
        'level=info msg="order placed" status=200 duration=15ms size=1.5KiB ok=true ratio=0.25',
        { trace_id: "a1" },
      ],
      [at(2), "level=error msg=failed status=500 duration=2s size=10KB ok=false ratio=1", { trace_id: "a2" }],
    ],
  },
  {
    stream: {
      app: "shop",
      env: "dev",
      service_name: "shop",
      instance: "2",
      build: "102",
      flag: "1",
      req: UUIDS[1],
      __stream_shard__: "1",
    },
    values: [
      [
        at(3),
        '{"level":"info","status":200,"user":{"id":7,"name":"ann"},"user-agent":"curl","app":"x"}',
        { trace_id: "b1" },
      ],
      [
        at(4),
        '{"level":"warn","status":404,"user":{"id":8},"latency":0.5}',
        { trace_id: "b2", detected_level: "warn" },
      ],
    ],
  },
  {
    stream: { app: "shop", env: "dev", service_name: "shop", instance: "3", build: "103", flag: "1", req: UUIDS[2] },
    values: [[at(5), "GET /index.html"]],
  },
  { stream: { app: "other", env: "test", service_name: "other" }, values: [[at(6), "other line"]] },
];

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

async function call(
  path: string,
  params: Record<string, string>,
  opts: { method?: "GET" | "POST"; headers?: Record<string, string>; env?: Partial<Env> } = {},
): Promise<Answer> {
  const headers = { "X-Scope-OrgID": TENANT, ...opts.headers };
  // Cache off: an answer cached before the new streams became searchable would stay empty.
  const env = { CACHE: "off", ...opts.env };
  const res =
    opts.method === "POST"
      ? await fetchWorker(
          path,
          {},
          {
            method: "POST",
            body: new URLSearchParams(params).toString(),
            headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
            env,
          },
        )
      : await fetchWorker(path, params, { headers, env });
  return { status: res.status, type: res.headers.get("Content-Type"), body: await res.text() };
}

const shop = { ...WINDOW, query: '{app="shop"}' };
const JSON_TYPE = "application/json; charset=UTF-8";

function expectJson(a: Answer, body: string): void {
  expect(a.status, a.body).toBe(200);
  expect(a.type).toBe(JSON_TYPE);
  expect(a.body).toBe(body);
}

function expectError(a: Answer, status: number, message: string): void {
  expect(a.status, a.body).toBe(status);
  expect(a.type).toBe("text/plain; charset=utf-8");
  expect(a.body).toBe(message);
}

const ALL_SHOP_FIELDS =
  '{"fields":[' +
  '{"label":"app_extracted","type":"string","cardinality":1,"parsers":["json"],"jsonPath":["app"]},' +
  '{"label":"detected_level","type":"string","cardinality":1,"parsers":null},' +
  '{"label":"duration","type":"duration","cardinality":2,"parsers":["logfmt"]},' +
  '{"label":"latency","type":"float","cardinality":1,"parsers":["json"],"jsonPath":["latency"]},' +
  '{"label":"level","type":"string","cardinality":3,"parsers":["json","logfmt"],"jsonPath":["level"]},' +
  '{"label":"msg","type":"string","cardinality":2,"parsers":["logfmt"]},' +
  '{"label":"ok","type":"boolean","cardinality":2,"parsers":["logfmt"]},' +
  '{"label":"ratio","type":"float","cardinality":2,"parsers":["logfmt"]},' +
  '{"label":"size","type":"bytes","cardinality":2,"parsers":["logfmt"]},' +
  '{"label":"status","type":"int","cardinality":3,"parsers":["json","logfmt"],"jsonPath":["status"]},' +
  '{"label":"trace_id","type":"string","cardinality":4,"parsers":null},' +
  '{"label":"user_agent","type":"string","cardinality":1,"parsers":["json"],"jsonPath":["user-agent"]},' +
  '{"label":"user_id","type":"int","cardinality":2,"parsers":["json"],"jsonPath":["user","id"]},' +
  '{"label":"user_name","type":"string","cardinality":1,"parsers":["json"],"jsonPath":["user","name"]}' +
  '],"limit":1000}\n';

const SHOP_LABELS =
  '{"detectedLabels":[{"label":"instance","cardinality":3},{"label":"env","cardinality":2},' +
  '{"label":"flag","cardinality":2},{"label":"app","cardinality":1},{"label":"service_name","cardinality":1}]}\n';

beforeAll(async () => {
  // Both the stream index and the rows must answer in full.
  await pushStreams(TENANT, STREAMS, async () => {
    const labels = await call("/loki/api/v1/detected_labels", shop);
    const fields = await call("/loki/api/v1/detected_fields", shop);
    return (labels.body === SHOP_LABELS && fields.body === ALL_SHOP_FIELDS) || `${labels.body}\n${fields.body}`;
  });
});

describe("detected_labels", () => {
  it("reports the selected streams' useful labels with their value counts, most values first", async () => {
    expectJson(await call("/loki/api/v1/detected_labels", shop), SHOP_LABELS);
  });

  it("leaves out labels the origin does hold: IDs and the internal shard label", async () => {
    const res = await fetch(`${inject("originUrl")}/select/logsql/stream_field_names`, {
      method: "POST",
      headers: { AccountID: "7", ProjectID: "3", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ query: '{app="shop"}', start: WINDOW.start, end: WINDOW.end }),
    });
    const names = ((await res.json()) as { values: { value: string }[] }).values.map((v) => v.value);
    expect(names).toEqual(expect.arrayContaining(["__stream_shard__", "build", "req"]));
    const answer = await call("/loki/api/v1/detected_labels", shop);
    for (const dropped of ["__stream_shard__", "build", "req"]) expect(answer.body).not.toContain(`"${dropped}"`);
  });

  it("looks at every stream without a query", async () => {
    expectJson(
      await call("/loki/api/v1/detected_labels", WINDOW),
      '{"detectedLabels":[{"label":"env","cardinality":3},{"label":"instance","cardinality":3},' +
        '{"label":"app","cardinality":2},{"label":"flag","cardinality":2},{"label":"service_name","cardinality":2}]}\n',
    );
  });

  it("keeps a static label with one numeric value but drops a non-static one", async () => {
    // instance="1" is kept (static), build="101" dropped (an ID), flag="0" kept (a flag).
    expectJson(
      await call("/loki/api/v1/detected_labels", { ...WINDOW, query: '{env="prod"}' }, { method: "POST" }),
      '{"detectedLabels":[{"label":"app","cardinality":1},{"label":"env","cardinality":1},' +
        '{"label":"flag","cardinality":1},{"label":"instance","cardinality":1},{"label":"service_name","cardinality":1}]}\n',
    );
  });

  it("answers {} when nothing matches", async () => {
    expectJson(await call("/loki/api/v1/detected_labels", { ...WINDOW, query: '{app="nope"}' }), "{}\n");
  });

  it("refuses pipelines and bad times with Loki's messages", async () => {
    expectError(
      await call("/loki/api/v1/detected_labels", { ...shop, query: '{app="shop"} |= "x"' }),
      400,
      "only label matchers are supported",
    );
    expectError(
      await call("/loki/api/v1/detected_labels", { ...shop, start: "yesterday" }),
      400,
      `could not parse 'start' parameter: strconv.ParseInt: parsing "yesterday": invalid syntax`,
    );
    expectError(
      await call("/loki/api/v1/detected_labels", { ...shop, start: WINDOW.end, end: WINDOW.start }),
      400,
      "end timestamp must not be before or equal to start time",
    );
  });
});

describe("detected_fields", () => {
  it("detects metadata, json and logfmt fields on the newest lines (GET and POST)", async () => {
    expectJson(await call("/loki/api/v1/detected_fields", shop), ALL_SHOP_FIELDS);
    expectJson(await call("/loki/api/v1/detected_fields", shop, { method: "POST" }), ALL_SHOP_FIELDS);
  });

  it("examines only line_limit lines, the newest", async () => {
    // The two newest lines: "GET /index.html" (no fields) and the warn json line.
    expectJson(
      await call("/loki/api/v1/detected_fields", { ...shop, line_limit: "2" }),
      '{"fields":[' +
        '{"label":"detected_level","type":"string","cardinality":1,"parsers":null},' +
        '{"label":"latency","type":"float","cardinality":1,"parsers":["json"],"jsonPath":["latency"]},' +
        '{"label":"level","type":"string","cardinality":1,"parsers":["json"],"jsonPath":["level"]},' +
        '{"label":"status","type":"int","cardinality":1,"parsers":["json"],"jsonPath":["status"]},' +
        '{"label":"trace_id","type":"string","cardinality":1,"parsers":null},' +
        '{"label":"user_id","type":"int","cardinality":1,"parsers":["json"],"jsonPath":["user","id"]}' +
        '],"limit":1000}\n',
    );
  });

  it("reports at most `limit` fields, the first met (field_limit is the older name)", async () => {
    const three =
      '{"fields":[' +
      '{"label":"detected_level","type":"string","cardinality":1,"parsers":null},' +
      '{"label":"level","type":"string","cardinality":3,"parsers":["json","logfmt"],"jsonPath":["level"]},' +
      '{"label":"trace_id","type":"string","cardinality":4,"parsers":null}' +
      '],"limit":3}\n';
    expectJson(await call("/loki/api/v1/detected_fields", { ...shop, limit: "3" }), three);
    expectJson(await call("/loki/api/v1/detected_fields", { ...shop, field_limit: "3" }), three);
  });

  it("runs the query's pipeline first: only lines it keeps count, its labels are fields", async () => {
    // Only `status=500` survives; the json lines give logfmt nothing, so they are dropped too.
    expectJson(
      await call("/loki/api/v1/detected_fields", { ...shop, query: '{app="shop"} | logfmt | status="500"' }),
      '{"fields":[' +
        '{"label":"duration","type":"duration","cardinality":1,"parsers":["logfmt"]},' +
        '{"label":"level","type":"string","cardinality":1,"parsers":["logfmt"]},' +
        '{"label":"msg","type":"string","cardinality":1,"parsers":["logfmt"]},' +
        '{"label":"ok","type":"boolean","cardinality":1,"parsers":["logfmt"]},' +
        '{"label":"ratio","type":"int","cardinality":1,"parsers":["logfmt"]},' +
        '{"label":"size","type":"bytes","cardinality":1,"parsers":["logfmt"]},' +
        '{"label":"status","type":"int","cardinality":1,"parsers":["logfmt"]},' +
        '{"label":"trace_id","type":"string","cardinality":1,"parsers":null}' +
        '],"limit":1000}\n',
    );
  });

  it("answers {} when no line matches", async () => {
    expectJson(
      await call("/loki/api/v1/detected_fields", { ...shop, query: '{app="shop"} |= "no such text"' }),
      "{}\n",
    );
  });

  it("refuses bad parameters with Loki's messages", async () => {
    const path = "/loki/api/v1/detected_fields";
    expectError(await call(path, WINDOW), 400, "parse error : syntax error: unexpected $end");
    expectError(
      await call(path, { ...shop, query: 'count_over_time({app="shop"}[1m])' }),
      400,
      "only log selector is supported",
    );
    expectError(
      await call(path, { ...shop, query: '{app=~".*"}' }),
      400,
      'parse error : queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will',
    );
    expectError(await call(path, { ...shop, line_limit: "0" }), 400, "limit must be a positive value");
    expectError(
      await call(path, { ...shop, line_limit: "7000" }),
      400,
      "max entries limit per query exceeded, limit > max_entries_limit_per_query (7000 > 5000)",
    );
    expectError(await call(path, { ...shop, limit: "ten" }), 400, 'strconv.Atoi: parsing "ten": invalid syntax');
    expectError(
      await call(path, { ...shop, start: "yesterday" }),
      400,
      `could not parse 'start' parameter: strconv.ParseInt: parsing "yesterday": invalid syntax`,
    );
    expectError(
      await call(path, { ...shop, start: WINDOW.end, end: WINDOW.start }),
      400,
      "end timestamp must not be before or equal to start time",
    );
  });
});

describe("detected_field/{name}/values", () => {
  const values = (name: string, extra: Record<string, string> = {}, method: "GET" | "POST" = "GET") =>
    call(`/loki/api/v1/detected_field/${encodeURIComponent(name)}/values`, { ...shop, ...extra }, { method });

  it("lists a field's distinct values, newest first, from lines and metadata", async () => {
    expectJson(await values("status"), '{"limit":1000,"values":["404","200","500"]}\n');
    expectJson(await values("trace_id", {}, "POST"), '{"limit":1000,"values":["b2","b1","a2","a1"]}\n');
    expectJson(await values("user_id"), '{"limit":1000,"values":["8","7"]}\n');
  });

  it("prints byte sizes as LogQL does, stops at the limit, and answers {} for an unknown field", async () => {
    expectJson(await values("size"), '{"limit":1000,"values":["10kB","1.5kB"]}\n');
    expectJson(await values("trace_id", { limit: "2" }), '{"limit":2,"values":["b2","b1"]}\n');
    expectJson(await values("nope"), "{}\n");
  });

  it("checks its parameters like detected_fields", async () => {
    expectError(await values("status", { query: "" }), 400, "parse error : syntax error: unexpected $end");
    expectError(await values("status", { line_limit: "-1" }), 400, "limit must be a positive value");
  });
});

describe("patterns", () => {
  const path = "/loki/api/v1/patterns";

  it("mines the selector's lines (GET and POST); lines it cannot mine are left out", async () => {
    // The two logfmt lines differ in a leading word (level), so each is a pattern of its own; the JSON
    // lines have no message field and "GET /index.html" has too few tokens. No line has a
    // detected_level that the shop's logfmt lines could be filed under, so their level is unknown.
    const body =
      `{"status":"success","data":[` +
      `{"pattern":"level=error msg=failed status=500 duration=2s size=10KB ok=false ratio=1","level":"unknown","samples":[[${T},1]]},` +
      `{"pattern":"level=info msg=\\"order placed\\" status=200 duration=15ms size=1.5KiB ok=true ratio=0.25","level":"unknown","samples":[[${T},1]]}` +
      `]}\n`;
    expectJson(await call(path, { ...shop, step: "60s" }), body);
    expectJson(await call(path, { ...shop, step: "60" }, { method: "POST" }), body);
    // Loki's patterns endpoint has no end-before-start check: an empty range finds nothing.
    expectJson(await call(path, { ...shop, start: WINDOW.end, end: WINDOW.start }), '{"status":"success","data":[]}\n');
  });

  it("still refuses bad input with Loki's messages", async () => {
    expectError(await call(path, WINDOW), 400, "parse error : syntax error: unexpected $end");
    expectError(
      await call(path, { ...shop, query: '{app="shop"' }),
      400,
      "parse error at line 1, col 12: syntax error: unexpected $end, expecting } or ,",
    );
    expectError(await call(path, { ...shop, query: '{app="shop"} |= "x"' }), 400, "only label matchers are supported");
    expectError(
      await call(path, { ...shop, end: "soon" }),
      400,
      `could not parse 'end' parameter: strconv.ParseInt: parsing "soon": invalid syntax`,
    );
    expectError(
      await call(path, { ...shop, step: "0" }),
      400,
      "zero or negative query resolution step widths are not accepted. Try a positive integer",
    );
    expectError(
      await call(path, { ...shop, step: "0.1" }),
      400,
      "exceeded maximum resolution of 11,000 points per time series. Try increasing the value of the step parameter",
    );
  });
});

describe("drilldown-limits", () => {
  const path = "/loki/api/v1/drilldown-limits";
  // Loki's defaults, as a Loki main-65e30f8 answers them: the Worker derives the same fields.
  const LOKI_SERVICE_LABELS =
    '["service","app","application","app_name","name","app_kubernetes_io_name","container",' +
    '"container_name","k8s_container_name","component","workload","job","k8s_job_name"]';
  const LOKI_LEVEL_FIELDS =
    '["level","LEVEL","Level","log.level","severity","SEVERITY","Severity","SeverityText","lvl","LVL",' +
    '"Lvl","severity_text","Severity_Text","SEVERITY_TEXT"]';
  const limits = (o: {
    levels: boolean;
    services: string;
    entries: number;
    length: string;
    series: number;
    timeout: string;
  }) =>
    `{"limits":{"discover_log_levels":${o.levels},"discover_service_name":${o.services},` +
    `"log_level_fields":${LOKI_LEVEL_FIELDS},` +
    `"max_entries_limit_per_query":${o.entries},"max_line_size_truncate":false,"max_query_bytes_read":"0B",` +
    `"max_query_length":"${o.length}","max_query_lookback":"0s","max_query_range":"0s","max_query_series":${o.series},` +
    `"metric_aggregation_enabled":false,"otlp_config":{"resource_attributes":{"attributes_config":[]}},` +
    `"pattern_persistence_enabled":false,"query_timeout":"${o.timeout}","retention_period":"0s",` +
    `"volume_enabled":true,"volume_max_series":1000},"pattern_ingester_enabled":true,"version":"3.5.0"}\n`;
  // The test bindings turn discovery off (the compat corpus' Loki ran without it): unset, the
  // Worker's defaults apply.
  const DEFAULTS: Partial<Env> = {
    DISCOVER_LOG_LEVELS: undefined,
    DISCOVER_SERVICE_NAME: undefined,
    MAX_QUERY_LENGTH: undefined,
    MAX_ENTRIES_LIMIT: undefined,
    MAX_QUERY_SERIES: undefined,
  };

  it("reports the configuration in force by default: discovery on, 721h (Loki's 30d1h), for the default tenant too", async () => {
    // The test bindings set ORIGIN_TIMEOUT_MS to 30000.
    const expected = limits({
      levels: true,
      services: LOKI_SERVICE_LABELS,
      entries: 5000,
      length: "30d1h",
      series: 500,
      timeout: "30s",
    });
    // The single-tenant default serves tenant 0:0 to a request that names none.
    const a = await call(path, {}, { headers: { "X-Scope-OrgID": "" }, env: { ...DEFAULTS, TENANCY: undefined } });
    expect(a.status).toBe(200);
    expect(a.type).toBe("application/json");
    expect(a.body).toBe(expected);
    expect((await call(path, {}, { env: DEFAULTS })).body).toBe(expected);
  });

  it("follows every setting it reports", async () => {
    const a = await call(
      path,
      {},
      {
        env: {
          MAX_ENTRIES_LIMIT: "7000",
          MAX_QUERY_SERIES: "50",
          ORIGIN_TIMEOUT_MS: "90000",
          MAX_QUERY_LENGTH: "36h",
          DISCOVER_LOG_LEVELS: "off",
          DISCOVER_SERVICE_NAME: "svc, app",
        },
      },
    );
    expect(a.body).toBe(
      limits({
        levels: false,
        services: '["svc","app"]',
        entries: 7000,
        length: "1d12h",
        series: 50,
        timeout: "1m30s",
      }),
    );
    // MAX_QUERY_LENGTH=0 and DISCOVER_SERVICE_NAME="" turn the limit and the derivation off.
    const off = await call(path, {}, { env: { ...DEFAULTS, MAX_QUERY_LENGTH: "0", DISCOVER_SERVICE_NAME: "" } });
    expect(off.body).toBe(
      limits({ levels: true, services: "[]", entries: 5000, length: "0s", series: 500, timeout: "30s" }),
    );
  });

  it("treats tenants as every other route does, and is GET only", async () => {
    expect((await call(path, {}, { headers: { "X-Scope-OrgID": "team-x" } })).status).toBe(401);
    expect(
      (await call(path, {}, { headers: { "X-Scope-OrgID": "team-x" }, env: { TENANT_MAP: '{"team-x":"7:3"}' } }))
        .status,
    ).toBe(200);
    expectError(await call(path, {}, { method: "POST" }), 404, "404 page not found\n");
  });
});

/**
 * Fuzzing the HTTP surface inside workerd against the real origin: queries from the compat corpus
 * (and Loki's own LogQL corpus when ../shared is present), mutated, with hostile parameters, sent to
 * every route. Whatever comes in, the answer is never a 500 and never a hang, and every 4xx is
 * Loki's text/plain shape (format_query's JSON error excepted). The inputs are generated from a fixed
 * seed, so a failure reproduces.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import type { Env } from "../../src/config";
import cases from "../fixtures/compat/cases.json";
import { prng } from "../../scripts/lib/prng.mjs";
import { workerVariables } from "../../scripts/lib/deploy-plan.mjs";
import configSource from "../../src/config.ts?raw";
import { GATEWAY } from "./support/gateway";

type Corpus = { query: string }[];
const shared = import.meta.glob<Corpus>("../../../shared/logql/{valid,invalid}.json", {
  eager: true,
  import: "default",
});

const compatQueries = (cases as unknown as { params: Record<string, unknown> }[])
  .map((c) => c.params.query)
  .filter((q): q is string => typeof q === "string");
const corpusQueries = Object.values(shared).flatMap((list) => list.map((e) => e.query));
// Shapes that held a whole evaluation's series or samples before answering (issue 27, item 2).
const HEAVY_METRIC_SHAPES = [
  'quantile_over_time(0.99, {app="api-gateway"} | json | unwrap latency_ms [24h])',
  'quantile_over_time(0.99, {app="api-gateway"} | json | unwrap latency_ms [24h]) by (app)',
  'count_over_time({app="pf"} | logfmt [1h])',
  'max by (level) (count_over_time({app="api-gateway"} | json [1h]))',
  'rate_counter({app="api-gateway"} | json | unwrap bytes [24h])',
];
const QUERIES = [...compatQueries, ...corpusQueries, ...HEAVY_METRIC_SHAPES];

const TOKENS = [
  "(",
  ")",
  "{",
  "}",
  "[5m]",
  "|",
  "|=",
  "|~",
  '"',
  "`",
  "\\",
  "sum(",
  "by (x)",
  "| json",
  "| logfmt",
  '| line_format "{{ repeat 100000 .x }}"',
  '| label_format big="{{ repeat 1000000 \\"x\\" }}"',
  '| regexp "(?P<a>(a+)+$)"',
  "| unwrap x",
  "offset 1h",
  "or",
  "and",
  "bool",
  "1e308",
  "-",
  "\u0000",
  "\ud800",
  "😀",
  "_msg",
  "_stream",
  "__error__",
];

const HOSTILE = [
  "",
  "x",
  "-1",
  "0",
  "1e300",
  "NaN",
  "Infinity",
  "9".repeat(30),
  "2026-13-45T99:99:99Z",
  "1.5",
  "now",
  "\u0000",
];

const ROUTES = [
  "/loki/api/v1/query_range",
  "/loki/api/v1/query",
  "/loki/api/v1/labels",
  "/loki/api/v1/label/app/values",
  "/loki/api/v1/series",
  "/loki/api/v1/index/stats",
  "/loki/api/v1/index/volume",
  "/loki/api/v1/index/volume_range",
  "/loki/api/v1/detected_fields",
  "/loki/api/v1/detected_labels",
  "/loki/api/v1/patterns",
  "/loki/api/v1/format_query",
];

function mutate(q: string, rnd: () => number): string {
  let s = q;
  const edits = Math.floor(rnd() * 4);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(rnd() * (s.length + 1));
    const r = rnd();
    if (r < 0.4) s = s.slice(0, at) + TOKENS[Math.floor(rnd() * TOKENS.length)] + s.slice(at);
    else if (r < 0.7) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rnd() * 5));
    else s = s.slice(0, at) + s.slice(at, at + 20) + s.slice(at);
  }
  return s;
}

function input(rnd: () => number): { path: string; params: URLSearchParams } {
  const path = ROUTES[Math.floor(rnd() * ROUTES.length)]!;
  const query = mutate(QUERIES[Math.floor(rnd() * QUERIES.length)]!, rnd);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const params = new URLSearchParams();
  params.set(path.endsWith("/series") ? "match[]" : "query", query);
  // Mostly the dataset's window, so the origin has work to do; sometimes hostile values.
  params.set("start", rnd() < 0.8 ? "1769904000" : pick(HOSTILE));
  params.set("end", rnd() < 0.8 ? "1769925600" : pick(HOSTILE));
  if (rnd() < 0.5) params.set("step", rnd() < 0.7 ? pick(["15", "60", "300", "1m"]) : pick(HOSTILE));
  if (rnd() < 0.5) params.set("limit", rnd() < 0.7 ? pick(["1", "100", "5000"]) : pick(HOSTILE));
  if (rnd() < 0.2) params.set("direction", pick(["forward", "BACKWARD", "sideways"]));
  if (rnd() < 0.1) params.set("targetLabels", pick(["_msg", "app,level", ""]));
  return { path, params };
}

// ---- Issue 27, item 6: user input that once got a 5xx (Loki answers 400 or an empty success) ----
// Each shape is sent as is (below) and seeds the mutations: json/logfmt expressions Loki's parser
// refuses, ip() filters with bad patterns, regexes past Go's limits in every position, times and
// durations past int64, centuries-long and far-future ranges, operator chains past the stack.
const INPUT_SHAPES: { path: string; params: Record<string, string>; init?: RequestInit }[] = [
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"} | json a="b["' } },
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"} | json a="a-b", c="[0"' } },
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"} | logfmt a="b c"' } },
  { path: "/loki/api/v1/query_range", params: { query: 'count_over_time({app="nginx"} | json a="." [5m])' } },
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"} |= ip("999.1.1.1")' } },
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"} |~ ip("10.0.0.1")' } },
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"} | logfmt | addr = ip("1.2.3.4/99")' } },
  { path: "/loki/api/v1/query_range", params: { query: '{app=~"(a{1000}){1000}"}' } },
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"} | x=~"(a{1000}){1000}"' } },
  { path: "/loki/api/v1/query_range", params: { query: '{service_name=~"(a{1000}){1000}"}' } },
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"} |~ "(a{1000}){1000}"' } },
  { path: "/loki/api/v1/query_range", params: { query: `{app="nginx"} |~ "(${"a".repeat(3400)}){1000}"` } },
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"}', start: "1" + "0".repeat(25) } },
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"}', start: "1.5e20" } },
  { path: "/loki/api/v1/query", params: { query: 'count_over_time({app="nginx"}[1m])', time: "1" + "0".repeat(25) } },
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"}', since: "9999999y" } },
  { path: "/loki/api/v1/labels", params: { start: "-100000000000.5", end: "-1.5" } },
  { path: "/loki/api/v1/labels", params: { start: "9999-12-31T00:00:00Z", end: "9999-12-31T23:59:59Z" } },
  { path: "/loki/api/v1/series", params: { "match[]": '{app="nginx"}', end: "9999-12-31T23:59:59Z" } },
  { path: "/loki/api/v1/index/stats", params: { query: '{app="nginx"}', start: "-1.5e20" } },
  { path: "/loki/api/v1/detected_labels", params: { since: "1000000000h" } },
  {
    path: "/loki/api/v1/query_range",
    params: {},
    init: { method: "POST", headers: { "Content-Type": "multipart/form-data; boundary=x" }, body: "garbage" },
  },
  { path: "/loki/api/v1/query", params: { query: Array(6000).fill("vector(1)").join(" + ") } },
  { path: "/loki/api/v1/query_range", params: { query: '{app="nginx"} | ' + Array(6000).fill('x="1"').join(", ") } },
];
// The other items' shapes: label text past the entry budget (1), series past the limit and windows
// past the points budget (2), queries whose printed forms collide (3), tails from 1970 (5), the
// operator purge with hostile parameters (9), ranges needing thousands of sub-windows (11).
INPUT_SHAPES.push(
  {
    path: "/loki/api/v1/query_range",
    params: { query: '{app=~".+"} | label_format big="{{ repeat 1000000 \\"x\\" }}"', limit: "2000" },
  },
  { path: "/loki/api/v1/query_range", params: { query: 'count_over_time({app=~".+"} | logfmt [1h])', step: "8" } },
  {
    path: "/loki/api/v1/query_range",
    params: { query: 'quantile_over_time(0.99, {app=~".+"} | logfmt | unwrap duration(dur) [24h])', step: "8" },
  },
  { path: "/loki/api/v1/query_range", params: { query: '{app=~".+"} | logfmt | size > 1549B' } },
  { path: "/loki/api/v1/query", params: { query: "vector(0.0000004)" } },
  { path: "/loki/api/v1/tail", params: { query: '{app=~".+"}', start: "0" } },
  { path: "/admin/cache/purge", params: { tenant: "0|1", start: "1e30", end: "-1" }, init: { method: "POST" } },
  {
    path: "/loki/api/v1/query_range",
    params: { query: 'sum(rate({app=~".+"}[1m]))', start: "0", end: "1769925600", step: "1" },
  },
);
QUERIES.push(...INPUT_SHAPES.flatMap((s) => (s.params.query === undefined ? [] : [s.params.query])));
TOKENS.push('ip("999.1.1.1")', "{1000}", '| json x="a["');
HOSTILE.push("1" + "0".repeat(25), "1.5e20", "-100000000000.5", "9999-12-31T23:59:59Z");

describe("issue 27 input shapes", () => {
  it("answers each with a 4xx in Loki's shape or a success, never a 5xx", async () => {
    const problems: string[] = [];
    for (const { path, params, init } of INPUT_SHAPES) {
      const ctx = createExecutionContext();
      const res = await createApp().fetch(
        new Request(`http://loki.test${path}?${new URLSearchParams(params)}`, {
          ...init,
          headers: { ...GATEWAY, ...(init?.headers as Record<string, string> | undefined) },
        }),
        env as Env,
        ctx,
      );
      const body = await res.text();
      await waitOnExecutionContext(ctx);
      const what = `${path}?${new URLSearchParams(params)}`.slice(0, 200);
      if (res.status >= 500) problems.push(`${res.status} ${body.slice(0, 200)} for ${what}`);
      else if (res.status >= 400 && !(res.headers.get("Content-Type") ?? "").startsWith("text/plain")) {
        problems.push(`${res.status} not text/plain for ${what}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
// ---- end of issue 27, item 6 ----

const INPUTS = 400;
/** Per request: far above any legitimate answer on this dataset, far below a stalled isolate. */
const BOUND_MS = 20_000;

describe("fuzzing the HTTP surface", () => {
  it(`answers ${INPUTS} generated requests without a 500 or a hang`, async () => {
    const rnd = prng(20261122);
    const inputs = Array.from({ length: INPUTS }, () => input(rnd));
    const statuses = new Map<number, number>();
    const problems: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < inputs.length) {
        const { path, params } = inputs[next++]!;
        const ctx = createExecutionContext();
        const started = Date.now();
        const answer = (async () => {
          const res = await createApp().fetch(
            new Request(`http://loki.test${path}?${params}`, { headers: GATEWAY }),
            env as Env,
            ctx,
          );
          return { status: res.status, type: res.headers.get("Content-Type") ?? "", body: await res.text() };
        })();
        const res = await Promise.race([
          answer,
          new Promise<undefined>((r) => setTimeout(() => r(undefined), BOUND_MS)),
        ]);
        await waitOnExecutionContext(ctx);
        const what = `${path}?${params}`.slice(0, 300);
        if (res === undefined) {
          problems.push(`no answer within ${BOUND_MS} ms: ${what}`);
          continue;
        }
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) problems.push(`${res.status} ${res.body.slice(0, 200)} for ${what}`);
        else if (res.status >= 400 && !path.endsWith("/format_query") && !res.type.startsWith("text/plain")) {
          problems.push(`${res.status} not text/plain (${res.type}) for ${what}`);
        }
        if (Date.now() - started > BOUND_MS) problems.push(`slow (${Date.now() - started} ms): ${what}`);
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    console.log(
      `fuzz: ${INPUTS} requests (${compatQueries.length} compat and ${corpusQueries.length} corpus seed queries), statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
    expect(problems).toEqual([]);
    // The generator reaches both sides: answers and refusals.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(20);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(20);
  }, 300_000);
});

/** The variables and secrets the Worker reads (the `Env` interface of src/config.ts), which an operator might mistype. */
const CONFIG_VARS = (({ vars, secrets }) => [...vars, ...secrets])(workerVariables(configSource));
/** Values carrying "fzv" must never be quoted back; the others may coincide with words of a message. */
const CONFIG_JUNK = [
  "",
  " ",
  "\n",
  "0",
  "-1",
  "lots",
  "1e400",
  "9".repeat(40),
  "1h",
  "header",
  "{}",
  "[]",
  "null",
  '{"fzv-a":',
  '{"fzv-b":"0:0"}',
  '{"fzv-c":{"tenant":"0:0","token_sha256":["fzv"]}}',
  "fzv-host:9428",
  "http://fzv-user:fzv-pass@127.0.0.1:1",
  "https://fzv.invalid/?q=fzv",
  "Bearer fzv\r\nX-Injected: 1",
  "fzv-\u0000-\ud800-😀",
];
const CONFIG_ROUTES = [
  "/ready",
  "/ready?origin=1",
  `/loki/api/v1/query?query=${encodeURIComponent("vector(1)+vector(1)")}&time=4000000000`,
  "/loki/api/v1/labels?start=1769904000&end=1769925600",
  `/loki/api/v1/query_range?query=${encodeURIComponent('{app="nginx"}')}&start=1769904000&end=1769925600&limit=5`,
  "/loki/api/v1/drilldown-limits",
];

describe("fuzzing the configuration", () => {
  it("answers every route under mistyped bindings with the configuration error or a Loki answer, never a crash", async () => {
    const rnd = prng(20261125);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const problems: string[] = [];
    let refused = 0;
    for (let i = 0; i < 60; i++) {
      const overrides: Record<string, string> = {};
      for (let n = 1 + Math.floor(rnd() * 3); n > 0; n--) overrides[pick(CONFIG_VARS)] = pick(CONFIG_JUNK);
      const bindings = { ...(env as Env), CACHE: "off", ...overrides };
      for (const path of CONFIG_ROUTES) {
        const ctx = createExecutionContext();
        const res = await createApp().fetch(
          new Request(`http://loki.test${path}`, { headers: GATEWAY }),
          bindings,
          ctx,
        );
        const body = await res.text();
        await waitOnExecutionContext(ctx);
        const what = `${res.status} ${JSON.stringify(body.slice(0, 120))} for ${path} with ${JSON.stringify(overrides)}`;
        if (body.startsWith("configuration error: ")) {
          refused++;
          if (res.status !== (path === "/ready" || path === "/ready?origin=1" ? 503 : 500)) problems.push(what);
        } else if (res.status === 500) problems.push(what);
        if (body.includes("fzv")) problems.push(`quotes a configured value: ${what}`);
      }
    }
    expect(problems).toEqual([]);
    expect(refused).toBeGreaterThan(100);
  }, 120_000);
});

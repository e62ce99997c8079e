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

type Corpus = { query: string }[];
const shared = import.meta.glob<Corpus>("../../../shared/logql/{valid,invalid}.json", {
  eager: true,
  import: "default",
});

const compatQueries = (cases as unknown as { params: Record<string, unknown> }[])
  .map((c) => c.params.query)
  .filter((q): q is string => typeof q === "string");
const corpusQueries = Object.values(shared).flatMap((list) => list.map((e) => e.query));
const QUERIES = [...compatQueries, ...corpusQueries];

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
          const res = await createApp().fetch(new Request(`http://loki.test${path}?${params}`), env as Env, ctx);
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

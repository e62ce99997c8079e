/**
 * The platform's per-request limits, planned for: with a small MAX_SUBREQUESTS, a long range split
 * into small windows is asked for in wider windows (at most the limit's worth of origin requests,
 * counted where they leave the runtime) and answers exactly what one unsplit request answers; with
 * small MAX_CACHE_CALLS / MAX_KV_OPERATIONS the caches are used up to the limit and skipped past it,
 * the answer unchanged; and a query that cannot be answered within the limit gets Loki's 400 with
 * advice, not the runtime's exception or a 500.
 */
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { call as callWorker } from "./support/request";
import { type Env, readConfig } from "../../src/config";
import { DEFAULT_SUBREQUEST_LIMITS } from "../../src/origin/subrequest-budget";
import { watchOrigin } from "../support/watch-origin";
import cases from "../fixtures/compat/cases.json";

const ENV = env as unknown as Env;
// Six hours of the compat dataset (tenant 0:0).
const RANGE = { start: "1769904000", end: "1769925600" };

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

async function ask(path: string, params: Record<string, string>, bindings: Partial<Env>): Promise<Answer> {
  const res = await callWorker(path, { ...RANGE, ...params }, { env: bindings });
  return { status: res.status, type: res.headers.get("Content-Type"), body: res.body };
}

/** The answer without its `stats` (timings and scan counts differ between plans). */
function resultOf(a: Answer): unknown {
  expect(a.status, a.body).toBe(200);
  return (JSON.parse(a.body) as { data: { result: unknown } }).data.result;
}

/** Small windows (72 over the range), evaluated in the Worker, nothing cached. */
const SMALL_WINDOWS: Partial<Env> = { SPLIT_INTERVAL: "5m", PUSHDOWN: "off", CACHE: "off", COALESCER: undefined };
/** One request for the whole range: the reference. */
const UNSPLIT: Partial<Env> = { ...SMALL_WINDOWS, SPLIT_INTERVAL: "10000h" };

describe("a long range within MAX_SUBREQUESTS", () => {
  it("a metric query over 72 small windows makes at most the limit's origin requests and answers as unsplit", async () => {
    const params = { query: 'sum by (namespace) (count_over_time({app="nginx"}[5m]))', step: "300" };
    const reference = resultOf(await ask("/loki/api/v1/query_range", params, UNSPLIT));
    expect((reference as unknown[]).length).toBeGreaterThan(0);

    const calls = watchOrigin(inject("originUrl"));
    const limited = await ask("/loki/api/v1/query_range", params, { ...SMALL_WINDOWS, MAX_SUBREQUESTS: "8" });
    expect(resultOf(limited)).toEqual(reference);
    expect(calls.length).toBeGreaterThan(0);
    console.log(`metric query, 6 h in 5m windows, MAX_SUBREQUESTS=8: ${calls.length} origin requests`);
    expect(calls.length).toBeLessThanOrEqual(8);
  });

  it("a log query read window by window makes at most the limit's origin requests and answers as unsplit", async () => {
    // A local stage that can drop rows: the windows are read with bounded concurrency, all of them.
    const params = { query: '{app="nginx"} | logfmt | method != "TRACE"', limit: "5000", direction: "forward" };
    const reference = resultOf(await ask("/loki/api/v1/query_range", params, UNSPLIT));
    expect((reference as unknown[]).length).toBeGreaterThan(0);

    const calls = watchOrigin(inject("originUrl"));
    const limited = await ask("/loki/api/v1/query_range", params, { ...SMALL_WINDOWS, MAX_SUBREQUESTS: "6" });
    expect(resultOf(limited)).toEqual(reference);
    expect(calls.length).toBeGreaterThan(0);
    console.log(`log query, 6 h in 5m windows, MAX_SUBREQUESTS=6: ${calls.length} origin requests`);
    expect(calls.length).toBeLessThanOrEqual(6);
  });

  it("with the caches on, Cache API calls and KV operations stay within their limits and the answer is unchanged", async () => {
    const params = { query: 'sum by (app) (rate({namespace="prod"}[10m]))', step: "600" };
    const reference = resultOf(await ask("/loki/api/v1/query_range", params, UNSPLIT));

    let cacheCalls = 0;
    let kvOperations = 0;
    const cache = caches.default;
    const [match, put] = [cache.match.bind(cache), cache.put.bind(cache)];
    cache.match = (...args: Parameters<Cache["match"]>) => (cacheCalls++, match(...args));
    cache.put = (...args: Parameters<Cache["put"]>) => (cacheCalls++, put(...args));
    const kv = ENV.CACHE_KV!;
    const countedKv = {
      get: (...args: unknown[]) => (kvOperations++, (kv.get as (...a: unknown[]) => unknown)(...args)),
      put: (...args: unknown[]) => (kvOperations++, (kv.put as (...a: unknown[]) => unknown)(...args)),
    } as unknown as KVNamespace;
    const calls = watchOrigin(inject("originUrl"));
    try {
      // A credential of its own: nothing this file did before is in the caches for it.
      const bindings: Partial<Env> = {
        SPLIT_INTERVAL: "5m",
        PUSHDOWN: "off",
        COALESCER: undefined,
        CACHE_KV: countedKv,
        ORIGIN_AUTH_HEADER: `Bearer budget-${crypto.randomUUID()}`,
        MAX_SUBREQUESTS: "10",
        MAX_CACHE_CALLS: "3",
        MAX_KV_OPERATIONS: "2",
      };
      const cold = await ask("/loki/api/v1/query_range", params, bindings);
      expect(resultOf(cold)).toEqual(reference);
      const warm = await ask("/loki/api/v1/query_range", params, bindings);
      expect(resultOf(warm)).toEqual(reference);
      // Writes run after the answer (waitUntil); without an execution context they run unawaited.
      await new Promise((r) => setTimeout(r, 200));
      console.log(
        `metric query cold then warm, caches on: ${cacheCalls} Cache API calls, ${kvOperations} KV operations, ${calls.length} origin requests`,
      );
      expect(cacheCalls).toBeGreaterThan(0);
      expect(cacheCalls).toBeLessThanOrEqual(2 * 3);
      expect(kvOperations).toBeLessThanOrEqual(2 * 2);
      expect(calls.length).toBeLessThanOrEqual(2 * 10);
    } finally {
      cache.match = match;
      cache.put = put;
    }
  });
});

describe("a query that cannot be answered within MAX_SUBREQUESTS", () => {
  it("answers Loki's 400 with advice, and asks the origin no more than the limit", async () => {
    // Two range aggregations over different selectors: at least one origin request each.
    const params = {
      query: 'sum(count_over_time({app="nginx"}[5m])) + sum(count_over_time({app="payments"}[5m]))',
      step: "300",
    };
    expect(resultOf(await ask("/loki/api/v1/query_range", params, UNSPLIT))).not.toEqual([]);

    const calls = watchOrigin(inject("originUrl"));
    const refused = await ask("/loki/api/v1/query_range", params, { ...SMALL_WINDOWS, MAX_SUBREQUESTS: "1" });
    expect(refused.status, refused.body).toBe(400);
    expect(refused.type).toBe("text/plain; charset=utf-8");
    expect(refused.body).toBe(
      "the query needs more than 1 origin requests, the most one request may make (MAX_SUBREQUESTS): " +
        "narrow the time range, increase the step or the split interval, or raise MAX_SUBREQUESTS",
    );
    expect(calls.length).toBeLessThanOrEqual(1);
  });
});

describe("configuration of the limits", () => {
  const base = { ORIGIN_URL: "http://vl.test" };

  it("defaults to limits under Workers Paid's defaults", () => {
    expect(readConfig(base).subrequestLimits).toEqual(DEFAULT_SUBREQUEST_LIMITS);
    expect(DEFAULT_SUBREQUEST_LIMITS).toEqual({ subrequests: 1000, cacheCalls: 900, kvOperations: 900 });
  });

  it("reads MAX_SUBREQUESTS, MAX_CACHE_CALLS and MAX_KV_OPERATIONS (Workers Free settings)", () => {
    const config = readConfig({ ...base, MAX_SUBREQUESTS: "40", MAX_CACHE_CALLS: "0", MAX_KV_OPERATIONS: "5" });
    expect(config.subrequestLimits).toEqual({ subrequests: 40, cacheCalls: 0, kvOperations: 5 });
  });
});

describe("every compat case with a small budget and small windows", () => {
  type Case = { id: string; path: string; params: Record<string, string>; headers: Record<string, string> };
  const budgetError = (limit: number) => `the query needs more than ${limit} origin requests`;

  // Without caches, one origin request each (every split is one window; more is refused); and with
  // the caches (Cache API, KV, the coalescer), keyed by a credential of their own, three.
  const MODES: { mode: string; limit: number; bindings: Partial<Env> }[] = [
    { mode: "caches off", limit: 1, bindings: { ...SMALL_WINDOWS, PUSHDOWN: undefined } },
    {
      mode: "caches on",
      limit: 3,
      bindings: { SPLIT_INTERVAL: "5m", ORIGIN_AUTH_HEADER: `Bearer sweep-${crypto.randomUUID()}` },
    },
  ];

  it.each(MODES)(
    "$mode: answers as without a limit, or Loki's 400 with advice, within $limit origin requests each",
    async ({ mode, limit, bindings: base }) => {
      const counts = { same: 0, refused: 0 };
      const problems: string[] = [];
      for (const c of cases as unknown as Case[]) {
        const call = async (bindings: Partial<Env>) => {
          const res = await callWorker(c.path, c.params, { headers: c.headers, env: bindings });
          return { status: res.status, type: res.headers.get("Content-Type"), body: res.body };
        };
        const free = await call(base);
        const calls = watchOrigin(inject("originUrl"));
        const limited = await call({ ...base, MAX_SUBREQUESTS: String(limit) });
        const made = calls.length;
        if (made > limit) problems.push(`${c.id}: ${made} origin requests`);
        if (limited.status === 400 && limited.body.startsWith(budgetError(limit))) {
          counts.refused++;
          if (limited.type !== "text/plain; charset=utf-8") problems.push(`${c.id}: refused as ${limited.type}`);
          continue;
        }
        if (limited.status !== free.status) {
          problems.push(`${c.id}: ${limited.status} ${limited.body.slice(0, 120)} (without a limit: ${free.status})`);
          continue;
        }
        if (free.status === 200) {
          if (!sameAnswer(JSON.parse(limited.body), JSON.parse(free.body)))
            problems.push(`${c.id}: a different answer`);
        }
        counts.same++;
      }
      console.log(`compat cases, ${mode}, MAX_SUBREQUESTS=${limit}, SPLIT_INTERVAL=5m: ${JSON.stringify(counts)}`);
      expect(problems).toEqual([]);
      // Most cases fit by widening windows; the rest are refused cleanly.
      expect(counts.same).toBeGreaterThan(counts.refused);
    },
    300_000,
  );
});

/**
 * Two answers alike but for `stats` (timings and scan counts differ between plans) and the last bits
 * of sample values: a sum taken in another order (samples arrive from windows cut elsewhere) can
 * differ in its last digit, as between Loki's own splits.
 */
function sameAnswer(a: unknown, b: unknown): boolean {
  if (typeof a === "string" && typeof b === "string") {
    if (a === b) return true;
    const [x, y] = [Number(a), Number(b)];
    return (
      a !== "" &&
      b !== "" &&
      Number.isFinite(x) &&
      Number.isFinite(y) &&
      Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y))
    );
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameAnswer(v, b[i]));
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = (o: object) =>
      Object.keys(o)
        .filter((k) => k !== "stats")
        .sort();
    const [ka, kb] = [keys(a), keys(b)];
    return (
      JSON.stringify(ka) === JSON.stringify(kb) &&
      ka.every((k) => sameAnswer((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}

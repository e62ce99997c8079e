/**
 * The results cache inside workerd, with the real Cache API, KV and coalescer bindings, in front of
 * the real VictoriaLogs the global setup started. Origin requests are counted where they leave the
 * runtime (global fetch is wrapped; the Worker, the Durable Object and these tests share one isolate).
 */
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { watchOrigin } from "../support/watch-origin";
import type { Env } from "../../src/config";
import { originConfigOf, readConfig } from "../../src/config";
import { kvAnswers } from "../../src/cache/bindings";
import { tieredChunkStore } from "../../src/cache/chunk-store";
import { timeBucketCache } from "../../src/cache/extents";
import { CacheStats } from "../../src/cache/stats";
import { resultCacheFor } from "../../src/cache/request-caches";
import { OriginClient } from "../../src/origin/client";
import { cachingTransport } from "../../src/cache/cached-transport";
import { coalescerStubs } from "../../src/cache/coalescer-stubs";
import { SingleFlight } from "../../src/cache/singleflight";
import type { OriginOutcome } from "../../src/cache/origin-outcome";
import cases from "../fixtures/compat/cases.json";
import { call } from "./support/request";

const ENV = env as unknown as Env;
const ORIGIN = readConfig(ENV).originUrl;

/** Calls to this test run's origin during the current test. */
const watch = (delayMs = 0) => watchOrigin(ORIGIN, delayMs);

interface Answer {
  status: number;
  /** The answer without its `stats` (timings differ between any two requests). */
  body: unknown;
  cache?: Record<string, { entriesFound: number; entriesRequested: number; entriesStored: number }>;
}

async function ask(
  path: string,
  params: Record<string, string | string[]>,
  over: Partial<Env> = {},
  headers: Record<string, string> = {},
): Promise<Answer> {
  // Cache writes run after the response (settle): the next request in production would find them.
  const res = await call(path, params, { headers, env: over, settle: true });
  const text = res.body;
  let body: unknown = text;
  let cache: Answer["cache"];
  try {
    const json = JSON.parse(text);
    if (json?.data?.stats) {
      cache = json.data.stats.cache;
      delete json.data.stats;
    }
    body = json;
  } catch {
    // text/plain errors compare as text
  }
  return { status: res.status, body, cache };
}

/**
 * `got` is `want` apart from its cache stats, with sample values of metric answers equal up to a
 * relative 1e-12: VictoriaLogs adds a bucket's values in parallel, so two requests for the same sums
 * may differ in the last places (83.39798742138366 against 83.39798742138359), cached or not.
 */
function expectSameAnswer(got: Answer, want: Answer, id: string): void {
  const a = sampleValuesOut(got.body);
  const b = sampleValuesOut(want.body);
  expect({ ...got, body: a.shape }, id).toEqual({ ...want, body: b.shape, cache: got.cache });
  expect(a.values.length, id).toBe(b.values.length);
  a.values.forEach((v, i) => {
    const w = b.values[i]!;
    const same =
      v === w || (Number.isNaN(v) && Number.isNaN(w)) || Math.abs(v - w) <= 1e-12 * Math.max(Math.abs(v), Math.abs(w));
    expect(same, `${id}: sample ${i}: ${v} against ${w}`).toBe(true);
  });
}

/** A metric answer with each sample's value replaced by a placeholder, and the values in order. */
function sampleValuesOut(body: unknown): { shape: unknown; values: number[] } {
  const data = (body as { data?: { resultType?: string; result?: unknown } } | null)?.data;
  if (!data || (data.resultType !== "matrix" && data.resultType !== "vector")) return { shape: body, values: [] };
  const values: number[] = [];
  const out = (sample: [number, string]): [number, string] => {
    values.push(Number(sample[1]));
    return [sample[0], "<value>"];
  };
  const result = (data.result as { values?: [number, string][]; value?: [number, string] }[]).map((s) =>
    s.values ? { ...s, values: s.values.map(out) } : s.value ? { ...s, value: out(s.value) } : s,
  );
  return { shape: { ...(body as object), data: { ...data, result } }, values };
}

type CompatCase = {
  id: string;
  path: string;
  params: Record<string, string | string[]>;
  headers: Record<string, string>;
};

describe("cached answers equal uncached answers", () => {
  it("on the whole compat corpus, filled and then served from the cache", async () => {
    const all = cases as unknown as CompatCase[];
    const calls = watch();
    let firstPass = 0;
    let secondPass = 0;
    const fullyCached: string[] = [];
    for (const c of all) {
      const direct = await ask(c.path, c.params, { CACHE: "off" }, c.headers);
      const before = calls.length;
      const filled = await ask(c.path, c.params, {}, c.headers);
      const between = calls.length;
      const served = await ask(c.path, c.params, {}, c.headers);
      firstPass += between - before;
      secondPass += calls.length - between;
      expectSameAnswer(filled, direct, c.id);
      expectSameAnswer(served, direct, c.id);
      const stored = Object.values(filled.cache ?? {}).reduce((n, s) => n + s.entriesStored, 0);
      if (stored > 0) {
        // Whatever the second pass looks up it finds (a log query stops looking once it has `limit`).
        const sections = Object.values(served.cache ?? {});
        const found = sections.reduce((n, s) => n + s.entriesFound, 0);
        expect(found, c.id).toBeGreaterThan(0);
        expect(found, c.id).toBe(sections.reduce((n, s) => n + s.entriesRequested, 0));
        if (calls.length === between) fullyCached.push(c.id);
      }
    }
    console.log(
      `results cache on the compat corpus: ${firstPass} origin requests filling, ${secondPass} serving again; ${fullyCached.length} cases answered without the origin`,
    );
    expect(secondPass).toBeLessThan(firstPass / 2);
    // Pushed-down metric queries, volumes and index stats are among those answered from the cache alone.
    for (const id of ["meta-volume", "meta-volume-by"]) expect(fullyCached).toContain(id);
    expect(fullyCached.filter((id) => id.startsWith("range-")).length).toBeGreaterThan(5);
  });
});

describe("a sliding dashboard range", () => {
  const QUERY = 'sum by (app) (count_over_time({namespace="prod"}[1m]))';
  const START = 1769904000; // the dataset's first hour

  it("reuses the chunks it has read and asks the origin only for the new edge", async () => {
    const range = (shift: number) => ({
      query: QUERY,
      start: String(START + shift),
      end: String(START + shift + 3 * 3600),
      step: "60",
    });
    const expected = await ask("/loki/api/v1/query_range", range(600), { CACHE: "off" });
    const calls = watch();
    const first = await ask("/loki/api/v1/query_range", range(0));
    expect(first.status).toBe(200);
    expect(calls).toHaveLength(1);

    // A minute later: one request, for the one five-minute chunk of buckets the first did not cover.
    calls.length = 0;
    const minute = await ask("/loki/api/v1/query_range", range(60));
    expect(calls).toHaveLength(1);
    expect(Date.parse(calls[0]!.end) - Date.parse(calls[0]!.start)).toBe(5 * 60_000);
    expect(Date.parse(calls[0]!.start)).toBe((START + 3 * 3600) * 1000);
    expect(minute.cache?.result?.entriesFound).toBe(36);

    // Ten minutes later: again only the chunk it has not seen.
    calls.length = 0;
    const slid = await ask("/loki/api/v1/query_range", range(600));
    expect(slid).toEqual({ ...expected, cache: slid.cache });
    expect(calls).toHaveLength(1);
    expect(Date.parse(calls[0]!.end) - Date.parse(calls[0]!.start)).toBe(5 * 60_000);
    expect(Date.parse(calls[0]!.start)).toBe((START + 3 * 3600 + 300) * 1000);
  });

  it("reuses the evaluated chunks of a query the Worker evaluates itself", async () => {
    const range = (shift: number) => ({
      query: 'sum by (level) (count_over_time({namespace="prod"} | logfmt | level=~"error|warn" [1m]))',
      start: String(START + shift),
      end: String(START + shift + 3 * 3600),
      step: "60",
    });
    const expected = await ask("/loki/api/v1/query_range", range(60), { CACHE: "off" });
    const calls = watch();
    await ask("/loki/api/v1/query_range", range(0));
    const cold = calls.length;
    expect(cold).toBeGreaterThan(0);
    // A minute later: its times all lie in chunks evaluated whole the first time.
    const slid = await ask("/loki/api/v1/query_range", range(60));
    expect(calls.length).toBe(cold);
    expect(slid).toEqual({ ...expected, cache: slid.cache });
    expect(slid.cache?.result?.entriesFound).toBe(slid.cache?.result?.entriesRequested);
  });

  it("leaves the caches out of a Cache-Control: no-cache request, as Loki's frontend does", async () => {
    const params = { query: QUERY, start: String(START), end: String(START + 3600), step: "30" };
    await ask("/loki/api/v1/query_range", params);
    const calls = watch();
    const again = await ask("/loki/api/v1/query_range", params);
    expect(calls).toHaveLength(0);
    const noCache = { "Cache-Control": "no-cache" };
    // Nothing read: the origin answers, the same as the cache did.
    const fresh = await ask("/loki/api/v1/query_range", params, {}, noCache);
    expect(calls).toHaveLength(1);
    expect(fresh).toEqual({ ...again, cache: fresh.cache });
    const counts = (a: Answer) => Object.values(a.cache ?? {}).map((s) => s.entriesRequested + s.entriesStored);
    expect(counts(fresh).every((n) => n === 0)).toBe(true);

    // Nothing written: a range first asked for with no-cache is still unknown to the caches.
    const unseen = { ...params, start: String(START + 2 * 3600), end: String(START + 3 * 3600) };
    calls.length = 0;
    const first = await ask("/loki/api/v1/query_range", unseen, {}, { "cache-control": "max-age=0, No-Cache" });
    expect(calls).toHaveLength(1);
    expect(counts(first).every((n) => n === 0)).toBe(true);
    const cached = await ask("/loki/api/v1/query_range", unseen);
    expect(calls).toHaveLength(2);
    expect(cached).toEqual({ ...first, cache: cached.cache });
    expect(cached.cache?.result?.entriesStored).toBeGreaterThan(0);
  });
});

describe("a sliding log range", () => {
  it("reads again only the partial windows at its ends", async () => {
    // Sparse enough that the answer needs the whole range: every window is read.
    const range = (shift: number) => ({
      query: '{namespace="prod"} |= "timeout"',
      start: String(1769904000 + shift),
      end: String(1769904000 + shift + 3 * 3600),
      limit: "1000",
    });
    // A refresh 30 s earlier (its first window partial, so kept in twelfths of an hour).
    await ask("/loki/api/v1/query_range", range(30));
    const expected = await ask("/loki/api/v1/query_range", range(60), { CACHE: "off" });
    const calls = watch();
    const slid = await ask("/loki/api/v1/query_range", range(60));
    expect(slid).toEqual({ ...expected, cache: slid.cache });
    // The minute added at the end, and the first window's last four minutes, each in one request.
    const spans = calls.map((c) => (Date.parse(c.end) - Date.parse(c.start)) / 60_000).sort();
    expect(spans).toEqual([1, 4]);
    expect(slid.cache?.logResult?.entriesFound).toBeGreaterThan(3);
  });
});

describe("a log range with stages the Worker runs", () => {
  // The label filter runs in the Worker alone (a constant of more than six fraction digits is not
  // sent to the origin), so the origin cannot cut requests to `limit`.
  const range = (from: number, limit = 1000) => ({
    query: '{namespace="prod"} |= "imeout" | logfmt | attempt > 0.5000001',
    start: String(1769904000 + from),
    end: String(1769904000 + from + 3600),
    limit: String(limit),
  });
  const minutes = (c: { start: string; end: string }) => (Date.parse(c.end) - Date.parse(c.start)) / 60_000;
  const entriesOf = (a: Answer) =>
    (a.body as { data: { result: { values: unknown[] }[] } }).data.result.reduce((n, s) => n + s.values.length, 0);

  it("asks for an interval's missing pieces in one request, and keeps them", async () => {
    // An hour across two interval windows, neither aligned: each is kept in twelfths of an hour.
    const expected = await ask("/loki/api/v1/query_range", range(1817), { CACHE: "off" });
    expect(entriesOf(expected)).toBeGreaterThan(0);
    expect(entriesOf(expected)).toBeLessThan(1000);
    const calls = watch();
    const cold = await ask("/loki/api/v1/query_range", range(1817));
    expect(cold).toEqual({ ...expected, cache: cold.cache });
    // One request per interval window (newest first), not one per piece.
    expect(calls.map(minutes)).toEqual([(5417 - 3600) / 60, (3600 - 1817) / 60]);

    // Again: the pieces come from the cache; only the two partial ones at the ends are asked for.
    calls.length = 0;
    const warm = await ask("/loki/api/v1/query_range", range(1817));
    expect(warm).toEqual({ ...expected, cache: warm.cache });
    expect(calls.map(minutes)).toEqual([17 / 60, (2100 - 1817) / 60]);
    expect(warm.cache?.logResult?.entriesFound).toBe(11);
  });

  it("answers as uncached when the limit falls inside a piece or a run", async () => {
    const all = entriesOf(await ask("/loki/api/v1/query_range", range(1817), { CACHE: "off" }));
    for (const limit of [1, Math.ceil(all / 3), all - 1, all]) {
      const expected = await ask("/loki/api/v1/query_range", range(4000, limit), { CACHE: "off" });
      const cold = await ask("/loki/api/v1/query_range", range(4000, limit));
      expect(cold, `limit ${limit}`).toEqual({ ...expected, cache: cold.cache });
      const warm = await ask("/loki/api/v1/query_range", range(4000, limit));
      expect(warm, `limit ${limit}`).toEqual({ ...expected, cache: warm.cache });
      const forward = { ...range(4000, limit), direction: "forward" };
      const expectedForward = await ask("/loki/api/v1/query_range", forward, { CACHE: "off" });
      const coldForward = await ask("/loki/api/v1/query_range", forward);
      expect(coldForward, `forward, limit ${limit}`).toEqual({ ...expectedForward, cache: coldForward.cache });
    }
  });
});

describe("recent windows", () => {
  it("are never served stale: lines pushed after a cached answer appear in the next one", async () => {
    const tenant = { "X-Scope-OrgID": "9:9" };
    const now = Date.now();
    const seconds = (ms: number) => (ms / 1000).toFixed(3);
    const push = async (offsets: number[]) => {
      const values = offsets.map((o) => [String(BigInt(now - o) * 1_000_000n), `fresh line ${o}`]);
      const res = await fetch(`${inject("originUrl")}/insert/loki/api/v1/push?disable_message_parsing=1`, {
        method: "POST",
        headers: { "Content-Type": "application/json", AccountID: "9", ProjectID: "9" },
        body: JSON.stringify({ streams: [{ stream: { app: "fresh" }, values }] }),
      });
      expect(res.status).toBe(204);
    };
    const count = async () => {
      const a = await ask(
        "/loki/api/v1/query",
        { query: 'sum(count_over_time({app="fresh"}[10m]))', time: seconds(now + 1000) },
        {},
        tenant,
      );
      const result = (a.body as { data: { result: { value: [number, string] }[] } }).data.result;
      return result.length === 0 ? 0 : Number(result[0]!.value[1]);
    };
    const until = async (want: number) => {
      for (let i = 0; i < 120; i++) {
        if ((await count()) === want) return;
        await new Promise((r) => setTimeout(r, 500));
      }
      throw new Error(`the count never reached ${want}`);
    };
    await push([30_000, 29_000, 28_000]);
    await until(3);
    await push([20_000, 19_000]);
    await until(5);
    const lines = await ask(
      "/loki/api/v1/query_range",
      { query: '{app="fresh"}', start: seconds(now - 600_000), end: seconds(now + 1000) },
      {},
      tenant,
    );
    const values = (lines.body as { data: { result: { values: unknown[] }[] } }).data.result.flatMap((s) => s.values);
    expect(values).toHaveLength(5);
  });
});

describe("concurrency and isolation", () => {
  it("coalesces concurrent identical cold requests into one origin request", async () => {
    const calls = watch(300);
    const params = {
      query: 'sum by (pod) (rate({app="auth"}[2m]))',
      start: "1769910000",
      end: "1769913600",
      step: "120",
    };
    const answers = await Promise.all(Array.from({ length: 16 }, () => ask("/loki/api/v1/query_range", params)));
    expect(calls).toHaveLength(1);
    for (const a of answers) expect(a.body).toEqual(answers[0]!.body);
    expect((answers[0]!.body as { data: { result: unknown[] } }).data.result.length).toBeGreaterThan(0);
  });

  it("coalesces a run of missing chunks across isolates through the Durable Object", async () => {
    const calls = watch(300);
    const config = readConfig(ENV);
    // Eight "isolates": their own single-flight maps and no shared local cache; only the coalescer.
    const clients = Array.from({ length: 8 }, () => {
      const transport = cachingTransport({
        origin: originConfigOf(config),
        timeoutMs: config.originTimeoutMs,
        direct: async () => {
          throw new Error("callers must not reach the origin directly while the coalescer is bound");
        },
        flights: new SingleFlight<OriginOutcome>(),
        coalescerFor: coalescerStubs(ENV.COALESCER!),
      });
      return new OriginClient(originConfigOf(config), { accountId: 0, projectId: 0 }, undefined, transport);
    });
    const logsql = '{app="nginx"} | stats by (_time:1m, level) count() as __v';
    const window = { start: 1769914800n * 10n ** 9n, end: 1769918400n * 10n ** 9n };
    const answers = await Promise.all(clients.map((c) => c.statsRows(logsql, window)));
    expect(calls).toHaveLength(1);
    expect(answers[0]!.length).toBeGreaterThan(0);
    for (const a of answers) expect(a).toEqual(answers[0]);
  });

  it("never shares an entry between tenants", async () => {
    const params = {
      query: 'sum(count_over_time({app="auth"}[5m]))',
      start: "1769904000",
      end: "1769907600",
      step: "300",
    };
    const calls = watch();
    const owner = await ask("/loki/api/v1/query_range", params, {}, { "X-Scope-OrgID": "0" });
    const other = await ask("/loki/api/v1/query_range", params, {}, { "X-Scope-OrgID": "42" });
    const ownerAgain = await ask("/loki/api/v1/query_range", params, {}, { "X-Scope-OrgID": "0" });
    const otherAgain = await ask("/loki/api/v1/query_range", params, {}, { "X-Scope-OrgID": "42" });
    expect((owner.body as { data: { result: unknown[] } }).data.result).toHaveLength(1);
    expect((other.body as { data: { result: unknown[] } }).data.result).toEqual([]);
    expect(ownerAgain.body).toEqual(owner.body);
    expect(otherAgain.body).toEqual(other.body);
    expect(calls.map((c) => c.accountId)).toEqual(["0", "42"]);
  });

  it("answers the historical part from KV alone, as a restarted Worker in another location would", async () => {
    const params = {
      query: 'sum by (level) (bytes_over_time({namespace="prod"}[5m]))',
      start: "1769911200",
      end: "1769914800",
      step: "300",
    };
    const filled = await ask("/loki/api/v1/query_range", params);
    expect(filled.cache?.result?.entriesStored).toBeGreaterThan(0);

    // No isolate memory and no Cache API (a fresh location), the same KV: every chunk comes from KV.
    const calls = watch();
    const config = readConfig(ENV);
    const stats = new CacheStats();
    const pending: Promise<unknown>[] = [];
    const tenant = { accountId: 0, projectId: 0 };
    const results = resultCacheFor(config, tenant, {
      stats,
      defer: (p) => pending.push(p),
      later: (task) => task(),
    })!;
    const client = new OriginClient(originConfigOf(config), tenant);
    const timeBuckets = timeBucketCache(client, {
      ...results,
      store: tieredChunkStore(undefined, kvAnswers(ENV.CACHE_KV!), null),
    });
    const { planMetricPushdown } = await import("../../src/plan/metric-pushdown");
    const { parseExpr } = await import("../../src/logql/parser");
    const { alignToStep } = await import("../../src/engine/metric");
    const grid = alignToStep({
      start: 1769911200n * 10n ** 9n,
      end: 1769914800n * 10n ** 9n,
      step: 300n * 10n ** 9n,
      instant: false,
    });
    const plan = planMetricPushdown(parseExpr(params.query) as never, grid)!;
    const rows = await timeBuckets.rows({
      logsql: plan.logsql,
      window: plan.window,
      width: plan.width,
      shift: plan.shift,
      clip: false,
      section: "result",
      values: ["__v"],
    });
    expect(calls).toEqual([]);
    expect(rows.length).toBeGreaterThan(0);
    expect(stats.section("result").entriesFound).toBe(stats.section("result").entriesRequested);
  });
});

describe("a log range the origin cuts to limit", () => {
  const START = 1769904000;
  const params = (needle: string, limit: number) => ({
    query: `{namespace="prod"} |= "${needle}"`,
    start: String(START),
    end: String(START + 6 * 3600),
    limit: String(limit),
  });
  const entriesOf = (a: Answer) =>
    (a.body as { data: { result: { values: unknown[] }[] } }).data.result.reduce((n, s) => n + s.values.length, 0);

  it("reads a sparse range in two requests, whatever its number of windows, then from the cache alone", async () => {
    const expected = await ask("/loki/api/v1/query_range", params("imeout", 1000), { CACHE: "off" });
    expect(entriesOf(expected)).toBeGreaterThan(0);
    expect(entriesOf(expected)).toBeLessThan(1000);
    const calls = watch();
    const cold = await ask("/loki/api/v1/query_range", params("imeout", 1000));
    expect(cold).toEqual({ ...expected, cache: cold.cache });
    // The edge window, then the five others in one request (the answer holds fewer than `limit`).
    expect(calls).toHaveLength(2);
    calls.length = 0;
    const warm = await ask("/loki/api/v1/query_range", params("imeout", 1000));
    expect(warm).toEqual({ ...expected, cache: warm.cache });
    expect(calls).toHaveLength(0);
  });

  it("keeps only the windows an answer cut to limit proves complete, and answers the same from them", async () => {
    const all = entriesOf(await ask("/loki/api/v1/query_range", params("rror", 5000), { CACHE: "off" }));
    expect(all).toBeGreaterThan(50);
    // Cuts that fall in the edge window, in the request after it, and not at all.
    for (const share of [0.05, 0.6, 0.9, 1.2]) {
      const limit = Math.ceil(all * share);
      const expected = await ask("/loki/api/v1/query_range", params("rror", limit), { CACHE: "off" });
      const calls = watch();
      const cold = await ask("/loki/api/v1/query_range", params("rror", limit));
      expect(cold, `limit ${limit}`).toEqual({ ...expected, cache: cold.cache });
      expect(calls.length, `limit ${limit}`).toBeLessThanOrEqual(3);
      const coldCalls = calls.length;
      calls.length = 0;
      const warm = await ask("/loki/api/v1/query_range", params("rror", limit));
      expect(warm, `limit ${limit}`).toEqual({ ...expected, cache: warm.cache });
      // At most the window that held the cut, and what follows it, is asked for again.
      expect(calls.length, `limit ${limit}`).toBeLessThan(Math.max(coldCalls, 2));
    }
  });
});

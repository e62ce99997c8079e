import { describe, expect, it } from "vitest";
import { type CachingOptions, cachingTransport } from "../../../src/cache/cached-transport";
import type { AnswerCache, AnswerKv } from "../../../src/cache/storage";
import type { OriginOutcome } from "../../../src/cache/origin-outcome";
import { SingleFlight } from "../../../src/cache/singleflight";
import { StatsTable } from "../../../src/origin/stats-table";
import { type JsonAnswer, type JsonRequest, type JsonTransport, OriginClient } from "../../../src/origin/client";
import { OriginError, RequestError } from "../../../src/core/errors";
import { statusOf } from "../../../src/http/errors";
import { stamped } from "../../../src/cache/stamp";
import { SubrequestBudget, SubrequestBudgetError } from "../../../src/origin/subrequest-budget";

const NOW = Date.parse("2024-05-01T12:00:00Z");
const ns = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
/** Ended a day before NOW: old enough to live the longest (policy.ts grades younger windows). */
const HISTORICAL = { start: ns("2024-04-30T10:00:00Z"), end: ns("2024-04-30T11:00:00Z") };
const RECENT = { start: ns("2024-05-01T11:00:00Z"), end: ns("2024-05-01T12:00:00Z") };

function req(over: Partial<JsonRequest> = {}): JsonRequest {
  return {
    path: "/select/logsql/stream_field_names",
    form: [["query", "*"]],
    tenant: { accountId: 0, projectId: 0 },
    window: HISTORICAL,
    ...over,
  };
}

class MemoryCache implements AnswerCache {
  readonly entries = new Map<string, { body: string; maxAge: number }>();
  async get(key: string) {
    return this.entries.get(key)?.body;
  }
  async put(key: string, body: string, maxAge: number) {
    this.entries.set(key, { body, maxAge });
  }
}

/** A cache whose writes complete only once `open` has been called. */
function gatedCache(): { cache: MemoryCache; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const cache = new MemoryCache();
  cache.put = async (key, body, maxAge) => {
    await gate;
    cache.entries.set(key, { body, maxAge });
  };
  return { cache, open };
}

class MemoryKv implements AnswerKv {
  readonly entries = new Map<string, { body: string; ttl: number }>();
  async get(key: string) {
    return this.entries.get(key)?.body ?? null;
  }
  async put(key: string, body: string, ttl: number) {
    this.entries.set(key, { body, ttl });
  }
}

/** What the layer stores for `body`, asked at NOW: stamped with its expiry and that time. */
const stored = (body: string, ttlS = 86_400) => stamped(body, { expiresAtMs: NOW + ttlS * 1000, askedAtMs: NOW });

/** A valid stream_field_names answer naming `t`: distinct per tenant, so a shared entry would show. */
const answerFor = (t: number) => `{"values":[{"value":"t${t}","hits":1}]}`;

/** A fake origin that answers with the tenant in the body, so a shared entry would show. */
function countingOrigin(
  answer: (r: JsonRequest) => JsonAnswer = (r) => ({ status: 200, body: answerFor(r.tenant.accountId) }),
) {
  const calls: JsonRequest[] = [];
  let gate: Promise<void> = Promise.resolve();
  const transport: JsonTransport = async (r) => {
    calls.push(r);
    await gate;
    return answer(r);
  };
  return {
    calls,
    transport,
    hold() {
      let release!: () => void;
      gate = new Promise((r) => (release = r));
      return () => release();
    },
  };
}

function layer(direct: JsonTransport, over: Partial<CachingOptions> = {}) {
  return cachingTransport({
    origin: { baseUrl: "http://vl:9428" },
    timeoutMs: 1000,
    direct,
    flights: new SingleFlight<OriginOutcome>(),
    nowMs: () => NOW,
    ...over,
  });
}

const never = () => new AbortController().signal;

describe("cachingTransport", () => {
  it("serves a repeated request from the cache without asking the origin", async () => {
    const origin = countingOrigin();
    const cache = new MemoryCache();
    const t = layer(origin.transport, { cache });
    expect(await t(req(), never())).toEqual({ status: 200, body: answerFor(0) });
    expect(await t(req({ form: [["query", "*"]] }), never())).toEqual({ status: 200, body: answerFor(0) });
    expect(origin.calls).toHaveLength(1);
    expect([...cache.entries.values()]).toEqual([{ body: stored(answerFor(0)), maxAge: 86_400 }]);
  });

  it("keeps two tenants' answers apart", async () => {
    const origin = countingOrigin();
    const cache = new MemoryCache();
    const kv = new MemoryKv();
    const t = layer(origin.transport, { cache, kv });
    expect((await t(req({ tenant: { accountId: 1, projectId: 0 } }), never())).body).toBe(answerFor(1));
    expect((await t(req({ tenant: { accountId: 2, projectId: 0 } }), never())).body).toBe(answerFor(2));
    expect((await t(req({ tenant: { accountId: 1, projectId: 0 } }), never())).body).toBe(answerFor(1));
    expect(origin.calls).toHaveLength(2);
    expect(cache.entries.size).toBe(2);
    expect(kv.entries.size).toBe(2);
  });

  it("serves a historical window from KV in a data centre that has not seen it, and refills its cache", async () => {
    const origin = countingOrigin();
    const kv = new MemoryKv();
    await layer(origin.transport, { cache: new MemoryCache(), kv })(req(), never());
    const elsewhere = new MemoryCache();
    expect(await layer(origin.transport, { cache: elsewhere, kv })(req(), never())).toEqual({
      status: 200,
      body: answerFor(0),
    });
    expect(origin.calls).toHaveLength(1);
    expect(elsewhere.entries.size).toBe(1);
    expect([...kv.entries.values()][0]!.ttl).toBe(86_400);
  });

  it("writes a cold historical answer to the Cache API and KV side by side, not one after the other", async () => {
    const origin = countingOrigin();
    const kv = new MemoryKv();
    // A Cache API write that completes only once the KV write has started: sequential writes would
    // never get to KV and the request would not finish.
    const { cache: slowCache, open: kvStarted } = gatedCache();
    kv.put = async (key, body, ttl) => {
      kvStarted();
      kv.entries.set(key, { body, ttl });
    };
    const answered = layer(origin.transport, { cache: slowCache, kv })(req(), never());
    const outcome = await Promise.race([answered, new Promise((resolve) => setTimeout(() => resolve("stuck"), 1000))]);
    expect(outcome).toEqual({ status: 200, body: answerFor(0) });
    expect([...slowCache.entries.values()]).toEqual([{ body: stored(answerFor(0)), maxAge: 86_400 }]);
    expect([...kv.entries.values()]).toEqual([{ body: stored(answerFor(0)), ttl: 86_400 }]);
  });

  it("with a request's waitUntil, answers before its cache writes finish, and serves repeats meanwhile without the origin", async () => {
    const origin = countingOrigin();
    const { cache, open: finishWrites } = gatedCache();
    const deferred: Promise<unknown>[] = [];
    const flights = new SingleFlight<OriginOutcome>();
    const transport = layer(origin.transport, { cache, flights, defer: (p) => deferred.push(p) });

    // Answered while the Cache API write still hangs: the write was handed to waitUntil instead.
    expect(await transport(req(), never())).toEqual({ status: 200, body: answerFor(0) });
    expect(cache.entries.size).toBe(0);
    expect(deferred).toHaveLength(1);
    // A repeat before the entry exists is answered by the held flight, not by the origin.
    expect(await transport(req(), never())).toEqual({ status: 200, body: answerFor(0) });
    expect(origin.calls).toHaveLength(1);

    finishWrites();
    await Promise.all(deferred);
    expect([...cache.entries.values()]).toEqual([{ body: stored(answerFor(0)), maxAge: 86_400 }]);
    await Promise.resolve();
    expect(flights.size).toBe(0);
    expect(await transport(req(), never())).toEqual({ status: 200, body: answerFor(0) });
    expect(origin.calls).toHaveLength(1);
  });

  it("caches a window touching the last 10 minutes for 30 s locally and never in KV", async () => {
    const origin = countingOrigin();
    const cache = new MemoryCache();
    const kv = new MemoryKv();
    await layer(origin.transport, { cache, kv })(req({ window: RECENT }), never());
    expect([...cache.entries.values()].map((e) => e.maxAge)).toEqual([30]);
    expect(kv.entries.size).toBe(0);
  });

  it("never caches an error answer", async () => {
    const origin = countingOrigin(() => ({ status: 500, body: "boom" }));
    const cache = new MemoryCache();
    const kv = new MemoryKv();
    const t = layer(origin.transport, { cache, kv });
    expect(await t(req(), never())).toEqual({ status: 500, body: "boom" });
    expect(await t(req(), never())).toEqual({ status: 500, body: "boom" });
    expect(origin.calls).toHaveLength(2);
    expect(cache.entries.size + kv.entries.size).toBe(0);
  });

  it("never caches a 200 that is not what the endpoint promises, and passes it on for the client to reject", async () => {
    for (const body of [
      "<html>Bad gateway</html>",
      '{"values":[{"value":"a","hits":1}',
      '{"hits":[]}',
      '{"values":"x"}',
    ]) {
      const origin = countingOrigin(() => ({ status: 200, body }));
      const cache = new MemoryCache();
      const kv = new MemoryKv();
      const t = layer(origin.transport, { cache, kv });
      expect(await t(req(), never())).toEqual({ status: 200, body });
      expect(await t(req(), never())).toEqual({ status: 200, body });
      expect(origin.calls).toHaveLength(2);
      expect(cache.entries.size + kv.entries.size).toBe(0);
    }
  });

  it("treats a corrupt cache or KV entry as a miss and replaces it with the origin's answer", async () => {
    const origin = countingOrigin();
    const cache = new MemoryCache();
    const kv = new MemoryKv();
    const t = layer(origin.transport, { cache, kv });
    await t(req(), never());
    const [key] = [...cache.entries.keys()];
    cache.entries.set(key!, { body: "<html>cached error page</html>", maxAge: 86_400 });
    kv.entries.set(key!, { body: '{"values":[{"value":"t0"', ttl: 86_400 });
    expect(await t(req(), never())).toEqual({ status: 200, body: answerFor(0) });
    expect(origin.calls).toHaveLength(2);
    expect(cache.entries.get(key!)!.body).toBe(stored(answerFor(0)));
    expect(kv.entries.get(key!)!.body).toBe(stored(answerFor(0)));

    // A bad KV entry seen from a data centre with an empty cache is not copied into that cache.
    const elsewhere = new MemoryCache();
    kv.entries.set(key!, { body: "not json", ttl: 86_400 });
    expect(await layer(origin.transport, { cache: elsewhere, kv })(req(), never())).toEqual({
      status: 200,
      body: answerFor(0),
    });
    expect(elsewhere.entries.get(key!)!.body).toBe(stored(answerFor(0)));
    expect(origin.calls).toHaveLength(3);
  });

  it("caches nothing when the body breaks off after the headers, and reports it as 502", async () => {
    const cache = new MemoryCache();
    const t = layer(
      async () => {
        throw new OriginError(
          "origin-unavailable",
          "origin sent an invalid answer: the connection broke in the middle of the answer",
        );
      },
      { cache },
    );
    const err = await t(req(), never()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OriginError);
    expect(statusOf(err as RequestError)).toBe(502);
    expect((err as RequestError).message).toBe(
      "origin sent an invalid answer: the connection broke in the middle of the answer",
    );
    expect(cache.entries.size).toBe(0);
  });

  it("asks the origin once for identical concurrent misses in one isolate", async () => {
    const origin = countingOrigin();
    const release = origin.hold();
    const t = layer(origin.transport, { cache: new MemoryCache() });
    const answers = Promise.all(Array.from({ length: 5 }, () => t(req(), never())));
    await new Promise((r) => setTimeout(r, 10));
    release();
    expect((await answers).map((a) => a.body)).toEqual(Array(5).fill(answerFor(0)));
    expect(origin.calls).toHaveLength(1);
  });

  it("lets one caller give up without cancelling the answer the others wait for", async () => {
    const origin = countingOrigin();
    const release = origin.hold();
    const t = layer(origin.transport);
    const impatient = new AbortController();
    const first = t(req(), impatient.signal);
    const second = t(req(), never());
    await new Promise((r) => setTimeout(r, 10));
    impatient.abort(new Error("client went away"));
    await expect(first).rejects.toThrow("client went away");
    release();
    expect((await second).body).toBe(answerFor(0));
    expect(origin.calls).toHaveLength(1);
  });

  it("goes through the coalescer when bound, and leaves KV to it when it says it stored", async () => {
    const origin = countingOrigin();
    const kv = new MemoryKv();
    const asked: string[] = [];
    const t = layer(origin.transport, {
      kv,
      coalescerFor: (key) => ({
        fetchJson: async () => {
          asked.push(key);
          return { kind: "answer", status: 200, body: answerFor(9), kvStored: true };
        },
      }),
    });
    expect(await t(req(), never())).toEqual({ status: 200, body: answerFor(9) });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(origin.calls).toHaveLength(0);
    expect(kv.entries.size).toBe(0);
  });

  it("turns a coalesced timeout into Loki's 504", async () => {
    const t = layer(countingOrigin().transport, {
      coalescerFor: () => ({ fetchJson: async () => ({ kind: "timeout", timeoutMs: 1000 }) }),
    });
    const err = await t(req(), never()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestError);
    expect(statusOf(err as RequestError)).toBe(504);
  });

  it("falls back to the origin when the coalescer itself fails", async () => {
    const origin = countingOrigin();
    const t = layer(origin.transport, {
      coalescerFor: () => ({
        fetchJson: async () => {
          throw new Error("Durable Object overloaded");
        },
      }),
    });
    expect((await t(req(), never())).body).toBe(answerFor(0));
    expect(origin.calls).toHaveLength(1);
  });

  it("answers from the origin when the cache and KV fail", async () => {
    const origin = countingOrigin();
    const broken = async () => {
      throw new Error("storage down");
    };
    const t = layer(origin.transport, {
      cache: { get: broken, put: broken },
      kv: { get: broken, put: broken },
    });
    expect((await t(req(), never())).body).toBe(answerFor(0));
  });

  it("reads a stats-rows answer its caller keeps in pieces once, in the client: valid rows arrive, an invalid answer is Loki's 502 and never stored", async () => {
    const rowsOf = (body: string) => {
      const origin = countingOrigin(() => ({ status: 200, body }));
      const cache = new MemoryCache();
      const kv = new MemoryKv();
      const client = new OriginClient(
        { baseUrl: "http://vl:9428", timeoutMs: 1000 },
        { accountId: 0, projectId: 0 },
        undefined,
        layer(origin.transport, { cache, kv }),
      );
      const table = new StatsTable(["c"]);
      const done = client.readStatsRows("* | stats by (_time:1m) count() c", HISTORICAL, table);
      return { done, table, stores: () => cache.entries.size + kv.entries.size, calls: origin.calls };
    };

    const ok = rowsOf('{"_time":"2024-04-30T10:00:00Z","c":"3"}\n{"_time":"2024-04-30T10:01:00Z","c":"4"}\n');
    await ok.done;
    expect([0, 1].map((i) => ok.table.row(i))).toEqual([
      { _time: "2024-04-30T10:00:00Z", c: "3" },
      { _time: "2024-04-30T10:01:00Z", c: "4" },
    ]);
    expect(ok.table.length).toBe(2);
    expect(ok.stores()).toBe(0);

    for (const [body, message] of [
      ['{"_time":"2024-04-30T10:00:00Z","c":"3"}\n{"_time":"2024-04-30T10:0', "a row that is not JSON"],
      ["<html>Bad gateway</html>", "a row that is not JSON"],
      ['{"_time":"2024-04-30T10:00:00Z","c":"3"}\n[1,2]\n', "a row that is not a JSON object"],
    ] as const) {
      const bad = rowsOf(body);
      const err = await bad.done.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RequestError);
      expect(statusOf(err as RequestError)).toBe(502);
      expect((err as RequestError).message).toBe(`origin sent an invalid answer: ${message} from /select/logsql/query`);
      expect(bad.stores()).toBe(0);
      expect(bad.calls).toHaveLength(1);
    }
  });
});

describe("cachingTransport within a request's subrequest budget", () => {
  it("counts an origin request for a miss only, never for an answer the cache holds", async () => {
    const origin = countingOrigin();
    const cache = new MemoryCache();
    const budget = new SubrequestBudget({ subrequests: 1, cacheCalls: 10, kvOperations: 10 });
    const t = layer(origin.transport, { cache, claimOrigin: () => budget.claimOrigin() });
    expect((await t(req(), never())).body).toBe(answerFor(0));
    expect(budget.used.origin).toBe(1);
    // The limit is reached, but the same request is answered from the cache.
    expect((await t(req(), never())).body).toBe(answerFor(0));
    expect(budget.used.origin).toBe(1);
    // Another miss would be a second origin request: refused, before the origin is asked.
    await expect(t(req({ form: [["query", "other"]] }), never())).rejects.toBeInstanceOf(SubrequestBudgetError);
    expect(origin.calls).toHaveLength(1);
  });

  it("refuses only the caller whose budget is spent, not another request waiting on the same answer", async () => {
    const origin = countingOrigin();
    const release = origin.hold();
    const flights = new SingleFlight<OriginOutcome>();
    const roomy = new SubrequestBudget({ subrequests: 5, cacheCalls: 10, kvOperations: 10 });
    const spent = new SubrequestBudget({ subrequests: 0, cacheCalls: 10, kvOperations: 10 });
    const first = layer(origin.transport, { flights, claimOrigin: () => roomy.claimOrigin() })(req(), never());
    const second = layer(origin.transport, { flights, claimOrigin: () => spent.claimOrigin() })(req(), never());
    await expect(second).rejects.toBeInstanceOf(SubrequestBudgetError);
    release();
    expect((await first).body).toBe(answerFor(0));
    expect(origin.calls).toHaveLength(1);
  });
});

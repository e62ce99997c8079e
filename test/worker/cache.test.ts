/**
 * The cache layer inside workerd with the real Cache API, KV and coalescer Durable Object bindings,
 * in front of the real VictoriaLogs the global setup started. Origin requests are counted where
 * they leave the runtime: global fetch is wrapped (the Worker, the Durable Object and these tests
 * share one isolate here), so every request to the origin — whoever makes it — is seen.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { watchOrigin } from "../support/watch-origin";
import type { Env } from "../../src/config";
import { originConfigOf, readConfig } from "../../src/config";
import { cachingTransport } from "../../src/cache/cached-transport";
import { cacheApiAnswers, kvAnswers } from "../../src/cache/bindings";
import { coalescerStubs } from "../../src/cache/coalescer-stubs";
import { cacheKey } from "../../src/cache/keys";
import { SingleFlight } from "../../src/cache/singleflight";
import { unstamped } from "../../src/cache/stamp";
import type { OriginOutcome } from "../../src/cache/origin-outcome";
import { originTransport } from "../../src/cache/request-caches";
import { fetchJsonTransport, OriginClient, type JsonRequest, type JsonTransport } from "../../src/origin/client";
import type { Tenant } from "../../src/core/tenant";
import type { TimeWindow } from "../../src/core/time-window";
import { GATEWAY } from "./support/gateway";

const ENV = env as unknown as Env;
const ORIGIN = readConfig(ENV).originUrl;

/** The compat dataset lives in tenant 0:0 and spans this window; no other tenant has data. */
const DATA_WINDOW: TimeWindow = { start: 1769904000n * 1_000_000_000n, end: 1769925600n * 1_000_000_000n };
const WITH_DATA: Tenant = { accountId: 0, projectId: 0 };
const EMPTY: Tenant = { accountId: 42, projectId: 0 };

/** Calls to this test run's origin during the current test. */
const watch = (delayMs = 0) => watchOrigin(ORIGIN, delayMs);

function clientFor(tenant: Tenant, transport: JsonTransport): OriginClient {
  return new OriginClient(originConfigOf(readConfig(ENV)), tenant, undefined, transport);
}

const names = (res: { values: { value: string }[] }) => res.values.map((v) => v.value).sort();

describe("through the Worker", () => {
  const labels = (orgId: string, extraEnv: Partial<Env> = {}) =>
    import("../../src/app").then(({ createApp }) =>
      createApp().fetch(
        new Request("http://loki.test/loki/api/v1/labels?start=1769904000&end=1769925600", {
          headers: { "X-Scope-OrgID": orgId },
        }),
        { ...ENV, ...extraEnv },
      ),
    );

  it("serves a second identical /labels request without asking the origin, per tenant", async () => {
    const calls = watch();
    const first = await labels("0");
    const firstBody = await first.text();
    expect(first.status).toBe(200);
    expect(JSON.parse(firstBody).data).toContain("app");
    expect(calls.map((c) => c.path)).toEqual(["/select/logsql/stream_field_names"]);

    const second = await labels("0");
    expect(await second.text()).toBe(firstBody);
    expect(calls).toHaveLength(1);

    // Another tenant asks the same question: its own origin request, its own (empty) answer.
    const other = await labels("42");
    expect(JSON.parse(await other.text())).toEqual({ status: "success" });
    expect(calls.map((c) => c.accountId)).toEqual(["0", "42"]);
    expect(await (await labels("42")).text()).toBe('{"status":"success"}');
    expect(await (await labels("0")).text()).toBe(firstBody);
    expect(calls).toHaveLength(2);
  });

  it("asks the origin every time when CACHE=off", async () => {
    const calls = watch();
    // A window no other test uses, so nothing cached earlier could answer it.
    const url = "http://loki.test/loki/api/v1/labels?start=1769907600&end=1769911200";
    const { createApp } = await import("../../src/app");
    for (let i = 0; i < 2; i++) {
      const res = await createApp().fetch(new Request(url, { headers: GATEWAY }), { ...ENV, CACHE: "off" });
      expect(res.status).toBe(200);
    }
    expect(calls).toHaveLength(2);
  });
});

describe("the production transport (Cache API, KV, coalescer)", () => {
  it("keeps tenants' entries apart and serves repeats from the cache", async () => {
    const calls = watch();
    const transport = originTransport(readConfig(ENV));
    const window: TimeWindow = { start: DATA_WINDOW.start, end: DATA_WINDOW.end - 60_000_000_000n };
    const ask = (t: Tenant) => clientFor(t, transport).values("stream_field_names", "*", window);

    expect(names(await ask(WITH_DATA))).toContain("app");
    expect(names(await ask(EMPTY))).toEqual([]);
    expect(calls.map((c) => c.accountId)).toEqual(["0", "42"]);

    expect(names(await ask(EMPTY))).toEqual([]);
    expect(names(await ask(WITH_DATA))).toContain("app");
    expect(calls).toHaveLength(2);
  });

  it("treats a corrupt Cache API or KV entry as a miss and replaces it with the origin's answer", async () => {
    const calls = watch();
    const config = readConfig(ENV);
    const seen: JsonRequest[] = [];
    const direct = fetchJsonTransport(originConfigOf(config));
    const window: TimeWindow = { start: DATA_WINDOW.start, end: DATA_WINDOW.end - 240_000_000_000n };
    const transport = cachingTransport({
      origin: originConfigOf(config),
      timeoutMs: config.originTimeoutMs,
      direct: (req, signal) => {
        seen.push(req);
        return direct(req, signal);
      },
      cache: cacheApiAnswers(caches.default),
      kv: kvAnswers(ENV.CACHE_KV!),
      flights: new SingleFlight<OriginOutcome>(),
      nowMs: () => Number(window.end / 1_000_000n) + 86_400_000,
    });
    const ask = () => clientFor(WITH_DATA, transport).values("stream_field_names", "*", window);
    const first = await ask();
    expect(names(first)).toContain("app");
    const key = await cacheKey(originConfigOf(config), seen[0]!);
    const cacheUrl = `https://origin-answers.loki-vl.internal/v1/${key}`;

    await caches.default.put(cacheUrl, new Response("<html>502 Bad Gateway</html>"));
    await ENV.CACHE_KV!.put(`answer:v1:${key}`, '{"values":[{"value":"app"');
    expect(await ask()).toEqual(first);
    expect(calls).toHaveLength(2);
    // Stored entries are stamped with their expiry and the time they were asked (src/cache/stamp.ts).
    expect(JSON.parse(unstamped(await (await caches.default.match(cacheUrl))!.text())!.body)).toEqual(first);
    expect(JSON.parse(unstamped((await ENV.CACHE_KV!.get(`answer:v1:${key}`))!)!.body)).toEqual(first);
  });

  it("has the coalescer write a historical answer to KV under a tenant-specific key", async () => {
    watch();
    const transport = originTransport(readConfig(ENV));
    const window: TimeWindow = { start: DATA_WINDOW.start, end: DATA_WINDOW.end - 120_000_000_000n };
    await clientFor(WITH_DATA, transport).values("stream_field_values", "*", window, { field: "app" });
    await clientFor(EMPTY, transport).values("stream_field_values", "*", window, { field: "app" });

    const keyOf = (tenant: Tenant) =>
      cacheKey(originConfigOf(readConfig(ENV)), {
        path: "/select/logsql/stream_field_values",
        tenant,
        window,
        form: [
          ["query", `_time:[2026-02-01T00:00:00.000000000Z, 2026-02-01T05:58:00.000000000Z) *`],
          ["start", "2026-02-01T00:00:00.000000000Z"],
          ["end", "2026-02-01T05:58:00.000000000Z"],
          ["field", "app"],
        ],
      });
    const kv = ENV.CACHE_KV!;
    const read = async (tenant: Tenant) => {
      // The Durable Object finishes the write after answering.
      for (let i = 0; i < 50; i++) {
        const v = await kv.get(`answer:v1:${await keyOf(tenant)}`);
        if (v !== null) return JSON.parse(unstamped(v)!.body) as { values: { value: string }[] };
        await new Promise((r) => setTimeout(r, 20));
      }
      return undefined;
    };
    expect(names((await read(WITH_DATA))!)).toContain("auth");
    expect((await read(EMPTY))!).toEqual({ values: [] });
  });
});

describe("a window touching the last 10 minutes", () => {
  it("is served again from the Cache API but never written to KV", async () => {
    const calls = watch();
    const config = readConfig(ENV);
    const window: TimeWindow = { start: DATA_WINDOW.start, end: DATA_WINDOW.end - 300_000_000_000n };
    const transport = cachingTransport({
      origin: originConfigOf(config),
      timeoutMs: config.originTimeoutMs,
      direct: fetchJsonTransport(originConfigOf(config)),
      cache: cacheApiAnswers(caches.default),
      kv: kvAnswers(ENV.CACHE_KV!),
      flights: new SingleFlight<OriginOutcome>(),
      // "Now" is one minute after the window ends.
      nowMs: () => Number(window.end / 1_000_000n) + 60_000,
    });
    const ask = () => clientFor(WITH_DATA, transport).values("stream_field_names", "*", window);
    const first = await ask();
    expect(await ask()).toEqual(first);
    expect(calls).toHaveLength(1);
    const keys = await ENV.CACHE_KV!.list({ prefix: "answer:v1:" });
    const key = await cacheKey(originConfigOf(config), {
      path: "/select/logsql/stream_field_names",
      tenant: WITH_DATA,
      window,
      form: [
        ["query", `_time:[2026-02-01T00:00:00.000000000Z, 2026-02-01T05:55:00.000000000Z) *`],
        ["start", "2026-02-01T00:00:00.000000000Z"],
        ["end", "2026-02-01T05:55:00.000000000Z"],
      ],
    });
    expect(keys.keys.map((k) => k.name)).not.toContain(`answer:v1:${key}`);
    expect(await caches.default.match(`https://origin-answers.loki-vl.internal/v1/${key}`)).toBeDefined();
  });
});

describe("coalescing across isolates", () => {
  it("turns N concurrent identical misses into one origin request", async () => {
    // Each request is held 300 ms at the origin, so every caller arrives while the first is in flight.
    const calls = watch(300);
    const config = readConfig(ENV);
    const direct: JsonTransport = async () => {
      throw new Error("callers must not reach the origin directly while the coalescer is bound");
    };
    // Separate single-flight maps and no local cache: each caller behaves like its own isolate.
    const isolates = Array.from({ length: 8 }, () =>
      cachingTransport({
        origin: originConfigOf(config),
        timeoutMs: config.originTimeoutMs,
        direct,
        flights: new SingleFlight<OriginOutcome>(),
        coalescerFor: coalescerStubs(ENV.COALESCER!),
      }),
    );
    const window: TimeWindow = { start: DATA_WINDOW.start, end: DATA_WINDOW.end - 180_000_000_000n };
    const answers = await Promise.all(
      isolates.map((t) => clientFor(WITH_DATA, t).values("stream_field_names", '{app="auth"}', window)),
    );
    expect(calls.map((c) => [c.path, c.accountId])).toEqual([["/select/logsql/stream_field_names", "0"]]);
    expect(names(answers[0]!)).toContain("app");
    for (const a of answers) expect(a).toEqual(answers[0]);
  });

  it("does not coalesce different tenants' identical requests", async () => {
    const calls = watch(300);
    const config = readConfig(ENV);
    const make = () =>
      cachingTransport({
        origin: originConfigOf(config),
        timeoutMs: config.originTimeoutMs,
        direct: async () => {
          throw new Error("unexpected direct request");
        },
        flights: new SingleFlight<OriginOutcome>(),
        coalescerFor: coalescerStubs(ENV.COALESCER!),
      });
    const window: TimeWindow = { start: DATA_WINDOW.start, end: DATA_WINDOW.end - 240_000_000_000n };
    const [a, b] = await Promise.all([
      clientFor(WITH_DATA, make()).values("stream_field_names", "*", window),
      clientFor(EMPTY, make()).values("stream_field_names", "*", window),
    ]);
    expect(names(a)).toContain("app");
    expect(b.values).toEqual([]);
    expect(calls.map((c) => c.accountId).sort()).toEqual(["0", "42"]);
  });
});

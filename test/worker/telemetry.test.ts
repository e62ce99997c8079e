/**
 * Per-request telemetry inside workerd against the real origin: a Server-Timing header with the
 * request's phases, and one JSON log line with the route's pattern, the status, timings, origin
 * requests, cache figures and what was scanned — the tenant and the query only as digests.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import type { Env } from "../../src/config";
import { GATEWAY } from "./support/gateway";

afterEach(() => vi.restoreAllMocks());

async function observed(path: string, headers: Record<string, string> = {}, over: Partial<Env> = {}) {
  const lines: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(`http://loki.test${path}`, { headers: { ...GATEWAY, ...headers } }),
    { ...(env as Env), ...over },
    ctx,
  );
  const body = await res.text();
  await waitOnExecutionContext(ctx);
  const records = lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  return { res, body, records };
}

describe("telemetry", () => {
  it("times a metric query's phases and logs one line without the query's text", async () => {
    const query = 'sum by (app) (count_over_time({namespace="prod"} |= "secret-looking-text" [5m]))';
    const qs = new URLSearchParams({ query, start: "1769904000", end: "1769907600", step: "300" });
    const { res, body, records } = await observed(
      `/loki/api/v1/query_range?${qs}`,
      { "X-Scope-OrgID": "0" },
      { CACHE: "off" },
    );
    expect(res.status, body).toBe(200);
    const timing = res.headers.get("Server-Timing") ?? "";
    expect(timing).toMatch(
      /^total;dur=\d+\.\d, origin;dur=\d+\.\d;desc="1 requests", exec;dur=\d+\.\d, encode;dur=\d+\.\d/,
    );
    expect(records).toHaveLength(1);
    const line = records[0];
    expect(line).toMatchObject({
      message: "request",
      route: "/loki/api/v1/query_range",
      method: "GET",
      status: 200,
      origin: { requests: 1 },
      cache: { outcome: "bypass", hits: 0, misses: 0, stored: 0, bytesRead: 0 },
    });
    expect(line.tenant).toMatch(/^[0-9a-f]{16}$/);
    expect(line.query).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(line)).not.toContain("secret-looking-text");
    expect(line.durationMs).toBeGreaterThanOrEqual(line.phasesMs.exec);
    expect(line.phasesMs.encode).toBeGreaterThanOrEqual(line.phasesMs.exec);
  });

  it("gives equal queries of two tenants different digests, and reports scans and cache hits", async () => {
    const qs = new URLSearchParams({
      query: '{app="auth"}',
      start: "1769904000",
      end: "1769907600",
      limit: "10",
    });
    const a = await observed(`/loki/api/v1/query_range?${qs}`, { "X-Scope-OrgID": "0" });
    const b = await observed(`/loki/api/v1/query_range?${qs}`, { "X-Scope-OrgID": "42" });
    expect(a.records[0].query).not.toBe(b.records[0].query);
    expect(a.records[0].tenant).not.toBe(b.records[0].tenant);
    expect(a.records[0].scanned.rows, JSON.stringify(a.records[0])).toBeGreaterThan(0);
    const again = await observed(`/loki/api/v1/query_range?${qs}`, { "X-Scope-OrgID": "0" });
    expect(again.records[0].cache.hits).toBeGreaterThan(0);
    expect(again.records[0].cache.outcome).toBe("hit");
    expect(again.records[0].origin.requests).toBe(0);
  });

  it("logs errors with their status and the route pattern, not the client's path", async () => {
    const { res, records } = await observed(`/loki/api/v1/label/${encodeURIComponent("private-name")}/values?start=x`);
    expect(res.status).toBe(400);
    expect(records[0]).toMatchObject({ route: "/loki/api/v1/label/:name/values", status: 400 });
    expect(JSON.stringify(records[0])).not.toContain("private-name");
  });
});

describe("telemetry digests are keyed by the deployment", () => {
  const LABELS = "/loki/api/v1/labels?start=1769904000&end=1769907600";
  const QUERY = '{app="auth"}';
  const RANGE = `/loki/api/v1/query_range?${new URLSearchParams({ query: QUERY, start: "1769904000", end: "1769907600" })}`;

  /** What an unkeyed digest would be: anyone could compute it from a guessed tenant or query. */
  async function plainDigest(text: string): Promise<string> {
    const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
    return [...bytes.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  const logged = async (over: Partial<Env>, path = RANGE) => (await observed(path, GATEWAY, over)).records[0];

  it("are not the SHA-256 of the tenant or the query", async () => {
    const line = await logged({ CACHE: "off" });
    expect(line.tenant).toMatch(/^[0-9a-f]{16}$/);
    expect(line.tenant).not.toBe(await plainDigest("0:0"));
    expect(line.query).not.toBe(await plainDigest(`0:0\n${QUERY}`));
  });

  it("follow TELEMETRY_KEY: stable for one key across bindings objects (isolates), different for another", async () => {
    const one = { TELEMETRY_KEY: "telemetry-key-one-5f1c0a", CACHE: "off" };
    const a = await logged(one);
    const again = await logged({ ...one });
    const other = await logged({ TELEMETRY_KEY: "telemetry-key-two-9d2e7b", CACHE: "off" });
    expect(again.tenant).toBe(a.tenant);
    expect(again.query).toBe(a.query);
    expect(other.tenant).not.toBe(a.tenant);
    expect(other.query).not.toBe(a.query);
  });

  it("without TELEMETRY_KEY, are keyed by the other secrets; without any secret, by a random key", async () => {
    const byOrigin = await logged({ ORIGIN_AUTH_HEADER: "Bearer origin-credential-one", CACHE: "off" }, LABELS);
    const byOther = await logged({ ORIGIN_AUTH_HEADER: "Bearer origin-credential-two", CACHE: "off" }, LABELS);
    expect(byOther.tenant).not.toBe(byOrigin.tenant);
    // No secret at all: one bindings object keeps its key, another draws its own.
    const bare = { ...(env as Env), ORIGIN_AUTH_HEADER: undefined, CACHE: "off" };
    const digestOf = async (bindings: Env) => {
      const lines: string[] = [];
      vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
      const ctx = createExecutionContext();
      const res = await createApp().fetch(
        new Request(`http://loki.test${LABELS}`, { headers: GATEWAY }),
        bindings,
        ctx,
      );
      expect(res.status, await res.text()).toBe(200);
      await waitOnExecutionContext(ctx);
      vi.restoreAllMocks();
      return JSON.parse(lines.find((l) => l.startsWith("{"))!).tenant as string;
    };
    const first = await digestOf(bare);
    expect(await digestOf(bare)).toBe(first);
    expect(await digestOf({ ...bare })).not.toBe(first);
    expect(first).not.toBe(await plainDigest("0:0"));
  });
});

/**
 * The Analytics Engine data point each request writes, inside workerd against the real origin.
 * Miniflare's simulated dataset (wrangler.toml binds METRICS) keeps nothing a test could read, so
 * these requests pass a recording dataset in place of the binding and check every value it was
 * given: the route's pattern, the status, the tenant's keyed digest (the log line's), the cache
 * outcome, the origin and cache figures, and that no tenant name, query or secret is among them.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import type { Env } from "../../src/config";
import { CANARIES } from "../support/canaries.mjs";

afterEach(() => vi.restoreAllMocks());

/** The compat dataset (tenant 0:0) spans 2026-02-01T00:00Z to 06:00Z. */
const T0 = 1769904000;
const TENANT_NAME = "team-private-name";
const TELEMETRY_KEY = "metrics-test-telemetry-key-3b9f";

function recordingDataset() {
  const points: AnalyticsEngineDataPoint[] = [];
  return { points, writeDataPoint: (p?: AnalyticsEngineDataPoint) => void points.push(p!) };
}

async function request(path: string, over: Partial<Env> = {}) {
  const metrics = recordingDataset();
  const lines: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(`http://loki.test${path}`, { headers: { "X-Scope-OrgID": TENANT_NAME } }),
    {
      ...(env as Env),
      TENANT_MAP: JSON.stringify({ [TENANT_NAME]: "0:0" }),
      TELEMETRY_KEY,
      METRICS: metrics as unknown as AnalyticsEngineDataset,
      ...over,
    },
    ctx,
  );
  const body = await res.text();
  await waitOnExecutionContext(ctx);
  vi.restoreAllMocks();
  const line = JSON.parse(lines.find((l) => l.startsWith('{"message":"request"'))!);
  return { res, body, points: metrics.points, line };
}

const ROUTE = "/loki/api/v1/query_range";

function metricPath(query: string): string {
  return `${ROUTE}?${new URLSearchParams({ query, start: String(T0), end: String(T0 + 3600), step: "300" })}`;
}

/** Nothing a client sent or the deployment keeps secret is in the point. */
function expectNothingPrivate(point: AnalyticsEngineDataPoint, ...sent: string[]) {
  const text = JSON.stringify(point);
  for (const s of [TENANT_NAME, "0:0", TELEMETRY_KEY, CANARIES.ORIGIN_AUTH_HEADER, ...sent]) {
    expect(text).not.toContain(s);
  }
}

describe("Analytics Engine data points", () => {
  it("write one point per request with the request's figures: a miss, then a hit", async () => {
    const token = `metrics-${crypto.randomUUID()}`;
    const query = `sum by (app) (count_over_time({namespace="prod"} != "${token}" [5m]))`;
    const cold = await request(metricPath(query));
    expect(cold.res.status, cold.body).toBe(200);
    expect(cold.points).toHaveLength(1);
    const [missPoint] = cold.points;
    const pieces = Number(/detail="0\/(\d+) pieces"/.exec(cold.res.headers.get("Cache-Status") ?? "")![1]);
    const originRequests = Number(/origin;[^,]*desc="(\d+) requests"/.exec(cold.res.headers.get("Server-Timing")!)![1]);
    expect(cold.line.tenant).toMatch(/^[0-9a-f]{16}$/);
    expect(missPoint!.blobs).toEqual([ROUTE, "200", cold.line.tenant, "2xx", "miss", "GET"]);
    expect(missPoint!.indexes).toEqual([cold.line.tenant]);
    const [duration, originMs, requests, hits, misses, rows, , stored, originBytes, cacheBytes] = missPoint!
      .doubles as number[];
    expect(duration).toBe(cold.line.durationMs);
    expect(originMs).toBe(cold.line.origin.ms);
    expect(requests).toBe(originRequests);
    expect(requests).toBeGreaterThan(0);
    expect([hits, misses, cacheBytes]).toEqual([0, pieces, 0]);
    expect(rows).toBe(cold.line.scanned.rows);
    expect(stored).toBe(cold.line.cache.stored);
    expect(originBytes).toBeGreaterThan(0);
    expect(originBytes).toBe(cold.line.origin.bytes);
    expectNothingPrivate(missPoint!, token);

    const warm = await request(metricPath(query));
    expect(warm.points).toHaveLength(1);
    const [hitPoint] = warm.points;
    expect(hitPoint!.blobs).toEqual([ROUTE, "200", cold.line.tenant, "2xx", "hit", "GET"]);
    const d = hitPoint!.doubles as number[];
    // No origin request, no origin byte; every piece from the cache.
    expect([d[2], d[3], d[4], d[8]]).toEqual([0, pieces, 0, 0]);
    expect(d[9]).toBeGreaterThan(0);
    expectNothingPrivate(hitPoint!, token);
  });

  it("write errors with their status class and the route's pattern", async () => {
    const { res, points, line } = await request(`/loki/api/v1/label/${TENANT_NAME}-label/values?start=x`);
    expect(res.status).toBe(400);
    expect(points).toHaveLength(1);
    expect(points[0]!.blobs).toEqual(["/loki/api/v1/label/:name/values", "400", line.tenant, "4xx", "none", "GET"]);
    expect(points[0]!.doubles).toEqual([line.durationMs, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expectNothingPrivate(points[0]!);
  });

  it("say bypass for a no-cache request's point too", async () => {
    const metrics = recordingDataset();
    const ctx = createExecutionContext();
    const res = await createApp().fetch(
      new Request(`http://loki.test${metricPath('sum(count_over_time({namespace="prod"}[5m]))')}`, {
        headers: { "X-Scope-OrgID": "0", "Cache-Control": "no-cache" },
      }),
      { ...(env as Env), METRICS: metrics as unknown as AnalyticsEngineDataset },
      ctx,
    );
    expect(res.status, await res.text()).toBe(200);
    await waitOnExecutionContext(ctx);
    expect(metrics.points[0]!.blobs![4]).toBe("bypass");
  });

  it("never affect the answer: the simulated binding, no binding, a failing dataset", async () => {
    const path = metricPath('sum(count_over_time({namespace="prod"}[5m]))');
    const failing = {
      writeDataPoint() {
        throw new Error("dataset unavailable");
      },
    } as unknown as AnalyticsEngineDataset;
    const answers: string[] = [];
    for (const METRICS of [(env as Env).METRICS, undefined, failing]) {
      const ctx = createExecutionContext();
      const res = await createApp().fetch(
        new Request(`http://loki.test${path}`, { headers: { "X-Scope-OrgID": "0" } }),
        { ...(env as Env), METRICS },
        ctx,
      );
      expect(res.status).toBe(200);
      answers.push(JSON.stringify(JSON.parse(await res.text()).data.result));
      await waitOnExecutionContext(ctx);
    }
    expect((env as Env).METRICS).toBeDefined();
    expect(new Set(answers).size).toBe(1);
  });
});

/**
 * Origin failures surface as Loki-shaped errors, never as empty success, and never reveal the
 * origin's credentials.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { call as callWorker } from "./support/request";

const QUERY = "/loki/api/v1/query_range?query=%7Bapp%3D%22nginx%22%7D&start=1769904000&end=1769925600&limit=10";

async function call(overrides: Partial<Env>, path = QUERY, headers: Record<string, string> = {}) {
  const res = await callWorker(path, {}, { headers, env: overrides });
  return { status: res.status, type: res.headers.get("Content-Type"), body: res.body };
}

describe("origin failures", () => {
  it("an unreachable origin answers 502 naming the failure, without its credentials", async () => {
    const r = await call({ ORIGIN_URL: "http://loki-user:s3cret-pass@127.0.0.1:1" });
    expect(r.status).toBe(502);
    expect(r.type).toBe("text/plain; charset=utf-8");
    expect(r.body).toMatch(/^origin unreachable/);
    expect(r.body).not.toContain("s3cret");
    expect(r.body).not.toContain("loki-user");
  });

  it("a slow origin answers 504", async () => {
    const r = await call({ ORIGIN_TIMEOUT_MS: "1" });
    expect(r.status).toBe(504);
    expect(r.body).toContain("origin did not answer within 1 ms");
  });

  it("metadata endpoints fail the same way instead of answering empty", async () => {
    const r = await call(
      { ORIGIN_URL: "http://127.0.0.1:1", CACHE: "off" },
      "/loki/api/v1/labels?start=1769904000&end=1769925600",
    );
    expect(r.status).toBe(502);
  });
});

describe("tenancy and auth", () => {
  it("requires the configured token", async () => {
    const single = { TENANCY: "single", AUTH_TOKEN: "tok" };
    expect((await call(single)).status).toBe(401);
    expect((await call(single, QUERY, { Authorization: "Bearer tok" })).status).toBe(200);
    expect((await call(single, QUERY, { Authorization: `Basic ${btoa("grafana:tok")}` })).status).toBe(200);
  });

  it("another tenant sees none of tenant 0's data", async () => {
    const own = await call({}, QUERY);
    const other = await call({}, QUERY, { "X-Scope-OrgID": "42" });
    expect(JSON.parse(own.body).data.result.length).toBeGreaterThan(0);
    expect(other.status).toBe(200);
    expect(JSON.parse(other.body).data.result).toEqual([]);
  });

  it("refuses unknown tenant names instead of guessing a tenant", async () => {
    expect((await call({}, QUERY, { "X-Scope-OrgID": "team-a" })).status).toBe(401);
    expect((await call({ TENANT_MAP: '{"team-a":"0:0"}' }, QUERY, { "X-Scope-OrgID": "team-a" })).status).toBe(200);
  });
});

describe("Loki's fixed answers", () => {
  it("Grafana's health check returns 2", async () => {
    const r = await call({}, "/loki/api/v1/query?query=vector(1)%2Bvector(1)&time=4000000000");
    expect(r.status).toBe(200);
    const json = JSON.parse(r.body);
    expect(json.data.resultType).toBe("vector");
    expect(json.data.result[0].value).toEqual([4000000000, "2"]);
  });

  it("unknown paths answer Loki's 404", async () => {
    const r = await call({}, "/nope");
    expect(r.status).toBe(404);
    expect(r.body).toBe("404 page not found\n");
  });

  it("format_query prints the canonical form", async () => {
    const r = await call({}, "/loki/api/v1/format_query?query=%7B%20app%20%3D%20%22x%22%20%7D%7C%3D%22y%22");
    expect(JSON.parse(r.body)).toEqual({ status: "success", data: '{app="x"} |= "y"' });
  });
});

/**
 * A deployment's configuration mistakes, as an operator and Grafana meet them: `/ready` fails with
 * the reason, every query route (Grafana's "Save & test" included) answers the configuration error,
 * and `/ready?origin=1` checks the origin with the credentials a query would use. No answer quotes a
 * configured value.
 */
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../src/config";
import { CANARIES } from "../support/canaries.mjs";
import { GATEWAY } from "./support/gateway";
import { call as callWorker } from "./support/request";

async function call(path: string, overrides: Partial<Env>, headers: Record<string, string> = GATEWAY) {
  // Exactly these headers: some checks are made without the gateway's tenant.
  const res = await callWorker(path, {}, { headers, noGateway: true, env: overrides, settle: true });
  return { status: res.status, type: res.headers.get("Content-Type"), body: res.body };
}

/** What Grafana's "Save & test" asks a Loki data source (its health check), and Explore's first call. */
const HEALTH_CHECK = `/loki/api/v1/query?${new URLSearchParams({ query: "vector(1)+vector(1)", time: "4000000000" })}`;
const LABELS = "/loki/api/v1/labels?start=1769904000&end=1769925600";

/** The mistakes of the issue, each with the reason the Worker must give. */
const MISTAKES: [string, Partial<Env>, string][] = [
  [
    "malformed TENANTS",
    { TENANCY: undefined, TENANTS: '{"team-a": cnry-malformed-tenants' },
    "TENANTS is not valid JSON",
  ],
  ["unknown TENANCY", { TENANCY: "multi-tenant" }, 'TENANCY must be "single" or "header"'],
  ["ORIGIN_URL without a scheme", { ORIGIN_URL: "127.0.0.1:9428" }, "ORIGIN_URL is not a valid URL"],
  [
    "ORIGIN_URL with a host where the scheme belongs",
    { ORIGIN_URL: "victorialogs.internal:9428" },
    "ORIGIN_URL must start with http:// or https://",
  ],
  ["SPLIT_INTERVAL=bogus", { SPLIT_INTERVAL: "bogus" }, "SPLIT_INTERVAL must be a duration such as 90s, 10m or 1h"],
  ["MAX_ENTRIES_LIMIT=lots", { MAX_ENTRIES_LIMIT: "lots" }, "MAX_ENTRIES_LIMIT must be a positive integer"],
  ["CACHE=disabled", { CACHE: "disabled" }, "CACHE must be on or off (true/false, yes/no, 1/0)"],
  ["empty AUTH_TOKEN", { TENANCY: undefined, AUTH_TOKEN: "" }, "AUTH_TOKEN is set but empty"],
  ["empty ORIGIN_AUTH_HEADER", { ORIGIN_AUTH_HEADER: " " }, "ORIGIN_AUTH_HEADER is set but empty"],
];

describe("configuration errors surface at once", () => {
  it("/ready answers ready while the configuration is valid", async () => {
    const r = await call("/ready", {}, {});
    expect([r.status, r.body]).toEqual([200, "ready\n"]);
  });

  for (const [what, overrides, reason] of MISTAKES) {
    it(`${what}: /ready 503, and the health check and labels answer the reason`, async () => {
      const ready = await call("/ready", overrides, {});
      expect([ready.status, ready.type, ready.body]).toEqual([
        503,
        "text/plain; charset=utf-8",
        `configuration error: ${reason}`,
      ]);
      for (const path of [HEALTH_CHECK, LABELS]) {
        const r = await call(path, overrides);
        expect([r.status, r.body], path).toEqual([500, `configuration error: ${reason}`]);
      }
      for (const value of Object.values(overrides)) {
        if (typeof value === "string" && value.trim().length > 6) expect(ready.body).not.toContain(value);
      }
    });
  }
});

describe("/ready?origin=1: the authenticated origin check", () => {
  const check = (overrides: Partial<Env>, headers: Record<string, string> = GATEWAY) =>
    call("/ready?origin=1", overrides, headers);

  it("reports a reachable origin that accepts the credentials and answers LogsQL", async () => {
    const r = await check({});
    expect(r.status, r.body).toBe(200);
    expect(r.type).toBe("application/json; charset=UTF-8");
    const json = JSON.parse(r.body);
    expect(json).toMatchObject({
      status: "success",
      origin: { reachable: true, credentialsAccepted: true, answersLogsQL: true, httpStatus: 200 },
    });
    expect(json.origin.problem).toBeUndefined();
    expect(r.body).not.toContain(CANARIES.ORIGIN_AUTH_HEADER);
  });

  it("is authenticated as a query is: no tenant, no credential, no check", async () => {
    expect(await check({}, {})).toMatchObject({ status: 401, body: "no org id\n" });
    const single = { TENANCY: undefined, AUTH_TOKEN: CANARIES.AUTH_TOKEN };
    expect(await check(single, {})).toMatchObject({ status: 401, body: "authentication required" });
    expect((await check(single, { Authorization: `Bearer ${CANARIES.AUTH_TOKEN}` })).status).toBe(200);
    // The plain readiness probe stays open to the platform's health checks.
    expect((await call("/ready", single, {})).status).toBe(200);
  });

  it("reports credentials the origin refuses, without the origin's text or the credentials", async () => {
    const r = await check({ ORIGIN_URL: `${inject("echoingOriginUrl")}/401` });
    expect(r.status).toBe(503);
    expect(JSON.parse(r.body)).toEqual({
      status: "error",
      origin: {
        reachable: true,
        credentialsAccepted: false,
        answersLogsQL: false,
        httpStatus: 401,
        elapsedMs: expect.any(Number),
        problem: "the origin refused the credentials (HTTP 401): check ORIGIN_AUTH_HEADER",
      },
    });
    expect(r.body).not.toContain("cnry-");
  });

  it("reports an origin that answers, but not LogsQL", async () => {
    const r = await check({ ORIGIN_URL: `${inject("echoingOriginUrl")}/200` });
    expect(r.status).toBe(503);
    expect(JSON.parse(r.body).origin).toMatchObject({
      reachable: true,
      credentialsAccepted: true,
      answersLogsQL: false,
      problem: "the origin's answer is not a LogsQL result: is ORIGIN_URL a VictoriaLogs?",
    });
    expect(r.body).not.toContain("cnry-");
  });

  it("reports an origin that cannot be reached", async () => {
    const r = await check({ ORIGIN_URL: "http://127.0.0.1:1" });
    expect(r.status).toBe(503);
    expect(JSON.parse(r.body).origin).toMatchObject({
      reachable: false,
      credentialsAccepted: null,
      answersLogsQL: null,
      problem: "the origin could not be reached (connection failed)",
    });
  });

  it("answers the configuration error first", async () => {
    const r = await check({ MAX_ENTRIES_LIMIT: "lots" });
    expect([r.status, r.body]).toEqual([503, "configuration error: MAX_ENTRIES_LIMIT must be a positive integer"]);
  });
});

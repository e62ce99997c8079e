/**
 * Tenant binding through the real Worker and the real VictoriaLogs: which caller may read which
 * tenant in each tenancy mode. The compat dataset lives in tenant 0:0; tenant 42:0 is empty, so a
 * non-empty answer proves a request read 0:0.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { call as callWorker } from "./support/request";

const QUERY = "/loki/api/v1/query_range?query=%7Bapp%3D%22nginx%22%7D&start=1769904000&end=1769925600&limit=5";

const TOKEN_A = "tenancy-test-token-a-0b7d5e2c";
const TOKEN_A_NEXT = "tenancy-test-token-a-next-93f1aa";
const TOKEN_B = "tenancy-test-token-b-5c44e1d0";

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const TENANTS = JSON.stringify({
  "team-a": { tenant: "0:0", token_sha256: [await sha256Hex(TOKEN_A), await sha256Hex(TOKEN_A_NEXT)] },
  "team-b": { tenant: "42:0", token_sha256: [await sha256Hex(TOKEN_B)] },
});

/** The deployment defaults: wrangler.toml's vars without the test run's TENANCY=header. */
const DEPLOYED: Partial<Env> = { TENANCY: undefined };

async function call(overrides: Partial<Env>, headers: Record<string, string> = {}, path = QUERY) {
  // Exactly these headers: tenancy is about what arrives without the gateway's.
  const res = await callWorker(path, {}, { headers, noGateway: true, env: overrides });
  return { status: res.status, type: res.headers.get("Content-Type"), body: res.body };
}

/** Number of streams in a successful answer (0 for tenant 42:0, more for 0:0). */
function streams(r: { status: number; body: string }): number {
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body).data.result.length;
}

const basic = (user: string, token: string) => ({ Authorization: `Basic ${btoa(`${user}:${token}`)}` });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe("safe default: one tenant, no credentials", () => {
  it("serves tenant 0:0 without any header", async () => {
    expect(streams(await call(DEPLOYED))).toBeGreaterThan(0);
  });

  it("accepts X-Scope-OrgID naming that tenant", async () => {
    expect(streams(await call(DEPLOYED, { "X-Scope-OrgID": "0" }))).toBeGreaterThan(0);
    expect(streams(await call(DEPLOYED, { "X-Scope-OrgID": "0:0" }))).toBeGreaterThan(0);
  });

  it("refuses X-Scope-OrgID naming any other tenant with 403", async () => {
    for (const orgId of ["42", "0:1", "team-a"]) {
      const r = await call(DEPLOYED, { "X-Scope-OrgID": orgId });
      expect(r.status).toBe(403);
      expect(r.type).toBe("text/plain; charset=utf-8");
      expect(r.body).toBe(`X-Scope-OrgID ${JSON.stringify(orgId)} is not a tenant these credentials may read`);
    }
  });

  it("serves the configured TENANT instead of 0:0", async () => {
    expect(streams(await call({ ...DEPLOYED, TENANT: "42" }))).toBe(0);
    expect((await call({ ...DEPLOYED, TENANT: "42" }, { "X-Scope-OrgID": "0" })).status).toBe(403);
    expect(streams(await call({ ...DEPLOYED, TENANT: "42" }, { "X-Scope-OrgID": "42:0" }))).toBe(0);
  });

  it("lets a TENANT_MAP name address the served tenant, and no other", async () => {
    const map = { ...DEPLOYED, TENANT_MAP: '{"ops":"0:0","other":"42:0"}' };
    expect(streams(await call(map, { "X-Scope-OrgID": "ops" }))).toBeGreaterThan(0);
    expect((await call(map, { "X-Scope-OrgID": "other" })).status).toBe(403);
  });
});

describe("single tenant with AUTH_TOKEN", () => {
  const withToken = { ...DEPLOYED, AUTH_TOKEN: TOKEN_A };

  it("refuses anonymous and wrong credentials with 401", async () => {
    for (const headers of [
      {} as Record<string, string>,
      bearer(TOKEN_B),
      basic("grafana", TOKEN_B),
      { Authorization: "Token x" },
    ]) {
      const r = await call(withToken, headers);
      expect(r.status).toBe(401);
      expect(r.body).toBe("authentication required");
    }
  });

  it("serves the token's tenant to Bearer and to Basic with any user", async () => {
    expect(streams(await call(withToken, bearer(TOKEN_A)))).toBeGreaterThan(0);
    expect(streams(await call(withToken, basic("grafana", TOKEN_A)))).toBeGreaterThan(0);
  });

  it("does not let the token pick another tenant", async () => {
    expect((await call(withToken, { ...bearer(TOKEN_A), "X-Scope-OrgID": "42" })).status).toBe(403);
  });
});

describe("per-tenant credentials (TENANTS)", () => {
  const bound = { ...DEPLOYED, TENANTS };

  it("refuses anonymous requests, unknown tokens and a token under another tenant's name", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { "X-Scope-OrgID": "team-a" },
      bearer("not-a-token"),
      basic("team-a", TOKEN_B),
      basic("team-b", TOKEN_A),
      basic("nobody", TOKEN_A),
    ]) {
      const r = await call(bound, headers);
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(r.body).toBe("authentication required");
    }
  });

  it("binds each credential to its tenant when X-Scope-OrgID is absent", async () => {
    expect(streams(await call(bound, basic("team-a", TOKEN_A)))).toBeGreaterThan(0);
    expect(streams(await call(bound, bearer(TOKEN_A)))).toBeGreaterThan(0);
    expect(streams(await call(bound, basic("team-b", TOKEN_B)))).toBe(0);
    expect(streams(await call(bound, bearer(TOKEN_B)))).toBe(0);
  });

  it("tenant B's credential cannot read tenant A, by name or by id", async () => {
    for (const orgId of ["team-a", "0", "0:0"]) {
      for (const headers of [basic("team-b", TOKEN_B), bearer(TOKEN_B)]) {
        const r = await call(bound, { ...headers, "X-Scope-OrgID": orgId });
        expect(r.status).toBe(403);
        expect(r.body).toBe(`X-Scope-OrgID ${JSON.stringify(orgId)} is not a tenant these credentials may read`);
      }
    }
  });

  it("accepts X-Scope-OrgID repeating the credential's own tenant", async () => {
    expect(streams(await call(bound, { ...basic("team-a", TOKEN_A), "X-Scope-OrgID": "team-a" }))).toBeGreaterThan(0);
    expect(streams(await call(bound, { ...bearer(TOKEN_A), "X-Scope-OrgID": "0:0" }))).toBeGreaterThan(0);
    expect(streams(await call(bound, { ...bearer(TOKEN_B), "X-Scope-OrgID": "team-b" }))).toBe(0);
  });

  it("accepts both hashes of a tenant during rotation", async () => {
    expect(streams(await call(bound, basic("team-a", TOKEN_A_NEXT)))).toBeGreaterThan(0);
    expect(streams(await call(bound, bearer(TOKEN_A_NEXT)))).toBeGreaterThan(0);
    expect(streams(await call(bound, basic("team-a", TOKEN_A)))).toBeGreaterThan(0);
  });

  it("metadata routes are bound the same way (labels of 0:0 are not served to B)", async () => {
    const labels = "/loki/api/v1/labels?start=1769904000&end=1769925600";
    const a = await call(bound, bearer(TOKEN_A), labels);
    const b = await call(bound, bearer(TOKEN_B), labels);
    expect(JSON.parse(a.body).data).toContain("app");
    expect(b.status).toBe(200);
    expect(JSON.parse(b.body).data ?? []).not.toContain("app");
  });
});

describe("header mode (behind an authenticating gateway)", () => {
  it("lets X-Scope-OrgID choose any numeric tenant without TENANT_MAP", async () => {
    expect(streams(await call({ TENANCY: "header" }, { "X-Scope-OrgID": "42" }))).toBe(0);
    expect(streams(await call({ TENANCY: "header" }, { "X-Scope-OrgID": "0" }))).toBeGreaterThan(0);
  });

  it("treats TENANT_MAP as an allowlist: unknown names and unlisted ids are refused", async () => {
    const mapped = { TENANCY: "header", TENANT_MAP: '{"team-a":"0:0"}' };
    expect(streams(await call(mapped, { "X-Scope-OrgID": "team-a" }))).toBeGreaterThan(0);
    expect(streams(await call(mapped, { "X-Scope-OrgID": "0:0" }))).toBeGreaterThan(0);
    for (const orgId of ["42", "team-z"]) {
      const r = await call(mapped, { "X-Scope-OrgID": orgId });
      expect(r.status).toBe(401);
      expect(r.body).toBe(`unknown tenant ${JSON.stringify(orgId)}`);
    }
  });
});

describe("header mode without X-Scope-OrgID", () => {
  const LABELS = "/loki/api/v1/labels?start=1769904000&end=1769925600";

  it("answers Loki's 401 no org id, with or without TENANT_MAP, on data and metadata routes", async () => {
    for (const overrides of [{ TENANCY: "header" }, { TENANCY: "header", TENANT_MAP: '{"team-a":"0:0"}' }]) {
      for (const headers of [{}, { "X-Scope-OrgID": "" }] as Record<string, string>[]) {
        for (const path of [QUERY, LABELS]) {
          const r = await call(overrides, headers, path);
          expect([r.status, r.type, r.body], `${JSON.stringify(overrides)} ${JSON.stringify(headers)} ${path}`).toEqual(
            [401, "text/plain; charset=utf-8", "no org id\n"],
          );
        }
      }
    }
  });
});

describe("secrets that are set but empty", () => {
  it("never serve anonymously: a blank AUTH_TOKEN or TENANTS is a configuration error", async () => {
    for (const blank of ["", " ", "\n"]) {
      for (const [name, overrides] of [
        ["AUTH_TOKEN", { ...DEPLOYED, AUTH_TOKEN: blank }],
        ["TENANTS", { ...DEPLOYED, TENANTS: blank }],
        ["AUTH_TOKEN", { ...DEPLOYED, TENANT: "0", AUTH_TOKEN: blank }],
      ] as const) {
        for (const headers of [{}, bearer("anything"), { "X-Scope-OrgID": "0" }] as Record<string, string>[]) {
          const r = await call(overrides, headers);
          expect([r.status, r.body], `${name}=${JSON.stringify(blank)}`).toEqual([
            500,
            `configuration error: ${name} is set but empty`,
          ]);
        }
      }
    }
  });

  it("an empty TENANT_MAP does not open header mode to every tenant", async () => {
    for (const map of ["", "{}"]) {
      const r = await call({ TENANCY: "header", TENANT_MAP: map }, { "X-Scope-OrgID": "42" });
      expect(r.status).toBe(500);
      expect(r.body).toMatch(/^configuration error: TENANT_MAP (is set but empty|lists no tenant)$/);
    }
  });
});

describe("configuration errors", () => {
  it("malformed TENANTS answers 500 naming the variable, not its content", async () => {
    const r = await call({ ...DEPLOYED, TENANTS: '{"team-a": secret-looking-text' }, bearer(TOKEN_A));
    expect(r.status).toBe(500);
    expect(r.body).toBe("configuration error: TENANTS is not valid JSON");
  });

  it("a TENANTS entry without valid hashes answers 500", async () => {
    const r = await call({ ...DEPLOYED, TENANTS: '{"team-a":{"tenant":"0:0","token_sha256":["abc"]}}' });
    expect(r.status).toBe(500);
    expect(r.body).toBe("configuration error: TENANTS entry 1: token_sha256 holds a value that is not 64 hex digits");
  });

  it("header mode combined with credentials is refused rather than guessed", async () => {
    const r = await call({ TENANCY: "header", AUTH_TOKEN: TOKEN_A }, bearer(TOKEN_A));
    expect(r.status).toBe(500);
    expect(r.body).toBe(
      "configuration error: TENANCY=header trusts X-Scope-OrgID and cannot be combined with AUTH_TOKEN or TENANTS",
    );
  });

  it("malformed TENANT_MAP answers 500 instead of crashing", async () => {
    const r = await call({ TENANCY: "header", TENANT_MAP: "{nope" }, { "X-Scope-OrgID": "0" });
    expect(r.status).toBe(500);
    expect(r.body).toBe("configuration error: TENANT_MAP is not valid JSON");
  });
});

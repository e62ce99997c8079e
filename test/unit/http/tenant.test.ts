/** X-Scope-OrgID against the tenant a credential or the policy fixed, and TENANT_MAP as an allowlist. */
import { describe, expect, it } from "vitest";
import { readTenancyPolicy } from "../../../src/auth/policy";
import { RequestError } from "../../../src/core/errors";
import { statusOf } from "../../../src/http/errors";
import { acceptsMultiTenant, resolveTenant, resolveTenants } from "../../../src/http/tenant";
import type { Tenant } from "../../../src/core/tenant";

const t = (accountId: number, projectId = 0): Tenant => ({ accountId, projectId });

function refusal(run: () => unknown): [number, string] {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(RequestError);
    return [statusOf(err as RequestError), (err as RequestError).message];
  }
  throw new Error("expected a refusal");
}

const CREDENTIALS = readTenancyPolicy({
  TENANTS: JSON.stringify({
    "team-a": { tenant: "1", token_sha256: ["a".repeat(64)] },
    "team-b": { tenant: "2:7", token_sha256: ["b".repeat(64)] },
  }),
  TENANT_MAP: '{"alias-a":"1:0"}',
});

describe("resolveTenant with a bound tenant", () => {
  it("uses the bound tenant when X-Scope-OrgID is absent or empty", () => {
    expect(resolveTenant(CREDENTIALS, t(2, 7), null)).toEqual(t(2, 7));
    expect(resolveTenant(CREDENTIALS, t(2, 7), "")).toEqual(t(2, 7));
  });

  it("accepts X-Scope-OrgID naming the same tenant by name, alias or id", () => {
    for (const orgId of ["team-a", "alias-a", "1", "1:0"])
      expect(resolveTenant(CREDENTIALS, t(1), orgId)).toEqual(t(1));
  });

  it("refuses X-Scope-OrgID naming any other tenant with 403", () => {
    for (const orgId of ["team-b", "2:7", "2", "1:1", "unknown"]) {
      expect(refusal(() => resolveTenant(CREDENTIALS, t(1), orgId))).toEqual([
        403,
        `X-Scope-OrgID ${JSON.stringify(orgId)} is not a tenant these credentials may read`,
      ]);
    }
  });

  it("refuses multi-tenant ids with 400", () => {
    expect(refusal(() => resolveTenant(CREDENTIALS, t(1), "1|2"))).toEqual([
      400,
      "multi-tenant queries are not supported by this endpoint",
    ]);
  });

  it("single mode: only the configured tenant", () => {
    const single = readTenancyPolicy({ TENANT: "3:1" });
    expect(resolveTenant(single, t(3, 1), "3:1")).toEqual(t(3, 1));
    expect(refusal(() => resolveTenant(single, t(3, 1), "3"))[0]).toBe(403);
  });
});

describe("resolveTenant in header mode", () => {
  it("without TENANT_MAP: any numeric id, names refused", () => {
    const open = readTenancyPolicy({ TENANCY: "header" });
    expect(resolveTenant(open, undefined, "0")).toEqual(t(0));
    expect(resolveTenant(open, undefined, "42:1")).toEqual(t(42, 1));
    expect(refusal(() => resolveTenant(open, undefined, "team-a"))).toEqual([401, 'unknown tenant "team-a"']);
  });

  it("refuses a missing or empty X-Scope-OrgID with Loki's 401, with or without TENANT_MAP", () => {
    const open = readTenancyPolicy({ TENANCY: "header" });
    const listed = readTenancyPolicy({ TENANCY: "header", TENANT_MAP: '{"team-a":"0:0"}' });
    for (const policy of [open, listed]) {
      for (const orgId of [null, ""]) {
        expect(refusal(() => resolveTenant(policy, undefined, orgId))).toEqual([401, "no org id\n"]);
      }
    }
  });

  it("with TENANT_MAP: listed names and the ids they map to, nothing else", () => {
    const listed = readTenancyPolicy({ TENANCY: "header", TENANT_MAP: '{"team-a":"12","team-b":"12:5"}' });
    expect(resolveTenant(listed, undefined, "team-b")).toEqual(t(12, 5));
    expect(resolveTenant(listed, undefined, "12")).toEqual(t(12));
    expect(resolveTenant(listed, undefined, "12:5")).toEqual(t(12, 5));
    for (const orgId of ["13", "12:6", "team-c", "__proto__", "constructor"]) {
      expect(
        refusal(() => resolveTenant(listed, undefined, orgId)),
        orgId,
      ).toEqual([401, `unknown tenant ${JSON.stringify(orgId)}`]);
    }
  });
});

describe("resolveTenants: multi-tenant ids", () => {
  const teamA = CREDENTIALS.mode === "credentials" ? CREDENTIALS.tenants[0]!.tenant : t(1);
  const SHARING = readTenancyPolicy({
    TENANTS: JSON.stringify({
      ops: { tenant: "1", token_sha256: ["a".repeat(64)], tenants: ["team-b", "9:9"] },
      "team-b": { tenant: "2:7", token_sha256: ["b".repeat(64)] },
    }),
  });
  const ops = SHARING.mode === "credentials" ? SHARING.tenants[0]!.tenant : t(1);
  const teamB = SHARING.mode === "credentials" ? SHARING.tenants[1]!.tenant : t(2, 7);

  it("a plain id is one tenant named as sent, unchanged", () => {
    expect(resolveTenants(CREDENTIALS, teamA, "alias-a")).toEqual([{ name: "alias-a", tenant: t(1) }]);
    expect(resolveTenants(CREDENTIALS, teamA, null)).toEqual([{ name: "", tenant: t(1) }]);
  });

  it("header mode: each tenant as it would be alone, sorted and without repeats as Loki normalises", () => {
    const listed = readTenancyPolicy({ TENANCY: "header", TENANT_MAP: '{"b":"12","a":"12:5"}' });
    expect(resolveTenants(listed, undefined, "b|a|b")).toEqual([
      { name: "a", tenant: t(12, 5) },
      { name: "b", tenant: t(12) },
    ]);
    expect(refusal(() => resolveTenants(listed, undefined, "a|13"))).toEqual([401, 'unknown tenant "13"']);
    expect(refusal(() => resolveTenants(listed, undefined, "a|"))[0]).toBe(400);
    // Two names of one tenant would count its lines twice.
    expect(refusal(() => resolveTenants(listed, undefined, "b|12"))[0]).toBe(400);
  });

  it("credentials: the entry's own tenant and those its `tenants` lists, nothing else", () => {
    expect(resolveTenants(SHARING, ops, "ops|team-b|9:9").map((n) => n.tenant)).toEqual([t(9, 9), t(1), t(2, 7)]);
    expect(refusal(() => resolveTenants(SHARING, ops, "ops|3"))).toEqual([
      403,
      'X-Scope-OrgID "3" is not a tenant these credentials may read',
    ]);
    // The list is one-way: team-b's credential does not read ops.
    expect(refusal(() => resolveTenants(SHARING, teamB, "ops|team-b"))).toEqual([
      403,
      'X-Scope-OrgID "ops" is not a tenant these credentials may read',
    ]);
    // Without a multi-tenant id, a listed tenant is readable alone too.
    expect(resolveTenants(SHARING, ops, "team-b")).toEqual([{ name: "team-b", tenant: t(2, 7) }]);
  });

  it("single mode: a multi-tenant id can only repeat the one tenant", () => {
    const single = readTenancyPolicy({ TENANT: "3:1" });
    expect(refusal(() => resolveTenants(single, t(3, 1), "3:1|4"))[0]).toBe(403);
  });

  it("bounds the fan-out", () => {
    const open = readTenancyPolicy({ TENANCY: "header" });
    const many = Array.from({ length: 9 }, (_, i) => String(i)).join("|");
    expect(refusal(() => resolveTenants(open, undefined, many))).toEqual([
      400,
      "a multi-tenant query may name at most 8 tenants",
    ]);
  });

  it("only the endpoints Loki answers across tenants accept it", () => {
    for (const path of [
      "/loki/api/v1/query_range",
      "/loki/api/v1/query",
      "/loki/api/v1/labels",
      "/loki/api/v1/label/app/values",
      "/api/prom/label/app/values",
      "/loki/api/v1/series",
      "/loki/api/v1/index/stats",
      "/loki/api/v1/index/volume",
      "/loki/api/v1/index/volume_range",
      "/loki/api/v1/patterns",
      "/loki/api/v1/detected_labels",
      "/loki/api/v1/detected_fields",
      "/loki/api/v1/detected_field/status/values",
      "/loki/api/v1/format_query",
      "/loki/api/v1/rules",
      "/api/prom/rules/ns/group",
      "/prometheus/api/v1/rules",
    ]) {
      expect(acceptsMultiTenant(path), path).toBe(true);
    }
    for (const path of [
      "/loki/api/v1/tail",
      "/loki/api/v1/drilldown-limits",
      "/loki/api/v1/detected_field/a/b/values",
      "/ready",
    ]) {
      expect(acceptsMultiTenant(path), path).toBe(false);
    }
  });
});

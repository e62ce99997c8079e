/** X-Scope-OrgID against the tenant a credential or the policy fixed, and TENANT_MAP as an allowlist. */
import { describe, expect, it } from "vitest";
import { readTenancyPolicy } from "../../../src/auth/policy";
import { HttpError } from "../../../src/http/errors";
import { resolveTenant } from "../../../src/http/tenant";
import type { Tenant } from "../../../src/origin/client";

const t = (accountId: number, projectId = 0): Tenant => ({ accountId, projectId });

function refusal(run: () => unknown): [number, string] {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    return [(err as HttpError).status, (err as HttpError).message];
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
      "multi-tenant queries are not supported",
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

/** Parsing the tenancy variables: modes, defaults, and configuration errors that name no secret. */
import { describe, expect, it } from "vitest";
import { parseTenantId, readTenancyPolicy } from "../../../src/auth/policy";
import { ConfigError } from "../../../src/core/config-error";

const HASH_1 = "a".repeat(64);
const HASH_2 = "B".repeat(64);

function configError(vars: Parameters<typeof readTenancyPolicy>[0]): string {
  try {
    readTenancyPolicy(vars);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a configuration error");
}

describe("readTenancyPolicy", () => {
  it("defaults to one anonymous tenant, 0:0", () => {
    expect(readTenancyPolicy({})).toEqual({
      mode: "single",
      tenant: { accountId: 0, projectId: 0 },
      tenantMap: new Map(),
    });
  });

  it("serves the configured TENANT, guarded by AUTH_TOKEN when set", () => {
    expect(readTenancyPolicy({ TENANT: "7:3", AUTH_TOKEN: "t0ken" })).toEqual({
      mode: "single",
      tenant: { accountId: 7, projectId: 3 },
      token: "t0ken",
      tenantMap: new Map(),
    });
  });

  it("lets X-Scope-OrgID choose only when TENANCY=header, with TENANT_MAP parsed", () => {
    const policy = readTenancyPolicy({ TENANCY: "header", TENANT_MAP: '{"team-a":"12","team-b":"12:5"}' });
    expect(policy).toEqual({
      mode: "header",
      tenantMap: new Map([
        ["team-a", { accountId: 12, projectId: 0 }],
        ["team-b", { accountId: 12, projectId: 5 }],
      ]),
    });
  });

  it("binds TENANTS credentials, several digests per tenant, case-insensitive hex", () => {
    const policy = readTenancyPolicy({
      TENANTS: JSON.stringify({ "team-a": { tenant: "1:2", token_sha256: [HASH_1, HASH_2] } }),
    });
    expect(policy.mode).toBe("credentials");
    if (policy.mode !== "credentials") return;
    expect(policy.tenants).toHaveLength(1);
    expect(policy.tenants[0]!.name).toBe("team-a");
    expect(policy.tenants[0]!.tenant).toEqual({ accountId: 1, projectId: 2 });
    expect(policy.tenants[0]!.tokenDigests.map((d) => Buffer.from(d).toString("hex"))).toEqual([
      HASH_1,
      "b".repeat(64),
    ]);
  });

  it("reads an entry's optional `tenants`: the further tenant names its credential may read", () => {
    const policy = readTenancyPolicy({
      TENANTS: JSON.stringify({
        ops: { tenant: "1", token_sha256: HASH_1, tenants: ["team-b", "7:1"] },
        "team-b": { tenant: "2", token_sha256: HASH_2 },
      }),
    });
    expect(policy.mode === "credentials" && policy.tenants.map((e) => e.alsoReads)).toEqual([["team-b", "7:1"], []]);
    for (const tenants of ["team-b", ["a|b"], [""], [3], ["a b"]]) {
      expect(configError({ TENANTS: JSON.stringify({ a: { tenant: "1", token_sha256: HASH_1, tenants } }) })).toBe(
        "TENANTS entry 1: tenants must list tenant names, each non-empty, without '|' or spaces",
      );
    }
  });

  it("accepts a single digest as a string", () => {
    const policy = readTenancyPolicy({ TENANTS: JSON.stringify({ a: { tenant: "1", token_sha256: HASH_1 } }) });
    expect(policy.mode === "credentials" && policy.tenants[0]!.tokenDigests).toHaveLength(1);
  });

  it("refuses malformed JSON without quoting it", () => {
    const message = configError({ TENANTS: '{"a": "my-secret-token' });
    expect(message).toBe("TENANTS is not valid JSON");
    expect(configError({ TENANCY: "header", TENANT_MAP: "[1" })).toBe("TENANT_MAP is not valid JSON");
    expect(configError({ TENANTS: "[]" })).toBe("TENANTS must be a JSON object");
  });

  it("refuses entries it cannot use, naming the entry but not the value", () => {
    expect(configError({ TENANTS: JSON.stringify({ a: { tenant: "x", token_sha256: [HASH_1] } }) })).toBe(
      'TENANTS entry 1: tenant must be "AccountID:ProjectID"',
    );
    expect(configError({ TENANTS: JSON.stringify({ a: { tenant: "1", token_sha256: [] } }) })).toBe(
      "TENANTS entry 1: token_sha256 must list at least one SHA-256 hex digest",
    );
    const plain = configError({ TENANTS: JSON.stringify({ a: { tenant: "1", token_sha256: ["plaintext-token"] } }) });
    expect(plain).toBe("TENANTS entry 1: token_sha256 holds a value that is not 64 hex digits");
    expect(plain).not.toContain("plaintext-token");
    expect(configError({ TENANTS: JSON.stringify({ "a:b": { tenant: "1", token_sha256: [HASH_1] } }) })).toBe(
      "TENANTS entry 1: the tenant name must be non-empty, without ':', '|' or spaces",
    );
    expect(configError({ TENANTS: "{}" })).toBe("TENANTS lists no tenant");
  });

  it("refuses a secret that is set but blank rather than serving without credentials", () => {
    for (const blank of ["", " ", "\n", "\t \r\n"]) {
      expect(configError({ AUTH_TOKEN: blank })).toBe("AUTH_TOKEN is set but empty");
      expect(configError({ TENANTS: blank })).toBe("TENANTS is set but empty");
      expect(configError({ TENANT: "7", AUTH_TOKEN: blank })).toBe("AUTH_TOKEN is set but empty");
      // Header mode takes no credential, but a blank one is still a mistake, not "none".
      expect(configError({ TENANCY: "header", AUTH_TOKEN: blank })).toBe("AUTH_TOKEN is set but empty");
      expect(configError({ TENANCY: "header", TENANT_MAP: blank })).toBe("TENANT_MAP is set but empty");
    }
  });

  it("refuses a TENANT_MAP that lists nothing: in header mode it would allow every tenant", () => {
    expect(configError({ TENANCY: "header", TENANT_MAP: "{}" })).toBe("TENANT_MAP lists no tenant");
    expect(configError({ TENANT_MAP: "{}" })).toBe("TENANT_MAP lists no tenant");
  });

  it("refuses a TENANCY or TENANT that is set but empty instead of taking the default", () => {
    expect(configError({ TENANCY: "" })).toBe('TENANCY must be "single" or "header"');
    expect(configError({ TENANT: "" })).toBe('TENANT must be "AccountID" or "AccountID:ProjectID"');
    expect(readTenancyPolicy({ TENANCY: " Header " }).mode).toBe("header");
  });

  it("names a broken entry by its position, never by its name (TENANTS is a secret)", () => {
    const tenants = { "team-secret-name": { tenant: "1", token_sha256: [HASH_1] }, "other-name": { tenant: "?" } };
    const message = configError({ TENANTS: JSON.stringify(tenants) });
    expect(message).toBe('TENANTS entry 2: tenant must be "AccountID:ProjectID"');
    expect(configError({ TENANTS: JSON.stringify({ "team-secret-name": 7 }) })).toBe(
      "TENANTS entry 1 must be an object",
    );
  });

  it("refuses one token opening two tenants", () => {
    const shared = { a: { tenant: "1", token_sha256: [HASH_1] }, b: { tenant: "2", token_sha256: [HASH_1] } };
    expect(configError({ TENANTS: JSON.stringify(shared) })).toBe("TENANTS entries 1 and 2 share a token");
  });

  it("refuses combinations whose meaning would be a guess", () => {
    const tenants = JSON.stringify({ a: { tenant: "1", token_sha256: [HASH_1] } });
    expect(configError({ TENANCY: "header", AUTH_TOKEN: "t" })).toMatch(/^TENANCY=header trusts X-Scope-OrgID/);
    expect(configError({ TENANCY: "header", TENANTS: tenants })).toMatch(/^TENANCY=header trusts X-Scope-OrgID/);
    expect(configError({ AUTH_TOKEN: "t", TENANTS: tenants })).toBe("set AUTH_TOKEN or TENANTS, not both");
    expect(configError({ TENANCY: "open" })).toBe('TENANCY must be "single" or "header"');
    expect(configError({ TENANT: "team-a" })).toBe('TENANT must be "AccountID" or "AccountID:ProjectID"');
    expect(configError({ TENANCY: "header", TENANT_MAP: '{"a":"0:0","secret-name":"nope"}' })).toBe(
      'TENANT_MAP: entry 2 must map to "AccountID:ProjectID"',
    );
  });
});

describe("parseTenantId", () => {
  it("reads AccountID and AccountID:ProjectID within uint32", () => {
    expect(parseTenantId("0")).toEqual({ accountId: 0, projectId: 0 });
    expect(parseTenantId("4294967295:4294967295")).toEqual({ accountId: 4294967295, projectId: 4294967295 });
    for (const bad of ["4294967296", "1:4294967296", "-1", "1:", ":1", "1:2:3", " 1", "team"]) {
      expect(parseTenantId(bad), bad).toBeUndefined();
    }
  });
});

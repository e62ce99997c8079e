/** Reading credentials from Authorization and binding them to tenants, per policy mode. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { authenticate, digestsEqual, presentedCredential } from "../../../src/auth/credentials";
import { readTenancyPolicy } from "../../../src/auth/policy";
import { RequestError } from "../../../src/core/errors";
import { statusOf } from "../../../src/http/errors";

const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");
const basic = (user: string, token: string) => `Basic ${Buffer.from(`${user}:${token}`).toString("base64")}`;

const CREDENTIALS = readTenancyPolicy({
  TENANTS: JSON.stringify({
    "team-a": { tenant: "1:0", token_sha256: [sha256Hex("token-a-old"), sha256Hex("token-a-new")] },
    "team-b": { tenant: "2:7", token_sha256: [sha256Hex("token-b")] },
  }),
});

async function refusal(promise: Promise<unknown>): Promise<[number, string]> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(RequestError);
    return [statusOf(err as RequestError), (err as RequestError).message];
  }
  throw new Error("expected a refusal");
}

describe("presentedCredential", () => {
  it("reads Bearer and Basic, scheme case-insensitively", () => {
    expect(presentedCredential("Bearer abc")).toEqual({ scheme: "bearer", token: "abc" });
    expect(presentedCredential("bearer  abc ")).toEqual({ scheme: "bearer", token: "abc" });
    expect(presentedCredential(basic("team-a", "p:w"))).toEqual({ scheme: "basic", user: "team-a", token: "p:w" });
    expect(presentedCredential(`basic ${Buffer.from("ü:ß").toString("base64")}`)).toEqual({
      scheme: "basic",
      user: "ü",
      token: "ß",
    });
  });

  it("returns nothing for absent, unknown or malformed values", () => {
    for (const header of [null, "", "Bearer", "Bearer ", "Token abc", "Basic %%%", `Basic ${btoa("no-colon")}`]) {
      expect(presentedCredential(header), String(header)).toBeUndefined();
    }
  });
});

describe("digestsEqual", () => {
  it("compares bytes and lengths", () => {
    expect(digestsEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(digestsEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(digestsEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 0]))).toBe(false);
  });
});

describe("authenticate", () => {
  it("binds a Basic credential to the tenant its user names", async () => {
    expect(await authenticate(CREDENTIALS, basic("team-b", "token-b"))).toEqual({ accountId: 2, projectId: 7 });
  });

  it("binds a Bearer token to the one tenant holding its digest", async () => {
    expect(await authenticate(CREDENTIALS, "Bearer token-b")).toEqual({ accountId: 2, projectId: 7 });
    expect(await authenticate(CREDENTIALS, "Bearer token-a-old")).toEqual({ accountId: 1, projectId: 0 });
  });

  it("accepts every listed digest (rotation)", async () => {
    expect(await authenticate(CREDENTIALS, basic("team-a", "token-a-old"))).toEqual({ accountId: 1, projectId: 0 });
    expect(await authenticate(CREDENTIALS, basic("team-a", "token-a-new"))).toEqual({ accountId: 1, projectId: 0 });
  });

  it("refuses anonymous, unknown, and borrowed credentials with 401", async () => {
    for (const header of [
      null,
      "Bearer token-c",
      "Bearer token-b2",
      basic("team-a", "token-b"),
      basic("team-c", "token-b"),
      basic("", "token-b"),
      "Bearer " + sha256Hex("token-b"),
    ]) {
      expect(await refusal(authenticate(CREDENTIALS, header)), String(header)).toEqual([
        401,
        "authentication required",
      ]);
    }
  });

  it("single-token mode: any Basic user, the one token, the one tenant", async () => {
    const policy = readTenancyPolicy({ AUTH_TOKEN: "only-token", TENANT: "5" });
    expect(await authenticate(policy, "Bearer only-token")).toEqual({ accountId: 5, projectId: 0 });
    expect(await authenticate(policy, basic("anyone", "only-token"))).toEqual({ accountId: 5, projectId: 0 });
    expect(await refusal(authenticate(policy, null))).toEqual([401, "authentication required"]);
    expect(await refusal(authenticate(policy, "Bearer only-toke"))).toEqual([401, "authentication required"]);
  });

  it("anonymous single mode binds the configured tenant; header mode binds none", async () => {
    expect(await authenticate(readTenancyPolicy({ TENANT: "9:9" }), null)).toEqual({ accountId: 9, projectId: 9 });
    expect(await authenticate(readTenancyPolicy({ TENANCY: "header" }), "Bearer whatever")).toBeUndefined();
  });
});

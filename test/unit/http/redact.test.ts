/** The error-body scrubber: every configured secret, in the forms it travels in, is removed. */
import { describe, expect, it } from "vitest";
import { redactSecrets, secretsOf } from "../../../src/http/redact";

describe("secretsOf / redactSecrets", () => {
  it("removes the origin header, its credential and a decoded Basic password", () => {
    const header = `Basic ${btoa("svc-user:origin-password-1")}`;
    const secrets = secretsOf({ ORIGIN_AUTH_HEADER: header });
    const echoed = `denied: Authorization: ${header}; user svc-user:origin-password-1; password origin-password-1`;
    const out = redactSecrets(echoed, secrets);
    expect(out).toBe("denied: Authorization: <redacted>; user <redacted>; password <redacted>");
  });

  it("removes URL credentials in raw, decoded and Basic-encoded forms", () => {
    const secrets = secretsOf({ ORIGIN_URL: "https://bob:p%40ss-word-9@logs.example" });
    const basic = btoa("bob:p@ss-word-9");
    expect(redactSecrets(`a p%40ss-word-9 b p@ss-word-9 c Basic ${basic}`, secrets)).toBe(
      "a <redacted> b <redacted> c Basic <redacted>",
    );
  });

  it("removes AUTH_TOKEN and the TENANTS secret, and leaves ordinary text alone", () => {
    const secrets = secretsOf({ AUTH_TOKEN: "client-token-77", TENANTS: '{"a":{}}', ORIGIN_URL: "not a url" });
    expect(redactSecrets("token client-token-77 here", secrets)).toBe("token <redacted> here");
    expect(redactSecrets("origin failed (HTTP 500): boom", secrets)).toBe("origin failed (HTTP 500): boom");
  });

  it("ignores values too short to be secrets (a user name such as admin)", () => {
    expect(secretsOf({ ORIGIN_URL: "https://admin:pw@x.example" })).toEqual([btoa("admin:pw")]);
  });
});

/** The scanner the secrets sweep relies on must catch every way a route could echo a secret. */
import { describe, expect, it } from "vitest";
import { CANARIES, findLeaks, leakForms } from "../../support/secret-scan";

const SECRETS = { token: CANARIES.AUTH_TOKEN, header: CANARIES.ORIGIN_AUTH_HEADER };

describe("secret scanner", () => {
  it("finds a secret echoed verbatim in a body", () => {
    expect(findLeaks(`authentication failed for token ${CANARIES.AUTH_TOKEN}`, SECRETS)).toEqual(["token"]);
  });

  it("finds a relayed Basic header (base64 of user:secret) and a bare base64 secret", () => {
    expect(findLeaks(`origin said: Basic ${btoa(CANARIES.AUTH_TOKEN)}`, SECRETS)).toEqual(["token"]);
    // Behind a user name of any length, the secret sits at each byte alignment in turn.
    for (const user of ["g", "gr", "grafana", "graf"]) {
      expect(findLeaks(`Authorization: Basic ${btoa(`${user}:${CANARIES.AUTH_TOKEN}`)}`, SECRETS)).toEqual(["token"]);
    }
  });

  it("finds base64url, URL-encoded and truncated echoes", () => {
    const url64 = btoa(CANARIES.ORIGIN_AUTH_HEADER).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
    expect(findLeaks(url64, SECRETS)).toEqual(["header"]);
    expect(findLeaks(`q=${encodeURIComponent(CANARIES.ORIGIN_AUTH_HEADER)}`, SECRETS)).toEqual(["header"]);
    expect(findLeaks(`...${CANARIES.AUTH_TOKEN.slice(3, 17)}...`, SECRETS)).toEqual(["token"]);
  });

  it("finds several leaks at once and reports them by label", () => {
    expect(findLeaks(`${CANARIES.ORIGIN_AUTH_HEADER} ${CANARIES.AUTH_TOKEN}`, SECRETS)).toEqual(["token", "header"]);
  });

  it("passes text that holds none of them, including a redacted message", () => {
    expect(findLeaks("origin failed (HTTP 500): Authorization: <redacted>", SECRETS)).toEqual([]);
    expect(findLeaks('{"status":"success","data":["app","level"]}', SECRETS)).toEqual([]);
  });

  it("checks 12-character pieces of the secret, not shorter ones", () => {
    expect(leakForms("abcdefghijklmn")).toContain("abcdefghijkl");
    expect(leakForms("abcdefghijklmn").every((f) => f.length >= 12)).toBe(true);
  });
});

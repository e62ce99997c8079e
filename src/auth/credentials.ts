/**
 * Client credentials: reading them from the Authorization header and checking them against the
 * tenancy policy. Tokens are compared as SHA-256 digests in constant time, so neither the stored
 * form nor the time taken tells an attacker how much of a guess was right.
 */
import { UnauthenticatedError } from "../core/errors";
import type { Tenant } from "../core/tenant";
import type { TenancyPolicy } from "./policy";

export type PresentedCredential =
  { scheme: "bearer"; token: string } | { scheme: "basic"; user: string; token: string };

/** Bearer <token>, or Basic base64(user:token); undefined for anything else or a malformed value. */
export function presentedCredential(header: string | null): PresentedCredential | undefined {
  if (!header) return undefined;
  const space = header.indexOf(" ");
  if (space < 0) return undefined;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === "bearer") return value ? { scheme, token: value } : undefined;
  if (scheme !== "basic") return undefined;
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(atob(value), (c) => c.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { scheme, user: decoded.slice(0, colon), token: decoded.slice(colon + 1) };
}

export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** Equal-length digests compared without an early exit. */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

const UNAUTHENTICATED = "authentication required";

/** The configured token's digest, computed once per policy (the configuration is read once per isolate). */
const tokenDigests = new WeakMap<object, Promise<Uint8Array>>();

function tokenDigest(policy: object, token: string): Promise<Uint8Array> {
  let d = tokenDigests.get(policy);
  if (d === undefined) tokenDigests.set(policy, (d = sha256(token)));
  return d;
}

/**
 * The tenant the request's credential is bound to; undefined when the policy binds none (header
 * mode, where a gateway in front has authenticated the caller). Throws 401 without a valid credential.
 */
export async function authenticate(policy: TenancyPolicy, authorization: string | null): Promise<Tenant | undefined> {
  if (policy.mode === "header") return undefined;
  if (policy.mode === "single") {
    if (policy.token === undefined) return policy.tenant;
    // Single-token mode ignores the Basic user, so any Grafana user name works with the token.
    const presented = presentedCredential(authorization);
    if (presented && digestsEqual(await sha256(presented.token), await tokenDigest(policy, policy.token)))
      return policy.tenant;
    throw new UnauthenticatedError(UNAUTHENTICATED);
  }
  const presented = presentedCredential(authorization);
  if (!presented) throw new UnauthenticatedError(UNAUTHENTICATED);
  const digest = await sha256(presented.token);
  let bound: Tenant | undefined;
  for (const entry of policy.tenants) {
    // Basic names its tenant; a Bearer token is looked up among all (each token opens one tenant).
    if (presented.scheme === "basic" && entry.name !== presented.user) continue;
    let matched = false;
    for (const stored of entry.tokenDigests) matched = digestsEqual(digest, stored) || matched;
    if (matched) bound = entry.tenant;
  }
  if (!bound) throw new UnauthenticatedError(UNAUTHENTICATED);
  return bound;
}

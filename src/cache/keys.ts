/**
 * Cache keys for origin JSON answers. A key names everything that can change the answer: the origin
 * and the credential it is asked with (different credentials may see different data), the tenant
 * (always — two tenants must never share an entry), the endpoint, the window and the form. Keys are
 * SHA-256 digests, so no query text, tenant id or credential is readable in a key or a URL.
 */
import type { JsonRequest } from "../origin/client";

/** Bumped when the stored format or key composition changes, so old entries are never misread. */
const KEY_VERSION = "v3";

/** Who asks the origin: its base URL and the Authorization header value sent to it, if any. */
export interface OriginIdentity {
  baseUrl: string;
  authorization?: string;
}

/** Field order does not change an answer, so it must not change the key either. */
export function canonicalForm(form: readonly (readonly [string, string])[]): string {
  const pairs = form.map(([k, v]) => [k, v] as const);
  pairs.sort((a, b) => compare(a[0], b[0]) || compare(a[1], b[1]));
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
}

/**
 * The unambiguous text a key is the digest of (JSON keeps parts from running into each other). It
 * holds a digest of the credential, never the credential itself: this text is safe to look at.
 */
export async function keyMaterial(origin: OriginIdentity, req: JsonRequest): Promise<string> {
  return JSON.stringify([
    KEY_VERSION,
    origin.baseUrl,
    // "-" when there is none: no digest of any credential is that string.
    origin.authorization === undefined ? "-" : await sha256Hex(`origin-credential:${origin.authorization}`),
    `${req.tenant.accountId}:${req.tenant.projectId}`,
    req.path,
    String(req.window.start),
    String(req.window.end),
    canonicalForm(req.form),
  ]);
}

/** Hex SHA-256 of the key material: 64 characters, safe in KV keys, URLs and Durable Object names. */
export async function cacheKey(origin: OriginIdentity, req: JsonRequest): Promise<string> {
  return sha256Hex(await keyMaterial(origin, req));
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

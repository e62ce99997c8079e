/**
 * Operator endpoints. `POST /admin/cache/purge?tenant=<id or name>&start=<time>&end=<time>` voids
 * the named tenant's cached answers whose window overlaps [start, end) (both optional: the tenant's
 * whole cache), for when a backlog of late lines arrived for windows already cached (purges.ts).
 *
 * Only the operator may call it: it exists only when the `ADMIN_TOKEN` secret is set (otherwise it
 * answers 404 like any unknown path), and it takes only `Authorization: Bearer <ADMIN_TOKEN>`, never
 * a tenant's credential, so no tenant can purge its own entries or anyone else's. It reads no entry
 * and answers only what it recorded. The token is compared as a SHA-256 digest in constant time.
 */
import { Hono } from "hono";
import { digestsEqual, presentedCredential, sha256 } from "../auth/credentials";
import { parseTenantId, type TenancyPolicy } from "../auth/policy";
import { configOf, type Env } from "../config";
import { kvPurgeLog } from "../cache/purges";
import { BadRequestError, NotConfiguredError } from "../core/errors";
import { errorResponse } from "../http/errors";
import { parseLokiTime } from "../http/params";
import type { Tenant } from "../core/tenant";

const EVERYTHING = { start: -(2n ** 63n), end: 2n ** 63n - 1n };

export const adminRoutes = new Hono<{ Bindings: Env }>().all("/admin/cache/purge", async (c) => {
  // An unset or blank secret means the endpoint does not exist, never that it needs no token.
  const token = c.env.ADMIN_TOKEN?.trim();
  if (!token) return errorResponse(404, "404 page not found\n");
  const presented = presentedCredential(c.req.header("Authorization") ?? null);
  if (presented?.scheme !== "bearer" || !digestsEqual(await sha256(presented.token), await sha256(token))) {
    return errorResponse(401, "authentication required: Authorization: Bearer <ADMIN_TOKEN>");
  }
  if (c.req.method !== "POST") return errorResponse(405, "method not allowed: use POST");

  const config = configOf(c.env);
  const url = new URL(c.req.url);
  const name = url.searchParams.get("tenant") ?? "";
  const tenant = tenantNamed(config.tenancy, name);
  if (!tenant)
    throw new BadRequestError(
      `unknown tenant ${JSON.stringify(name)}: name an AccountID[:ProjectID] or a configured tenant name`,
    );
  const start = url.searchParams.has("start")
    ? parseLokiTime(url.searchParams.get("start")!, "start")
    : EVERYTHING.start;
  const end = url.searchParams.has("end") ? parseLokiTime(url.searchParams.get("end")!, "end") : EVERYTHING.end;
  if (end <= start) throw new BadRequestError("end must be after start");
  // Times beyond int64 nanoseconds (what every window is) are all time in that direction.
  const window = {
    start: start < EVERYTHING.start ? EVERYTHING.start : start,
    end: end > EVERYTHING.end ? EVERYTHING.end : end,
  };
  if (window.end <= window.start) throw new BadRequestError("end must be after start");
  if (!config.cacheKv) throw new NotConfiguredError("cache purge needs the CACHE_KV binding");

  const atMs = Date.now();
  await kvPurgeLog(config.cacheKv).purge(tenant, window, atMs);
  return c.json({
    status: "success",
    data: {
      tenant: `${tenant.accountId}:${tenant.projectId}`,
      start: String(window.start),
      end: String(window.end),
      purgedAt: atMs,
    },
  });
});

/** A numeric tenant id, or a name TENANT_MAP or TENANTS gives a tenant. */
function tenantNamed(policy: TenancyPolicy, name: string): Tenant | undefined {
  const mapped = policy.tenantMap.get(name);
  if (mapped) return mapped;
  if (policy.mode === "credentials") {
    const entry = policy.tenants.find((e) => e.name === name);
    if (entry) return entry.tenant;
  }
  return parseTenantId(name);
}

/**
 * Maps Loki's X-Scope-OrgID to a VictoriaLogs tenant (AccountID:ProjectID). Every origin request and
 * every cache key carries the result, so one tenant can never read another's data or cache entries.
 * When a credential (or the single-tenant default) has fixed the tenant, the header may only repeat
 * it; only in header mode does the header choose.
 */
import { parseTenantId, sameTenant, type TenancyPolicy } from "../auth/policy";
import type { Tenant } from "../origin/client";
import { HttpError } from "./errors";

/** `bound` is the tenant the credential or policy fixed (auth/credentials.ts), undefined in header mode. */
export function resolveTenant(policy: TenancyPolicy, bound: Tenant | undefined, orgId: string | null): Tenant {
  if (orgId === null || orgId === "") {
    if (bound) return bound;
    // Header mode trusts the header alone to name the tenant, as Loki with auth_enabled does: without
    // one there is no tenant to serve (Loki's auth middleware answers exactly this), never a default.
    throw new HttpError(401, "no org id\n");
  }
  if (orgId.includes("|")) {
    // Loki's multi-tenant queries span tenants; refusing is the only answer that cannot leak.
    throw new HttpError(400, "multi-tenant queries are not supported");
  }
  const named = namedTenant(policy, orgId);
  if (bound) {
    if (named && sameTenant(named, bound)) return bound;
    throw new HttpError(403, `X-Scope-OrgID ${JSON.stringify(orgId)} is not a tenant these credentials may read`);
  }
  if (!named) throw new HttpError(401, `unknown tenant ${JSON.stringify(orgId)}`);
  return named;
}

/**
 * The tenant an X-Scope-OrgID names: a TENANTS or TENANT_MAP name, or a numeric id. In header mode a
 * non-empty TENANT_MAP is an allowlist: a numeric id counts only when the map lists its tenant.
 */
function namedTenant(policy: TenancyPolicy, orgId: string): Tenant | undefined {
  if (policy.mode === "credentials") {
    const entry = policy.tenants.find((e) => e.name === orgId);
    if (entry) return entry.tenant;
  }
  const mapped = policy.tenantMap.get(orgId);
  if (mapped) return mapped;
  const numeric = parseTenantId(orgId);
  if (!numeric || policy.mode !== "header" || policy.tenantMap.size === 0) return numeric;
  return [...policy.tenantMap.values()].some((t) => sameTenant(t, numeric)) ? numeric : undefined;
}

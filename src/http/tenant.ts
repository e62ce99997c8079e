/**
 * Maps Loki's X-Scope-OrgID to a VictoriaLogs tenant (AccountID:ProjectID). Every origin request and
 * every cache key carries the result, so one tenant can never read another's data or cache entries.
 * When a credential (or the single-tenant default) has fixed the tenant, the header may only repeat
 * it (or name a tenant the credential's TENANTS entry lists under `tenants`); only in header mode
 * does the header choose.
 *
 * `a|b` asks for a multi-tenant query, as Loki's `multi_tenant_queries_enabled` does: every tenant
 * it names must be one the caller may read on its own, and only the endpoints that Loki answers
 * across tenants accept it (MULTI_TENANT_PATHS).
 */
import { parseTenantId, sameTenant, type TenancyPolicy } from "../auth/policy";
import type { Tenant } from "../core/tenant";
import { BadRequestError, ForbiddenError, UnauthenticatedError } from "../core/errors";

/** `bound` is the tenant the credential or policy fixed (auth/credentials.ts), undefined in header mode. */
export function resolveTenant(policy: TenancyPolicy, bound: Tenant | undefined, orgId: string | null): Tenant {
  if (orgId === null || orgId === "") {
    if (bound) return bound;
    // Header mode trusts the header alone to name the tenant, as Loki with auth_enabled does: without
    // one there is no tenant to serve (Loki's auth middleware answers exactly this), never a default.
    throw new UnauthenticatedError("no org id\n");
  }
  if (orgId.includes("|")) {
    // Callers that answer one tenant only (the origin check) refuse a multi-tenant id outright.
    throw new BadRequestError("multi-tenant queries are not supported by this endpoint");
  }
  return oneTenant(policy, bound, orgId);
}

/** A tenant of a query, with the name the caller gave it: the value of its `__tenant_id__` label. */
export interface NamedTenant {
  name: string;
  tenant: Tenant;
}

/**
 * The tenants an X-Scope-OrgID names: one for a plain id (its name is the id as sent), several for
 * `a|b|…`, sorted and without repeats as Loki normalises them. Each must be readable on its own.
 */
export function resolveTenants(policy: TenancyPolicy, bound: Tenant | undefined, orgId: string | null): NamedTenant[] {
  if (orgId === null || !orgId.includes("|")) {
    return [{ name: orgId ?? "", tenant: resolveTenant(policy, bound, orgId) }];
  }
  const names = [...new Set(orgId.split("|"))].sort();
  if (names.some((n) => n === "")) throw new BadRequestError("tenant ID is empty in a multi-tenant X-Scope-OrgID");
  if (names.length > MAX_TENANTS_PER_QUERY) {
    throw new BadRequestError(`a multi-tenant query may name at most ${MAX_TENANTS_PER_QUERY} tenants`);
  }
  const tenants = names.map((name) => ({ name, tenant: oneTenant(policy, bound, name) }));
  for (let i = 0; i < tenants.length; i++) {
    for (let j = i + 1; j < tenants.length; j++) {
      // Two names of one tenant would count its data twice under two labels.
      if (sameTenant(tenants[i]!.tenant, tenants[j]!.tenant)) {
        throw new BadRequestError(`X-Scope-OrgID names one tenant twice (${tenants[i]!.name}, ${tenants[j]!.name})`);
      }
    }
  }
  return tenants;
}

/**
 * Each tenant of a multi-tenant query costs its own origin requests: a bound keeps one request from
 * spending the whole subrequest budget on the fan-out.
 */
export const MAX_TENANTS_PER_QUERY = 8;

/** The endpoints Loki answers across tenants (its multi-tenant querier); others refuse `a|b`. */
export const MULTI_TENANT_PATHS: ReadonlySet<string> = new Set([
  "/loki/api/v1/query_range",
  "/loki/api/v1/query",
  "/api/prom/query",
  "/loki/api/v1/labels",
  "/loki/api/v1/label",
  "/api/prom/label",
  "/loki/api/v1/series",
  "/api/prom/series",
  "/loki/api/v1/index/stats",
  "/loki/api/v1/index/volume",
  "/loki/api/v1/index/volume_range",
  "/loki/api/v1/patterns",
  "/loki/api/v1/detected_labels",
  "/loki/api/v1/detected_fields",
  // Answers that read no tenant's data: Grafana asks for them whatever its X-Scope-OrgID.
  "/loki/api/v1/format_query",
  "/prometheus/api/v1/rules",
  "/prometheus/api/v1/alerts",
]);

/** Label values routes carry the name in the path, and so do field values and the (empty) rule listings. */
export function acceptsMultiTenant(path: string): boolean {
  return (
    MULTI_TENANT_PATHS.has(path) ||
    /^\/loki\/api\/v1\/detected_field\/[^/]+\/values$/.test(path) ||
    /^\/(?:loki\/api\/v1|api\/prom)\/label\/[^/]+\/values$/.test(path) ||
    /^\/(?:loki\/api\/v1|api\/prom)\/rules(?:\/[^/]+){0,2}$/.test(path)
  );
}

function oneTenant(policy: TenancyPolicy, bound: Tenant | undefined, orgId: string): Tenant {
  const named = namedTenant(policy, orgId);
  if (bound) {
    if (named && (sameTenant(named, bound) || alsoReadable(policy, bound, orgId))) return named;
    throw new ForbiddenError(`X-Scope-OrgID ${JSON.stringify(orgId)} is not a tenant these credentials may read`);
  }
  if (!named) throw new UnauthenticatedError(`unknown tenant ${JSON.stringify(orgId)}`);
  return named;
}

/**
 * Whether the TENANTS entry that authenticated the caller lists `name` under `tenants`.
 * authenticate() answers with the entry's own tenant object, which is how the entry is found.
 */
function alsoReadable(policy: TenancyPolicy, bound: Tenant, name: string): boolean {
  if (policy.mode !== "credentials") return false;
  const entry = policy.tenants.find((e) => e.tenant === bound);
  return entry !== undefined && entry.alsoReads.includes(name);
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

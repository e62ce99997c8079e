/**
 * Which tenants of a multi-tenant request a stream selector reads, and the selector each of them
 * runs: `__tenant_id__` matchers choose the tenants (every one must hold) and are removed, since no
 * stored stream carries that label. A stored label of that name is answered as
 * `original___tenant_id__` (exec/multi-tenant.ts), so a matcher on that name selects it.
 */
import type { Matcher } from "../logql/ast";
import { TENANT_LABEL } from "../core/tenant";
import { stringMatcher } from "../engine/pipeline/labelfilter";

/** The prefix a stream's own `__tenant_id__` label gets in a multi-tenant answer (as in Loki). */
export const RETAINED_PREFIX = "original_";

export function selectTenants<T extends { name: string }>(
  tenants: readonly T[],
  matchers: readonly Matcher[],
): { tenants: T[]; matchers: Matcher[] } {
  const own = matchers.filter((m) => m.name === TENANT_LABEL);
  const rest = matchers
    .filter((m) => m.name !== TENANT_LABEL)
    .map((m) => (m.name === RETAINED_PREFIX + TENANT_LABEL ? { ...m, name: TENANT_LABEL } : m));
  const tests = own.map((m) => stringMatcher(m.op, m.value));
  return { tenants: tenants.filter((t) => tests.every((test) => test(t.name))), matchers: rest };
}

/**
 * The tenants a request reads and the matchers each runs: chosen by selectTenants for a
 * multi-tenant request; a single-tenant request's matchers are left as sent (a `__tenant_id__`
 * matcher there selects a label no stream has, as in Loki).
 */
export function tenantsFor<T extends { name: string }>(
  tenants: readonly T[],
  matchers: Matcher[],
): { tenants: readonly T[]; matchers: Matcher[] } {
  return tenants.length > 1 ? selectTenants(tenants, matchers) : { tenants, matchers };
}

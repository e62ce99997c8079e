/**
 * A tenant as the origin knows it: VictoriaLogs scopes every request by AccountID and ProjectID.
 * Every layer passes it along, from the credential that names it to the cache keys that keep one
 * tenant's answers apart from another's.
 */
export interface Tenant {
  accountId: number;
  projectId: number;
}

/** The label Loki's multi-tenant querier adds to every stream and series. */
export const TENANT_LABEL = "__tenant_id__";

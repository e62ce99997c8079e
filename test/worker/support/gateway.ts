/**
 * The worker tests run the Worker in header mode (vitest.worker.config.ts) and act as the gateway
 * that mode expects: the gateway names every request's tenant, and a request without one is refused
 * (401 `no org id`, as Loki does). These are the headers it adds: the compat dataset's tenant, 0:0.
 */
export const GATEWAY: Record<string, string> = { "X-Scope-OrgID": "0" };

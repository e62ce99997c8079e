/**
 * The tail slot counters as the Worker reaches them: one Durable Object per tenant, named by the
 * tenant. Apart from the object's own module, whose base class only workerd provides, so that code
 * run outside workerd (the capped-heap harnesses) can bundle the routes.
 */
import type { TailSlotCounter } from "./tail-slot-object";
import type { TailSlotCounters } from "./tail-slots";

/** One counter object per tenant, named by the tenant. */
export function tailSlotCounters(namespace: DurableObjectNamespace): TailSlotCounters {
  const typed = namespace as unknown as DurableObjectNamespace<TailSlotCounter>;
  return (tenant) => {
    const stub = typed.get(typed.idFromName(tenant));
    return {
      acquire: (lease, limit, ttlMs) => stub.acquire(lease, limit, ttlMs),
      renew: (lease, ttlMs) => stub.renew(lease, ttlMs),
      release: (lease) => stub.release(lease),
    };
  };
}

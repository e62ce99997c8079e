/**
 * The coalescer namespace as the caching transport sees it (cached-transport.ts `Coalescer`). Kept
 * apart from the storage adapters (bindings.ts), which the coalescer object itself uses: this side
 * needs only the object's type, so neither module depends on the other in a loop.
 */
import type { Coalescer } from "./cached-transport";
import type { RequestCoalescer } from "./coalescer";

/** One Durable Object per key: identical requests meet in the same object, wherever they start. */
export function coalescerStubs(namespace: DurableObjectNamespace): (key: string) => Coalescer {
  const typed = namespace as unknown as DurableObjectNamespace<RequestCoalescer>;
  return (key) => {
    const stub = typed.get(typed.idFromName(key));
    return { fetchJson: (req) => stub.fetchJson(req) };
  };
}

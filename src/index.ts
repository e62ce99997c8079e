/** Worker entry point: the Loki-compatible HTTP API, the Durable Object that coalesces requests, and the one that counts a tenant's tails. */
import { createApp } from "./app";
import type { Env } from "./config";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;

export { RequestCoalescer } from "./cache/coalescer";
export { TailSlotCounter } from "./exec/tail-slot-object";

/** Worker entry point: the Loki-compatible HTTP API and its Durable Objects (request coalescing, tail counting). */
import { createApp } from "./app";
import type { Env } from "./config";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;

export { RequestCoalescer } from "./cache/coalescer";
export { TailSlotCounter } from "./exec/tail-slot-object";

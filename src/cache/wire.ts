/** Chooses the small-JSON origin transport for a request from configuration and bindings. */
import type { Config } from "../config";
import { fetchJsonTransport, type JsonTransport, type OriginConfig } from "../origin/client";
import { cacheApiAnswers, coalescerStubs, kvAnswers } from "./bindings";
import { cachingTransport } from "./layer";

export function originConfigOf(config: Config): OriginConfig {
  return { baseUrl: config.originUrl, authorization: config.originAuthorization, timeoutMs: config.originTimeoutMs };
}

export function originTransport(config: Config): JsonTransport {
  const origin = originConfigOf(config);
  const direct = fetchJsonTransport(origin);
  if (config.cache === false) return direct;
  return cachingTransport({
    origin,
    timeoutMs: origin.timeoutMs,
    direct,
    // Absent outside the Workers runtime; the layer then coalesces without a local cache.
    cache: typeof caches !== "undefined" ? cacheApiAnswers(caches.default) : undefined,
    kv: config.cacheKv ? kvAnswers(config.cacheKv) : undefined,
    coalescerFor: config.coalescer ? coalescerStubs(config.coalescer) : undefined,
  });
}

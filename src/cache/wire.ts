/** Chooses the origin transport and the results cache for a request from configuration and bindings. */
import type { Config } from "../config";
import { fetchJsonTransport, type JsonTransport, type OriginConfig, type Tenant } from "../origin/client";
import { cacheApiAnswers, coalescerStubs, kvAnswers } from "./bindings";
import { tieredChunkStore } from "./chunk-store";
import type { ResultCache } from "./extents";
import { cacheKey } from "./keys";
import { kvPurgeLog, type PurgeRecord } from "./purges";
import { type Coalescer, cachingTransport } from "./layer";
import type { CacheSection, CacheStats } from "./stats";

export function originConfigOf(config: Config): OriginConfig {
  return {
    baseUrl: config.originUrl,
    authorization: config.originAuthorization,
    timeoutMs: config.originTimeoutMs,
    derivedFields: config.derivedFields,
  };
}

/** What a request that uses the caches gives them. */
export interface CacheUse {
  stats: CacheStats;
  /** Keeps cache writes running after the response (the execution context's waitUntil). */
  defer: (work: Promise<unknown>) => void;
  /** Runs work that prepares a cache write once the answer is out (src/http/after-answer.ts). */
  later: (task: () => void) => void;
}

/** The `stats.cache` section of a whole-answer origin request. */
function sectionOf(path: string): CacheSection {
  if (path.endsWith("/streams")) return "seriesResult";
  if (path.endsWith("/hits")) return "volumeResult";
  if (path.endsWith("/stats_query_range")) return "result";
  return "labelResult";
}

/** The origin without any cache layer (`CACHE=off`, or a client's `Cache-Control: no-cache`). */
export function directTransport(config: Config, meter?: (elapsedMs: number) => void): JsonTransport {
  return fetchJsonTransport({ ...originConfigOf(config), meter });
}

export function originTransport(
  config: Config,
  use?: Omit<CacheUse, "later">,
  meter?: (elapsedMs: number) => void,
): JsonTransport {
  const origin = { ...originConfigOf(config), meter };
  const direct = directTransport(config, meter);
  if (config.cache === false) return direct;
  return cachingTransport({
    origin,
    timeoutMs: origin.timeoutMs,
    direct,
    // Absent outside the Workers runtime; the layer then coalesces without a local cache.
    cache: typeof caches !== "undefined" ? cacheApiAnswers(caches.default) : undefined,
    kv: config.cacheKv ? kvAnswers(config.cacheKv) : undefined,
    coalescerFor: config.coalescer ? metered(coalescerStubs(config.coalescer), meter) : undefined,
    horizonMs: config.cacheFreshnessMs,
    purgesOf: config.cacheKv ? (tenant) => kvPurgeLog(config.cacheKv!).recordsOf(tenant) : undefined,
    defer: use?.defer,
    observe: use && {
      lookedUp: (req, body, elapsedMs) =>
        use.stats.lookedUp(sectionOf(req.path), body, elapsedMs, req.window.end - req.window.start),
      stored: (req, body) => use.stats.stored(sectionOf(req.path), body),
    },
  });
}

/** Origin requests made by the coalescer on a request's behalf count as that request's. */
function metered(
  stubs: (key: string) => Coalescer,
  meter: ((elapsedMs: number) => void) | undefined,
): (key: string) => Coalescer {
  if (!meter) return stubs;
  return (key) => {
    const stub = stubs(key);
    return {
      async fetchJson(req) {
        const started = performance.now();
        try {
          return await stub.fetchJson(req);
        } finally {
          meter(performance.now() - started);
        }
      },
    };
  };
}

/** The results cache of one request for one tenant, or undefined when caching is off. */
export function resultCacheFor(config: Config, tenant: Tenant, use: CacheUse): ResultCache | undefined {
  if (config.cache === false) return undefined;
  const origin = originConfigOf(config);
  const purges = purgesOfTenant(config, tenant);
  return {
    store: tieredChunkStore(
      typeof caches !== "undefined" ? cacheApiAnswers(caches.default) : undefined,
      config.cacheKv ? kvAnswers(config.cacheKv) : undefined,
      undefined,
      // What this request stores was asked of the origin after this moment.
      { nowMs: () => Date.now(), askedAtMs: Date.now(), purges },
    ),
    stats: use.stats,
    horizonNs: BigInt(config.cacheFreshnessMs) * 1_000_000n,
    nowNs: () => BigInt(Date.now()) * 1_000_000n,
    defer: use.defer,
    later: use.later,
    // Keyed like every origin answer (origin and credential, tenant, window, form), under a path of its own.
    // Kept results hold the derived fields, so the derivation rules are part of the key.
    keyOf: (logsql, chunk) =>
      cacheKey(origin, {
        path: "chunk:/select/logsql/query",
        form: [
          ["query", logsql],
          ["derived", derivationKey(config.derivedFields)],
        ],
        tenant,
        window: chunk,
      }),
  };
}

/** The tenant's purge records, read once per request when a stored entry needs checking. */
export function purgesOfTenant(config: Config, tenant: Tenant): (() => Promise<readonly PurgeRecord[]>) | undefined {
  const kv = config.cacheKv;
  if (!kv) return undefined;
  let loaded: Promise<readonly PurgeRecord[]> | undefined;
  return () => (loaded ??= kvPurgeLog(kv).recordsOf(tenant));
}

function derivationKey(rules: Config["derivedFields"]): string {
  return `${rules.discoverLogLevels ? "levels" : "-"}:${rules.serviceNameLabels.join(",")}`;
}

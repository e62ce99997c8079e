/**
 * Builds a request's caches from configuration and bindings: the transport its origin clients
 * send small-JSON requests through (cached, coalesced, or direct) and, per tenant, the results
 * cache that cached-origin.ts puts around the tenant's client. Every store is reached through the
 * request's budget of Cache API calls and KV operations.
 */
import { type Config, originConfigOf } from "../config";
import { fetchJsonTransport, type JsonTransport, type OriginMeter } from "../origin/client";
import type { Tenant } from "../core/tenant";
import { cacheApiAnswers, kvAnswers } from "./bindings";
import { coalescerStubs } from "./coalescer-stubs";
import { tieredChunkStore } from "./chunk-store";
import type { ResultCache } from "./result-cache";
import { cacheKey } from "./keys";
import { kvPurgeLog, type PurgeKv, type PurgeRecord } from "./purges";
import { type Coalescer, cachingTransport } from "./cached-transport";
import type { CacheSection, CacheStats } from "./stats";
import type { AnswerCache, AnswerKv } from "./storage";
import type { SubrequestBudget } from "../origin/subrequest-budget";

/** What a request that uses the caches gives them. */
export interface CacheUse {
  stats: CacheStats;
  /** Keeps cache writes running after the response (the execution context's waitUntil). */
  defer: (work: Promise<unknown>) => void;
  /** Runs work that prepares a cache write once the answer is out (src/http/after-answer.ts). */
  later: (task: () => void) => void;
  /** The request's count of subrequests, Cache API calls and KV operations. */
  budget?: SubrequestBudget;
}

/** The `stats.cache` section of a whole-answer origin request. */
function sectionOf(path: string): CacheSection {
  if (path.endsWith("/streams")) return "seriesResult";
  if (path.endsWith("/hits")) return "volumeResult";
  if (path.endsWith("/stats_query_range")) return "result";
  return "labelResult";
}

/** The origin without any cache layer (`CACHE=off`, or a client's `Cache-Control: no-cache`). */
export function directTransport(config: Config, meter?: OriginMeter, budget?: SubrequestBudget): JsonTransport {
  const transport = fetchJsonTransport({ ...originConfigOf(config), meter });
  if (!budget) return transport;
  return (req, signal) => {
    budget.claimOrigin();
    return transport(req, signal);
  };
}

/** The Cache API within the request's budget: past it, a lookup is a miss and a write is left out. */
function budgetedCache(cache: AnswerCache, budget: SubrequestBudget | undefined): AnswerCache {
  if (!budget) return cache;
  return {
    get: async (key) => (budget.tryCache() ? await cache.get(key) : undefined),
    put: async (key, body, maxAgeSeconds) => {
      if (budget.tryCache()) await cache.put(key, body, maxAgeSeconds);
    },
  };
}

/** KV within the request's budget: past it, a read finds nothing and a write is left out. */
function budgetedKv(kv: AnswerKv, budget: SubrequestBudget | undefined): AnswerKv {
  if (!budget) return kv;
  return {
    get: async (key) => (budget.tryKv() ? await kv.get(key) : null),
    put: async (key, body, ttl) => {
      if (budget.tryKv()) await kv.put(key, body, ttl);
    },
  };
}

/** The Cache API and KV of a request, or undefined where absent (outside the Workers runtime, KV unbound). */
function stores(config: Config, budget: SubrequestBudget | undefined): { cache?: AnswerCache; kv?: AnswerKv } {
  return {
    cache: typeof caches !== "undefined" ? budgetedCache(cacheApiAnswers(caches.default), budget) : undefined,
    kv: config.cacheKv ? budgetedKv(kvAnswers(config.cacheKv), budget) : undefined,
  };
}

export function originTransport(config: Config, use?: Omit<CacheUse, "later">, meter?: OriginMeter): JsonTransport {
  const origin = { ...originConfigOf(config), meter };
  const budget = use?.budget;
  if (config.cache === false) return directTransport(config, meter, budget);
  // Absent outside the Workers runtime; the layer then coalesces without a local cache.
  const { cache, kv } = stores(config, budget);
  return cachingTransport({
    origin,
    timeoutMs: origin.timeoutMs,
    // Counted by `claimOrigin` below, once per miss, whether the coalescer or the origin answers it.
    direct: directTransport(config, meter),
    cache,
    kv,
    claimOrigin: budget && (() => budget.claimOrigin()),
    coalescerFor: config.coalescer ? metered(coalescerStubs(config.coalescer), meter) : undefined,
    horizonMs: config.cacheFreshnessMs,
    purgesOf: config.cacheKv
      ? (tenant) => kvPurgeLog(budgetedPurgeKv(config.cacheKv!, budget)).recordsOf(tenant)
      : undefined,
    defer: use?.defer,
    observe: use && {
      lookedUp: (req, body, elapsedMs) =>
        use.stats.lookedUp(sectionOf(req.path), body, elapsedMs, req.window.end - req.window.start),
      stored: (req, body) => use.stats.stored(sectionOf(req.path), body),
    },
  });
}

const utf8 = new TextEncoder();

/** Origin requests made by the coalescer on a request's behalf count as that request's. */
function metered(stubs: (key: string) => Coalescer, meter: OriginMeter | undefined): (key: string) => Coalescer {
  if (!meter) return stubs;
  return (key) => {
    const stub = stubs(key);
    return {
      async fetchJson(req) {
        const started = performance.now();
        try {
          const outcome = await stub.fetchJson(req);
          // The coalescer read the origin's answer; its size is what this request caused to travel.
          if (outcome.kind === "answer") meter.received?.(utf8.encode(outcome.body).byteLength);
          return outcome;
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
  const purges = purgesOfTenant(config, tenant, use.budget);
  const { cache, kv } = stores(config, use.budget);
  return {
    // What this request stores was asked of the origin after this moment.
    store: tieredChunkStore(cache, kv, undefined, { nowMs: () => Date.now(), askedAtMs: Date.now(), purges }),
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
export function purgesOfTenant(
  config: Config,
  tenant: Tenant,
  budget?: SubrequestBudget,
): (() => Promise<readonly PurgeRecord[]>) | undefined {
  const kv = config.cacheKv;
  if (!kv) return undefined;
  let loaded: Promise<readonly PurgeRecord[]> | undefined;
  return () => (loaded ??= kvPurgeLog(budgetedPurgeKv(kv, budget)).recordsOf(tenant));
}

/**
 * The purge log's reads count as the request's KV operations. Past the limit a read fails rather
 * than answering "no purges": an entry whose purges cannot be checked is a miss (stamp.ts).
 */
function budgetedPurgeKv(kv: KVNamespace, budget: SubrequestBudget | undefined): PurgeKv {
  if (!budget) return kv;
  return {
    get: async (key) => {
      if (!budget.tryKv()) throw new Error("the request's KV operations are spent");
      return kv.get(key);
    },
    put: (key, value, options) => kv.put(key, value, options),
  };
}

function derivationKey(rules: Config["derivedFields"]): string {
  return `${rules.discoverLogLevels ? "levels" : "-"}:${rules.serviceNameLabels.join(",")}`;
}

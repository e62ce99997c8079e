/**
 * A tenant's origin client with the request's caches around it: what execution is handed. The
 * client itself (origin/client.ts) knows nothing of caches; the request context builds one of these
 * per tenant (request-caches.ts), and each kind of answer has one cache to use:
 *
 * - whole small answers (label names and values, series): nothing to call, they are cached under
 *   the client's transport (cached-transport.ts), which also coalesces its other requests;
 * - stats rows in `_time` buckets (pushed-down metrics, volumes, index stats): `timeBuckets`;
 * - log-query windows: `logWindows`, which plans the cached reading of a query;
 * - range metric results the Worker evaluates: `metricChunks`;
 * - mined patterns by time chunk: `patternChunks`.
 *
 * Each works without a results cache too (caching off, `Cache-Control: no-cache`): it then asks
 * the origin for everything, so execution has one path whether or not the request caches. It is
 * the client itself, extended, so that code needing no cache takes it as a plain OriginClient.
 */
import { type JsonTransport, OriginClient, type OriginConfig } from "../origin/client";
import type { Tenant } from "../core/tenant";
import { SubrequestBudget } from "../origin/subrequest-budget";
import { type TimeBucketCache, timeBucketCache } from "./extents";
import { type LogWindowPlan, type LogWindowQuery, planLogWindows } from "./log-window-plan";
import { type MetricChunkCache, metricChunkCache } from "./metric-results";
import { type PatternChunkCache, patternChunkCache } from "./pattern-chunks";
import type { ResultCache } from "./result-cache";

export class CachedOrigin extends OriginClient {
  readonly timeBuckets: TimeBucketCache;
  readonly metricChunks: MetricChunkCache;

  constructor(
    config: OriginConfig,
    tenant: Tenant,
    signal?: AbortSignal,
    transport?: JsonTransport,
    budget: SubrequestBudget = SubrequestBudget.unlimited(),
    /** Where this request keeps the pieces of answers for this tenant; absent when it does not cache. */
    private readonly results?: ResultCache,
  ) {
    super(config, tenant, signal, transport, budget);
    this.timeBuckets = timeBucketCache(this, results);
    this.metricChunks = metricChunkCache(budget, results);
  }

  /** The same client and caches, bound to a narrower signal (a sub-window that may be abandoned early). */
  override withSignal(signal: AbortSignal): CachedOrigin {
    const combined = this.narrowed(signal);
    if (combined === this.signal) return this;
    return new CachedOrigin(this.config, this.tenant, combined, this.transport, this.budget, this.results);
  }

  /** The cached reading of a log query, or undefined when it is to be asked of the origin directly. */
  logWindows(q: LogWindowQuery): LogWindowPlan | undefined {
    return planLogWindows(this.results, this.budget, q);
  }

  /** The chunk cache of a patterns request (`identity` names what the patterns depend on), if caching. */
  patternChunks(identity: string): PatternChunkCache | undefined {
    return patternChunkCache(this.results, identity);
  }
}

/**
 * What one request may still ask of the platform. The Workers runtime caps, per invocation, the
 * subrequests (every fetch(): to the origin, and calls to the coalescer Durable Object), the Cache
 * API calls and the KV operations, and past a cap it throws an exception of its own in the middle
 * of the answer. The caps (Cloudflare's documented limits, developers.cloudflare.com):
 *
 * - subrequests: 50 per request on Workers Free, 10,000 by default on Workers Paid
 *   (workers/platform/limits, "Subrequests"; Paid can set `[limits] subrequests` in wrangler.toml);
 * - Cache API: 1,000 calls per request on Paid (see README "Platform limits");
 * - KV: 1,000 operations per Worker invocation on both plans (kv/platform/limits).
 *
 * This object counts the three per request against the configured limits (MAX_SUBREQUESTS,
 * MAX_CACHE_CALLS, MAX_KV_OPERATIONS, set below the platform's), so that the request stays within
 * them by plan: windows are widened to fit (windowShare), a cache call past its limit is skipped (a
 * miss, or a write left out), and an origin request past its limit is refused with an error that
 * says what to change, never the runtime's exception.
 *
 * Cache writes made after the answer (waitUntil) belong to the same invocation and are counted too.
 */
import { LimitExceededError } from "../core/errors";

export interface SubrequestLimits {
  /** fetch() calls: requests to the origin and calls to the coalescer Durable Object. */
  subrequests: number;
  /** Cache API calls (match and put). */
  cacheCalls: number;
  /** KV operations (get and put). */
  kvOperations: number;
}

/** The limits on Workers Paid's defaults, with room left under each (see README "Platform limits"). */
export const DEFAULT_SUBREQUEST_LIMITS: SubrequestLimits = {
  subrequests: 1000,
  cacheCalls: 900,
  kvOperations: 900,
};

/** The request needs more origin requests than it may make: it must be asked differently. */
export class SubrequestBudgetError extends LimitExceededError {
  constructor(limit: number) {
    super(
      `the query needs more than ${limit} origin requests, the most one request may make (MAX_SUBREQUESTS): ` +
        "narrow the time range, increase the step or the split interval, or raise MAX_SUBREQUESTS",
    );
    this.name = "SubrequestBudgetError";
  }
}

export class SubrequestBudget {
  private origin = 0;
  private cache = 0;
  private kv = 0;
  private limits: SubrequestLimits;

  constructor(limits: SubrequestLimits = DEFAULT_SUBREQUEST_LIMITS) {
    this.limits = { ...limits };
  }

  /** A budget that counts but never refuses (clients built outside a request: tests, tools). */
  static unlimited(): SubrequestBudget {
    const budget = new SubrequestBudget();
    budget.lift();
    return budget;
  }

  /** Origin requests (and coalescer calls) this request may still make. */
  get originLeft(): number {
    return Math.max(0, this.limits.subrequests - this.origin);
  }

  /** What was used so far: for telemetry and tests. */
  get used(): { origin: number; cache: number; kv: number } {
    return { origin: this.origin, cache: this.cache, kv: this.kv };
  }

  /** Counts one origin request about to be made, or refuses it with Loki's 400 and advice. */
  claimOrigin(): void {
    if (this.origin >= this.limits.subrequests) throw new SubrequestBudgetError(this.limits.subrequests);
    this.origin++;
  }

  /** Counts one Cache API call, or says (false) that it must be skipped. */
  tryCache(): boolean {
    if (this.cache >= this.limits.cacheCalls) return false;
    this.cache++;
    return true;
  }

  /** Counts one KV operation, or says (false) that it must be skipped. */
  tryKv(): boolean {
    if (this.kv >= this.limits.kvOperations) return false;
    this.kv++;
    return true;
  }

  /**
   * How many windows one split of a time range may have: half the origin requests left, and at
   * least one. Half, because a query may split more than one range (the legs of a binary
   * operation, several runs of uncached chunks, a fallback after a declined push-down): each split
   * taking half of what is left keeps room for the next. A wider window gives the same answer, so
   * this costs only the size of each origin request.
   */
  windowShare(): bigint {
    const left = this.originLeft;
    if (!Number.isFinite(left)) return BigInt(Number.MAX_SAFE_INTEGER);
    return BigInt(Math.max(1, Math.floor(left / 2)));
  }

  /**
   * No limits from now on: for a live tail, whose polls are bounded by TAIL_MAX_DURATION and the
   * poll rate rather than by one answer's plan.
   */
  lift(): void {
    this.limits = { subrequests: Infinity, cacheCalls: Infinity, kvOperations: Infinity };
  }
}

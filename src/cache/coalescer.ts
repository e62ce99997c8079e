/**
 * The coalescer Durable Object: one instance per cache key, so identical requests from any number
 * of isolates meet here and cause one origin request. It asks the origin itself, with the Worker's
 * own credentials from its env (callers never pass secrets), and writes historical answers to KV
 * once on everyone's behalf.
 */
import { DurableObject } from "cloudflare:workers";
import { type Env, originConfigOf, readConfig } from "../config";
import { fetchJsonTransport, type JsonRequest } from "../origin/client";
import { cacheKey } from "./keys";
import { kvAnswers } from "./bindings";
import { attemptOrigin, isCacheable, isCoalescible, type OriginOutcome } from "./origin-outcome";
import { cachePolicy, fitsInKv, KV_MIN_TTL_S } from "./policy";
import { stamped } from "./stamp";
import { SingleFlight } from "./singleflight";

export class RequestCoalescer extends DurableObject<Env> {
  // An outbound fetch does not close the object's input gate, so concurrent calls interleave here
  // and find the flight already running.
  private readonly flights = new SingleFlight<OriginOutcome>();

  async fetchJson(req: JsonRequest): Promise<OriginOutcome> {
    if (!isCoalescible(req.path)) throw new Error("not a coalescible endpoint");
    const config = readConfig(this.env);
    const origin = originConfigOf(config);
    // Recomputed here rather than trusted: a flight only ever serves requests that are identical.
    const key = await cacheKey(origin, req);
    return this.flights.run(key, async (hold) => {
      const askedAtMs = Date.now();
      const outcome = await attemptOrigin(fetchJsonTransport(origin), req, origin.timeoutMs);
      const kv = this.env.CACHE_KV;
      const policy = cachePolicy(req.window, askedAtMs, config.cacheFreshnessMs);
      const text =
        kv &&
        policy.kv &&
        isCacheable(outcome, req) &&
        stamped(outcome.body, { expiresAtMs: askedAtMs + policy.maxAgeSeconds * 1000, askedAtMs });
      if (kv && text && fitsInKv(text)) {
        // Answer the waiters now; the write finishes in the background, and until it has, this
        // flight answers the callers that would not find it in KV yet.
        const written = kvAnswers(kv)
          .put(key, text, Math.max(KV_MIN_TTL_S, policy.maxAgeSeconds))
          .catch(() => {});
        hold(written);
        this.ctx.waitUntil(written);
        return { ...outcome, kvStored: true };
      }
      return outcome;
    });
  }
}

/**
 * The whole-answer cache, at the transport: the origin client's small-JSON requests (client.ts
 * `postJson`: label names and values, series; stats rows and a tail's hit counts, which their
 * callers keep themselves or must not reuse, are only coalesced) go through it, so callers get
 * cached answers without knowing of a cache. It wraps the direct origin transport
 * with, in order, the data centre's cache, KV (historical windows only), and coalescing of
 * identical misses — in this isolate always, and across isolates through the coalescer Durable
 * Object when bound.
 * Storage failures never fail a request: they only cost a cache miss. Entries are stamped with
 * their expiry and the time the origin was asked (stamp.ts); an expired entry, or one the tenant's
 * purges void, is a miss like a missing one.
 */
import type { JsonRequest, JsonTransport } from "../origin/client";
import type { Tenant } from "../core/tenant";
import { isValidAnswer } from "../origin/answers";
import { cacheKey, type OriginIdentity } from "./keys";
import { type CachePolicy, cachePolicy, fitsInKv, KV_MIN_TTL_S } from "./policy";
import type { PurgeRecord } from "./purges";
import { stamped, unstamped, validBody, type Validity } from "./stamp";
import { answerOf, attemptOrigin, isCacheable, type OriginOutcome } from "./origin-outcome";
import { SingleFlight } from "./singleflight";
import { type AnswerCache, type AnswerKv, quietly } from "./storage";

/** One coalescing point per key (a Durable Object stub in production). */
export interface Coalescer {
  fetchJson(req: JsonRequest): Promise<OriginOutcome>;
}

export interface CachingOptions {
  /** Part of every key: answers from different origins, or asked with different credentials, never mix. */
  origin: OriginIdentity;
  timeoutMs: number;
  /** The direct origin transport, used when no coalescer is bound or it fails. */
  direct: JsonTransport;
  cache?: AnswerCache;
  kv?: AnswerKv;
  coalescerFor?: (key: string) => Coalescer;
  /**
   * Counts the origin request (or coalescer call) a miss is about to cost, or throws when the
   * request may make no more. Called per caller before joining a flight, so a refusal is this
   * caller's alone and never shared with the others waiting on the same key.
   */
  claimOrigin?: () => void;
  /** In-isolate single-flight; defaults to one map shared by the whole isolate. */
  flights?: SingleFlight<OriginOutcome>;
  nowMs?: () => number;
  /** Windows ending within this many ms of now are recent (default RECENT_HORIZON_MS). */
  horizonMs?: number;
  /** The tenant's operator purges (purges.ts); without it, entries are checked only for expiry. */
  purgesOf?: (tenant: Tenant) => Promise<readonly PurgeRecord[]>;
  /** Told of each lookup (the body found, or undefined) and each store, for `stats.cache`. */
  observe?: CacheObserver;
  /**
   * Keeps cache writes running after the answer (the request's waitUntil). With it, an answer is
   * returned as soon as it is known and its writes finish in the background; without it, they are
   * awaited first.
   */
  defer?: (work: Promise<unknown>) => void;
}

export interface CacheObserver {
  lookedUp(req: JsonRequest, body: string | undefined, elapsedMs: number): void;
  stored(req: JsonRequest, body: string): void;
}

const isolateFlights = new SingleFlight<OriginOutcome>();

export function cachingTransport(options: CachingOptions): JsonTransport {
  const flights = options.flights ?? isolateFlights;
  const now = options.nowMs ?? Date.now;
  return async (req, signal) => {
    const key = await cacheKey(options.origin, req);
    const policy = cachePolicy(req.window, now(), options.horizonMs);
    const purgesOf = options.purgesOf;
    const validity: Validity = { nowMs: now, purges: purgesOf && (() => purgesOf(req.tenant)) };

    // A request whose caller keeps the answer in pieces is only coalesced, never looked up whole.
    // An entry that does not read back as a valid answer (corrupt, or from a defective writer) is a
    // miss: the fill below replaces it.
    const reads = !req.noStore;
    const started = Date.now();
    const local = reads ? await validBody(await quietly(options.cache?.get(key)), req.window, validity) : undefined;
    if (local !== undefined && isValidAnswer(req.path, local)) {
      options.observe?.lookedUp(req, local, Date.now() - started);
      return { status: 200, body: local };
    }

    if (reads && policy.kv && options.kv) {
      const text = await quietly(options.kv.get(key));
      const shared = await validBody(text, req.window, validity);
      if (shared !== undefined && isValidAnswer(req.path, shared)) {
        options.observe?.lookedUp(req, shared, Date.now() - started);
        // The local copy lives no longer than the shared entry has left.
        const left = Math.floor(((unstamped(text!)?.stamp.expiresAtMs ?? 0) - now()) / 1000);
        await inBackground(options, quietly(options.cache?.put(key, text!, Math.max(1, left))));
        return { status: 200, body: shared };
      }
    }
    if (reads) options.observe?.lookedUp(req, undefined, Date.now() - started);
    options.claimOrigin?.();

    const outcome = await untilAborted(
      flights.run(key, (hold) => fill(options, key, req, policy, hold)),
      signal,
    );
    return answerOf(outcome);
  };
}

/** The one caller per key in this isolate that asks the origin (or the coalescer) and stores. */
async function fill(
  options: CachingOptions,
  key: string,
  req: JsonRequest,
  policy: CachePolicy,
  hold: (until: Promise<unknown>) => void,
): Promise<OriginOutcome> {
  const askedAtMs = (options.nowMs ?? Date.now)();
  let outcome: OriginOutcome | undefined;
  if (options.coalescerFor) {
    try {
      outcome = await options.coalescerFor(key).fetchJson(req);
    } catch {
      // The coalescer itself failed (not the origin: origin failures come back as outcomes).
      // Asking directly only loses cross-isolate sharing.
    }
  }
  outcome ??= await attemptOrigin(options.direct, req, options.timeoutMs);
  if (isCacheable(outcome, req)) {
    options.observe?.stored(req, outcome.body);
    // The two tiers are independent: writing them side by side keeps a cold answer from waiting
    // for one write after the other.
    const text = stamped(outcome.body, { expiresAtMs: askedAtMs + policy.maxAgeSeconds * 1000, askedAtMs });
    const toKv = policy.kv && options.kv && !outcome.kvStored && fitsInKv(text);
    const writes = Promise.all([
      quietly(options.cache?.put(key, text, policy.maxAgeSeconds)),
      toKv ? quietly(options.kv?.put(key, text, Math.max(KV_MIN_TTL_S, policy.maxAgeSeconds))) : undefined,
    ]);
    // Until the local entry exists, this flight answers the callers that would miss it.
    hold(writes);
    await inBackground(options, writes);
  }
  return outcome;
}

/** `writes`, left to run after the answer when the request can keep them alive; awaited otherwise. */
async function inBackground(options: CachingOptions, writes: Promise<unknown>): Promise<void> {
  if (options.defer) options.defer(writes);
  else await writes;
}

/** A shared result, awaited by one caller who may give up early without cancelling it. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Adapters from the Workers storage bindings (Cache API, KV) to the small interfaces the caches
 * are written against (storage.ts). The coalescer namespace has its own (coalescer-stubs.ts).
 */
import type { AnswerCache, AnswerKv } from "./storage";

/** Cache API entries live under a synthetic URL; the key is a digest, so nothing in it is readable. */
const CACHE_URL_PREFIX = "https://origin-answers.loki-vl.internal/v1/";
/** KV entries share a namespace with nothing else today; the prefix keeps it that way. */
const KV_PREFIX = "answer:v1:";

export function cacheApiAnswers(cache: Cache): AnswerCache {
  return {
    async get(key) {
      const hit = await cache.match(CACHE_URL_PREFIX + key);
      return hit ? await hit.text() : undefined;
    },
    async put(key, body, maxAgeSeconds) {
      const res = new Response(body, {
        headers: { "Content-Type": "application/json", "Cache-Control": `max-age=${maxAgeSeconds}` },
      });
      await cache.put(CACHE_URL_PREFIX + key, res);
    },
  };
}

export function kvAnswers(kv: KVNamespace): AnswerKv {
  return {
    // Default read caching (60 s) only: a longer cacheTtl would also pin a "not found" seen just
    // before the coalescer's write. Repeats are served by the Cache API refill, not by KV.
    get: (key) => kv.get(KV_PREFIX + key, "text"),
    put: (key, body, expirationTtl) => kv.put(KV_PREFIX + key, body, { expirationTtl }),
  };
}

/**
 * The two stores every cache here is written against, as small interfaces (bindings.ts adapts the
 * Workers bindings to them), and the rule they are all used by: a storage failure is a miss, never
 * a failed request.
 */

/** A per-location cache of answer bodies (the Cache API in production). */
export interface AnswerCache {
  get(key: string): Promise<string | undefined>;
  put(key: string, body: string, maxAgeSeconds: number): Promise<void>;
}

/** A global, eventually consistent store of answer bodies (KV in production). */
export interface AnswerKv {
  get(key: string): Promise<string | null>;
  put(key: string, body: string, expirationTtlSeconds: number): Promise<void>;
}

/** A storage call whose failure is only a miss: its result, or undefined. */
export async function quietly<T>(p: Promise<T> | undefined): Promise<T | undefined> {
  if (!p) return undefined;
  try {
    return await p;
  } catch {
    return undefined;
  }
}

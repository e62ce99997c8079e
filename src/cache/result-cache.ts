/**
 * The results cache of one request for one tenant: where the immutable pieces of answers are kept
 * (chunk-store.ts) and how this request may use them. Every piece-wise cache (time buckets, log
 * windows, metric chunks, pattern chunks) is built on it; it is absent when caching is off for the
 * request, and then each of them asks the origin for everything.
 */
import type { TimeWindow } from "../core/time-window";
import type { ChunkStore } from "./chunk-store";
import type { CacheStats } from "./stats";

export interface ResultCache {
  store: ChunkStore;
  stats: CacheStats;
  /** Pieces ending after now − horizon may still change: never stored. */
  horizonNs: bigint;
  nowNs: () => bigint;
  /** Keeps a write running after the response is sent (the execution context's waitUntil). */
  defer: (work: Promise<unknown>) => void;
  /** Runs work that prepares a write once the answer is out, off the client's wait. */
  later: (task: () => void) => void;
  /** The piece's key: digest of tenant, origin, credentials context, what the piece answers and its window. */
  keyOf: (material: string, window: TimeWindow) => Promise<string>;
}

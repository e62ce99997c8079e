/**
 * The entries a live tail has already accounted for (sent, dropped, or present before it opened),
 * keyed by (stream labels, metadata, timestamp, line) as Loki de-duplicates entries, grouped in the
 * same time buckets as the origin's row counts (exec/tail.ts): each bucket remembers how many rows
 * the origin counted in it when it was last read, and the keys of the entries read from it.
 *
 * Memory stays bounded: a key is one 53-bit hash held in a sorted Float64Array (8 bytes a row, not
 * the line), buckets older than the look-back floor are forgotten (their rows are never re-read),
 * and the set holds at most `capacity` keys — past that the oldest buckets go, and `floor` rises
 * so that their rows are never re-read either.
 */
import type { Labels, LogEntry } from "../engine/types";

interface Bucket {
  /** Rows the origin counted here when the bucket was last read in full; -1 when never. */
  hits: number;
  /** Keys of the entries read from this bucket, ascending. */
  keys: Float64Array;
}

const NO_KEYS = new Float64Array(0);

export class SeenBuckets {
  private readonly buckets = new Map<bigint, Bucket>();
  private keyCount = 0;
  /** No bucket older than this is kept; a tail must not re-read rows older than it. */
  private floorNs = -1n;

  constructor(
    /** Width of a bucket, ns: the step of the origin's row counts. */
    readonly stepNs: bigint,
    private readonly capacity: number,
  ) {}

  /** Keys held, over all buckets. */
  get size(): number {
    return this.keyCount;
  }

  /** The oldest timestamp whose rows this set can still de-duplicate (a bucket boundary). */
  get floor(): bigint {
    return this.floorNs;
  }

  /** The start of the bucket holding `ts`. */
  bucketOf(ts: bigint): bigint {
    const r = ts % this.stepNs;
    return ts - (r < 0n ? r + this.stepNs : r);
  }

  /** Rows the origin counted in bucket `start` when it was last read in full (-1: never read). */
  hitsOf(start: bigint): number {
    return this.buckets.get(start)?.hits ?? -1;
  }

  /** The bucket starts held, any order. */
  starts(): IterableIterator<bigint> {
    return this.buckets.keys();
  }

  has(ts: bigint, key: number): boolean {
    const keys = this.buckets.get(this.bucketOf(ts))?.keys;
    return keys !== undefined && contains(keys, key);
  }

  /** Bucket `start` was read in full while the origin counted `hits` rows in it: these are its keys. */
  replace(start: bigint, hits: number, keys: number[]): void {
    if (start < this.floorNs) return;
    this.set(start, { hits, keys: sortedUnique(keys) });
  }

  /**
   * Adds keys without vouching for the whole bucket (a read cut short, the first frame's replay):
   * the bucket keeps the count it had, so the next poll still reads it, and these rows stay seen.
   */
  addKeys(start: bigint, keys: number[]): void {
    if (start < this.floorNs || keys.length === 0) return;
    const old = this.buckets.get(start);
    const merged = old ? [...old.keys, ...keys] : keys;
    this.set(start, { hits: old?.hits ?? -1, keys: sortedUnique(merged) });
  }

  /** Forgets a bucket the origin no longer counts any row in. */
  forget(start: bigint): void {
    const old = this.buckets.get(start);
    if (!old) return;
    this.keyCount -= old.keys.length;
    this.buckets.delete(start);
  }

  /**
   * Forgets buckets older than `floorNs` (the tail no longer re-reads their rows), then, over
   * capacity, the oldest buckets: the floor rises to the oldest bucket kept.
   */
  prune(floorNs: bigint): void {
    if (floorNs > this.floorNs) this.floorNs = floorNs;
    for (const start of [...this.buckets.keys()]) if (start < this.floorNs) this.forget(start);
    if (this.keyCount <= this.capacity) return;
    const ordered = [...this.buckets.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    // The newest bucket stays even when it alone is over capacity: its rows are the live edge.
    for (let i = 0; i < ordered.length - 1 && this.keyCount > this.capacity; i++) {
      this.forget(ordered[i]!);
      this.floorNs = ordered[i + 1]!;
    }
  }

  private set(start: bigint, bucket: Bucket): void {
    this.keyCount += bucket.keys.length - (this.buckets.get(start)?.keys.length ?? 0);
    this.buckets.set(start, bucket);
  }
}

function sortedUnique(keys: number[]): Float64Array {
  if (keys.length === 0) return NO_KEYS;
  const sorted = Float64Array.from(keys).sort();
  let n = 1;
  for (let i = 1; i < sorted.length; i++) if (sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i]!;
  return n === sorted.length ? sorted : sorted.slice(0, n);
}

function contains(sorted: Float64Array, key: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === key) return true;
    if (v < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * A fixed-size identity of an entry: two independent 32-bit hashes of its timestamp, labels,
 * metadata and line, combined into 53 bits (an exact double). Keys are compared only within one
 * time bucket, so an accidental collision among its rows is negligible (~10⁻⁶ for 100,000 rows).
 */
export function entryKey(e: LogEntry): number {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  const mix = (s: string): void => {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    // A separator no label or line can forge: the lengths are mixed in too.
    a = Math.imul(a ^ (s.length + 0x10000), 0x01000193);
    b = Math.imul(b ^ (s.length + 0x10000), 0x5bd1e995);
  };
  mix(String(e.ts));
  mixLabels(e.stream, mix);
  mixLabels(e.metadata, mix);
  mix(e.line);
  return (a >>> 0) * 0x200000 + ((b >>> 0) >>> 11);
}

function mixLabels(labels: Labels, mix: (s: string) => void): void {
  const names = Object.keys(labels).sort();
  mix(String(names.length));
  for (const n of names) {
    mix(n);
    mix(labels[n]!);
  }
}

/**
 * The entries a live tail has already accounted for (sent, dropped, or present before it opened),
 * keyed by (stream labels, metadata, timestamp, line) as Loki de-duplicates entries. Each look-back
 * poll re-reads a window that overlaps the previous ones; this set decides which rows are new.
 *
 * Memory stays bounded: keys are fixed-size hashes (not the lines themselves), keys older than the
 * look-back floor are forgotten (those rows are never re-read), and the set holds at most `capacity`
 * keys — past that the oldest go, and `floor` rises so that their rows are never re-read either.
 */
import type { Labels, LogEntry } from "../engine/types";

export class SeenEntries {
  /** key → timestamp, for pruning by age. */
  private readonly keys = new Map<string, bigint>();
  /** No key older than this is kept; a tail must not re-read rows older than it. */
  private floorNs = -1n;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.keys.size;
  }

  /** The oldest timestamp whose rows this set can still de-duplicate. */
  get floor(): bigint {
    return this.floorNs;
  }

  /** Records `e`; true when it had not been seen (the caller sends it), false for a repeat. */
  add(e: LogEntry): boolean {
    const key = entryKey(e);
    if (this.keys.has(key)) return false;
    this.keys.set(key, e.ts);
    return true;
  }

  /**
   * Forgets keys older than `floorNs` (the tail no longer re-reads their rows), then, over capacity,
   * the oldest keys: the floor rises to the oldest timestamp kept.
   */
  prune(floorNs: bigint): void {
    if (floorNs > this.floorNs) this.floorNs = floorNs;
    for (const [key, ts] of this.keys) if (ts < this.floorNs) this.keys.delete(key);
    if (this.keys.size <= this.capacity) return;
    const ordered = [...this.keys.values()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    // Every key at the new floor's timestamp is kept, so a re-read of that timestamp stays exact.
    const newFloor = ordered[ordered.length - this.capacity]!;
    this.floorNs = newFloor > this.floorNs ? newFloor : this.floorNs;
    for (const [key, ts] of this.keys) if (ts < this.floorNs) this.keys.delete(key);
  }
}

/**
 * A fixed-size identity of an entry: its timestamp and two independent 32-bit hashes of its labels
 * and line (64 bits, so an accidental collision inside one look-back window is negligible).
 */
export function entryKey(e: LogEntry): string {
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
  mixLabels(e.stream, mix);
  mixLabels(e.metadata, mix);
  mix(e.line);
  return `${e.ts}:${(a >>> 0).toString(36)}:${(b >>> 0).toString(36)}`;
}

function mixLabels(labels: Labels, mix: (s: string) => void): void {
  const names = Object.keys(labels).sort();
  mix(String(names.length));
  for (const n of names) {
    mix(n);
    mix(labels[n]!);
  }
}

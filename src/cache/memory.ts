/**
 * The isolate's own tier in front of the Cache API: the most recently used immutable pieces, bounded
 * in bytes. An isolate serves many requests in a row, so a refreshing dashboard finds its historical
 * chunks here without any I/O. Keys are the same digests as in the other tiers (tenant included),
 * and only immutable pieces come here, so nothing in it can be stale or cross tenants.
 */
export class BoundedLru {
  private readonly entries = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): string | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Re-inserted to mark it most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: string): void {
    const size = sizeOf(key, value);
    if (size > this.maxBytes / 8) return; // one piece may not crowd out the rest
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= sizeOf(key, old);
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.bytes += size;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= sizeOf(k, v);
    }
  }

  get size(): number {
    return this.bytes;
  }
}

/** UTF-16 code units, two bytes each: what V8 holds for a two-byte string (one-byte ones cost less). */
function sizeOf(key: string, value: string): number {
  return 2 * (key.length + value.length);
}

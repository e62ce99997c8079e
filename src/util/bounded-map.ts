/**
 * A map bounded both in entries and in bytes, least recently used out first (by second chance: a
 * hit only marks its entry, and eviction moves marked entries to the back once instead of
 * reordering the map on every hit, which hot paths such as row decoding would pay per row). Module-level caches
 * live as long as the isolate and are keyed by what requests send (query text, patterns, layouts,
 * zone names): without a byte bound, a few large keys would hold isolate memory after their request
 * ended. Sizes are estimates (two bytes per UTF-16 unit of the key, plus the caller's estimate of
 * the value), which is all a bound needs.
 */
export class BoundedMap<V> {
  private readonly entries = new Map<string, { value: V; size: number; used: boolean }>();
  private bytes = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
    /** Estimated bytes a value holds (besides its key). */
    private readonly sizeOfValue: (value: V, key: string) => number = () => 0,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.value;
  }

  set(key: string, value: V): void {
    const size = 2 * key.length + this.sizeOfValue(value, key);
    // One entry may not crowd out the rest: larger ones are simply not kept.
    if (size > this.maxBytes / 8) return;
    this.delete(key);
    this.entries.set(key, { value, size, used: false });
    this.bytes += size;
    // Oldest first; an entry hit since it was last passed goes to the back once instead.
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes && this.entries.size <= this.maxEntries) break;
      this.entries.delete(k);
      if (e.used && k !== key) {
        e.used = false;
        this.entries.set(k, e);
      } else this.bytes -= e.size;
    }
  }

  delete(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.bytes -= old.size;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Estimated bytes held. */
  get byteSize(): number {
    return this.bytes;
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * At most one run of a task per key at a time: callers that arrive while it runs share its result.
 * The entry is dropped as soon as the task settles, so a later caller starts afresh (the cache,
 * not this map, serves repeats), unless the task asked to hold it (see run).
 */
export class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  /**
   * `task` may call `hold(until)` to keep its settled result in place until `until` settles: a
   * result whose cache write is still under way then serves the callers that arrive meanwhile,
   * instead of letting them miss the cache and ask again.
   */
  run(key: string, task: (hold: (until: Promise<unknown>) => void) => Promise<T>): Promise<T> {
    const existing = this.inFlight.get(key);
    if (existing) return existing;
    let held: Promise<unknown> | undefined;
    const hold = (until: Promise<unknown>) => {
      held = until;
    };
    // Started on a microtask so the entry exists before the task can settle, even synchronously.
    const p: Promise<T> = Promise.resolve().then(() => task(hold));
    const drop = () => {
      if (this.inFlight.get(key) === p) this.inFlight.delete(key);
    };
    p.then(() => (held ? held.then(drop, drop) : drop()), drop);
    this.inFlight.set(key, p);
    return p;
  }

  get size(): number {
    return this.inFlight.size;
  }
}

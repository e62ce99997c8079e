/**
 * Loki's `max_concurrent_tail_requests`: how many live tails one tenant may hold open at once.
 * Each open tail polls the origin every second for as long as it lives (up to TAIL_MAX_DURATION),
 * so an unbounded number of them is an unbounded load on the origin and on the isolate.
 *
 * The count is kept per isolate: tails of one tenant that land on different isolates (different
 * data centres, or the runtime spreading load) are counted separately, so the limit holds per
 * isolate, not globally.
 */

export type TailSlot = { release: () => void } | { refused: string };

export class TailSlots {
  private readonly open = new Map<string, number>();

  /** A slot for one more tail of `tenant`, or Loki's refusal when `limit` are already open. */
  acquire(tenant: string, limit: number): TailSlot {
    const count = this.open.get(tenant) ?? 0;
    if (count >= limit) {
      return { refused: `max concurrent tail requests limit exceeded, count > limit (${count + 1} > ${limit})` };
    }
    this.open.set(tenant, count + 1);
    let released = false;
    return {
      release: () => {
        // Idempotent: a tail may end through several paths (close, error, max duration) at once.
        if (released) return;
        released = true;
        const left = (this.open.get(tenant) ?? 1) - 1;
        if (left > 0) this.open.set(tenant, left);
        else this.open.delete(tenant);
      },
    };
  }

  /** Tails of `tenant` open in this isolate. */
  count(tenant: string): number {
    return this.open.get(tenant) ?? 0;
  }
}

/** The isolate's tails: module state lives as long as the isolate that serves them. */
export const isolateTailSlots = new TailSlots();

/**
 * The open tails of one tenant as leases that expire unless renewed: the state of the per-tenant
 * Durable Object (exec/tail-slot-object.ts), kept apart from the runtime so it can be tested alone.
 * A tail renews its lease while it runs; a tail whose isolate died without releasing it stops
 * counting once its lease expires, so a lost release never holds a slot for long.
 */
export interface LeaseAnswer {
  ok: boolean;
  /** Tails open when asked, this one excluded. */
  open: number;
}

export class TailLeases {
  private readonly expiry = new Map<string, number>();

  /** A lease for one more tail, unless `limit` unexpired leases are held. */
  acquire(lease: string, limit: number, ttlMs: number, nowMs: number): LeaseAnswer {
    this.expire(nowMs);
    const open = this.expiry.size;
    if (open >= limit) return { ok: false, open };
    this.expiry.set(lease, nowMs + ttlMs);
    return { ok: true, open };
  }

  /**
   * Extends a lease. One that is gone (expired while the object was unreachable, or the object's
   * memory was reset) is taken again even over the limit: its tail is open all the same.
   */
  renew(lease: string, ttlMs: number, nowMs: number): void {
    this.expiry.set(lease, nowMs + ttlMs);
  }

  release(lease: string): void {
    this.expiry.delete(lease);
  }

  /** Unexpired leases. */
  count(nowMs: number): number {
    this.expire(nowMs);
    return this.expiry.size;
  }

  private expire(nowMs: number): void {
    for (const [lease, at] of this.expiry) if (at <= nowMs) this.expiry.delete(lease);
  }
}

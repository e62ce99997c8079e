/**
 * Loki's `max_concurrent_tail_requests`: how many live tails one tenant may hold open at once.
 * Each open tail polls the origin every second for as long as it lives (up to TAIL_MAX_DURATION),
 * so an unbounded number of them is an unbounded load on the origin and on the isolate.
 *
 * Two counts, both per tenant: the isolate's own (always; it also protects the isolate's memory),
 * and, with the TAIL_SLOTS Durable Object binding, one object per tenant that sees the tenant's
 * tails on every isolate. When that object cannot be reached, the isolate's count still holds.
 */
import type { LeaseAnswer } from "./tail-slot-leases";

export type TailSlot = { release: () => void } | { refused: string };

/** A tenant's counter object (exec/tail-slot-object.ts) as a caller reaches it. */
export interface TailSlotCounterStub {
  acquire(lease: string, limit: number, ttlMs: number): Promise<LeaseAnswer>;
  renew(lease: string, ttlMs: number): Promise<void>;
  release(lease: string): Promise<void>;
}

/** The counter of each tenant. */
export type TailSlotCounters = (tenant: string) => TailSlotCounterStub;

/** A lease not renewed for this long no longer counts (its isolate is gone). */
export const LEASE_TTL_MS = 60_000;
/** Open tails renew their lease this often; also how soon a reset object counts them again. */
export const RENEW_MS = 15_000;

export function tailLimitMessage(open: number, limit: number): string {
  return `max concurrent tail requests limit exceeded, count > limit (${open + 1} > ${limit})`;
}

export class TailSlots {
  private readonly open = new Map<string, number>();

  /** A slot for one more tail of `tenant`, or Loki's refusal when `limit` are already open. */
  acquire(tenant: string, limit: number): TailSlot {
    const count = this.open.get(tenant) ?? 0;
    if (count >= limit) return { refused: tailLimitMessage(count, limit) };
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

/**
 * A slot for one more tail of `tenant`: from this isolate's count, then from the tenant's counter
 * object when `counters` is bound. The slot's release frees both.
 */
export async function acquireTailSlot(
  counters: TailSlotCounters | undefined,
  tenant: string,
  limit: number,
): Promise<TailSlot> {
  const local = isolateTailSlots.acquire(tenant, limit);
  if ("refused" in local || !counters) return local;
  const stub = counters(tenant);
  const lease = crypto.randomUUID();
  let answer: LeaseAnswer;
  try {
    answer = await stub.acquire(lease, limit, LEASE_TTL_MS);
  } catch {
    // The counter is unreachable: the isolate's count alone bounds this tenant's tails here.
    return local;
  }
  if (!answer.ok) {
    local.release();
    return { refused: tailLimitMessage(answer.open, limit) };
  }
  const renew = setInterval(() => {
    stub.renew(lease, LEASE_TTL_MS).catch(() => {});
  }, RENEW_MS);
  return {
    release: () => {
      clearInterval(renew);
      local.release();
      // Best effort: a release that does not arrive expires with its lease.
      stub.release(lease).catch(() => {});
    },
  };
}

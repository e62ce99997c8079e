/**
 * One Durable Object per tenant (named by the tenant) counting its open tails across every isolate
 * and data centre, so MAX_CONCURRENT_TAILS holds per tenant rather than per isolate. Leases live in
 * the object's memory: if the runtime evicts or restarts it, the counts are rebuilt by the open
 * tails' next renewals (exec/tail-slots.ts renews every RENEW_MS).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../config";
import { type LeaseAnswer, TailLeases } from "./tail-slot-leases";

export class TailSlotCounter extends DurableObject<Env> {
  private readonly leases = new TailLeases();

  acquire(lease: string, limit: number, ttlMs: number): LeaseAnswer {
    return this.leases.acquire(lease, limit, ttlMs, Date.now());
  }

  renew(lease: string, ttlMs: number): void {
    this.leases.renew(lease, ttlMs, Date.now());
  }

  release(lease: string): void {
    this.leases.release(lease);
  }
}

/** Counting a tenant's open tails: in one isolate, and as expiring leases in the tenant's counter. */
import { describe, expect, it } from "vitest";
import { acquireTailSlot, isolateTailSlots, TailSlots, type TailSlotCounters } from "../../../src/exec/tail-slots";
import { TailLeases } from "../../../src/exec/tail-slot-leases";

describe("TailSlots (one isolate)", () => {
  it("gives `limit` slots per tenant, refuses the next with Loki's message, and frees a slot once", () => {
    const slots = new TailSlots();
    const held = [1, 2, 3].map(() => slots.acquire("1:0", 3));
    expect(held.every((s) => "release" in s)).toBe(true);
    expect(slots.acquire("1:0", 3)).toEqual({
      refused: "max concurrent tail requests limit exceeded, count > limit (4 > 3)",
    });
    expect("release" in slots.acquire("2:0", 3)).toBe(true);
    const first = held[0] as { release: () => void };
    first.release();
    first.release();
    expect(slots.count("1:0")).toBe(2);
  });

  it("without a counter binding, acquireTailSlot is the isolate's count", async () => {
    const tenant = `unit-${Date.now()}`;
    const a = await acquireTailSlot(undefined, tenant, 1);
    expect("release" in a).toBe(true);
    expect(await acquireTailSlot(undefined, tenant, 1)).toEqual({
      refused: "max concurrent tail requests limit exceeded, count > limit (2 > 1)",
    });
    (a as { release: () => void }).release();
    expect("release" in (await acquireTailSlot(undefined, tenant, 1))).toBe(true);
  });
});

describe("acquireTailSlot with the tenant's counter", () => {
  /** A counter double whose leases are those of a TailLeases, or that fails every call. */
  function counters(failing = false): { counters: TailSlotCounters; leases: TailLeases } {
    const leases = new TailLeases();
    const call = async <T>(f: () => T): Promise<T> => {
      if (failing) throw new Error("counter unreachable");
      return f();
    };
    return {
      leases,
      counters: () => ({
        acquire: (lease, limit, ttl) => call(() => leases.acquire(lease, limit, ttl, Date.now())),
        renew: (lease, ttl) => call(() => leases.renew(lease, ttl, Date.now())),
        release: (lease) => call(() => leases.release(lease)),
      }),
    };
  }

  it("the counter's refusal is Loki's, counting the tails held elsewhere, and holds no slot here", async () => {
    const tenant = `unit-c-${Date.now()}`;
    const c = counters();
    c.leases.acquire("elsewhere-1", 2, 60_000, Date.now());
    c.leases.acquire("elsewhere-2", 2, 60_000, Date.now());
    expect(await acquireTailSlot(c.counters, tenant, 2)).toEqual({
      refused: "max concurrent tail requests limit exceeded, count > limit (3 > 2)",
    });
    expect(isolateTailSlots.count(tenant)).toBe(0);
  });

  it("a granted slot's release frees the lease and the isolate's slot", async () => {
    const tenant = `unit-d-${Date.now()}`;
    const c = counters();
    const slot = await acquireTailSlot(c.counters, tenant, 2);
    expect(c.leases.count(Date.now())).toBe(1);
    expect(isolateTailSlots.count(tenant)).toBe(1);
    (slot as { release: () => void }).release();
    await new Promise((r) => setTimeout(r, 0));
    expect(c.leases.count(Date.now())).toBe(0);
    expect(isolateTailSlots.count(tenant)).toBe(0);
  });

  it("an unreachable counter leaves the isolate's count in charge", async () => {
    const tenant = `unit-e-${Date.now()}`;
    const c = counters(true);
    const slot = await acquireTailSlot(c.counters, tenant, 1);
    expect("release" in slot).toBe(true);
    expect(await acquireTailSlot(c.counters, tenant, 1)).toEqual({
      refused: "max concurrent tail requests limit exceeded, count > limit (2 > 1)",
    });
    (slot as { release: () => void }).release();
  });
});

describe("TailLeases (the tenant's counter)", () => {
  it("refuses past the limit; a released or expired lease stops counting", () => {
    const leases = new TailLeases();
    expect(leases.acquire("a", 2, 1000, 0)).toEqual({ ok: true, open: 0 });
    expect(leases.acquire("b", 2, 1000, 10)).toEqual({ ok: true, open: 1 });
    expect(leases.acquire("c", 2, 1000, 20)).toEqual({ ok: false, open: 2 });
    leases.release("a");
    expect(leases.acquire("c", 2, 1000, 30)).toEqual({ ok: true, open: 1 });
    // b expires at 1010 unless renewed; c is renewed.
    leases.renew("c", 1000, 900);
    expect(leases.count(1010)).toBe(1);
    expect(leases.acquire("d", 2, 1000, 1010)).toEqual({ ok: true, open: 1 });
  });

  it("a renewal of a lease the counter lost (reset, expired) counts it again", () => {
    const leases = new TailLeases();
    leases.renew("lost", 1000, 0);
    expect(leases.count(10)).toBe(1);
  });
});

/** Memory admission for log queries: reservations within capacity, arrival order, Loki's 429. */
import { describe, expect, it, vi } from "vitest";
import { MemoryAdmission, TooManyOutstandingRequests, logQueryReservation } from "../../../src/exec/admission";
import { parseExpr } from "../../../src/logql/parser";
import type { LogSelectorExpr } from "../../../src/logql/ast";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("MemoryAdmission", () => {
  it("admits while reservations fit, queues the rest in arrival order, and releases once", async () => {
    const a = new MemoryAdmission(10);
    const first = await a.acquire(6);
    const order: string[] = [];
    const second = a.acquire(6).then((r) => (order.push("second"), r));
    const third = a.acquire(3).then((r) => (order.push("third"), r));
    await tick();
    // The small third request fits but does not overtake the second.
    expect(order).toEqual([]);
    expect(a.queued).toBe(2);
    first();
    first();
    const releaseSecond = await second;
    const releaseThird = await third;
    expect(order).toEqual(["second", "third"]);
    expect(a.reserved).toBe(9);
    releaseSecond();
    releaseThird();
    expect(a.reserved).toBe(0);
  });

  it("lets a request larger than the whole capacity run alone", async () => {
    const a = new MemoryAdmission(10);
    const big = await a.acquire(50);
    expect(a.reserved).toBe(10);
    big();
    expect(a.reserved).toBe(0);
  });

  it("refuses with Loki's 429 after waiting too long, and lets the next one in", async () => {
    vi.useFakeTimers();
    try {
      const a = new MemoryAdmission(10, 1000);
      const held = await a.acquire(10);
      const waiting = a.acquire(5);
      const refused = expect(waiting).rejects.toBeInstanceOf(TooManyOutstandingRequests);
      await vi.advanceTimersByTimeAsync(1001);
      await refused;
      await waiting.catch((err: TooManyOutstandingRequests) => {
        expect(err.status).toBe(429);
        expect(err.message).toBe("too many outstanding requests");
      });
      expect(a.queued).toBe(0);
      held();
      expect(a.reserved).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("drops a waiter whose client went away", async () => {
    const a = new MemoryAdmission(10);
    const held = await a.acquire(10);
    const ac = new AbortController();
    const waiting = a.acquire(5, ac.signal);
    ac.abort(new Error("client gone"));
    await expect(waiting).rejects.toThrow("client gone");
    expect(a.queued).toBe(0);
    held();
    expect(a.reserved).toBe(0);
  });
});

describe("logQueryReservation", () => {
  it("is 2 KiB per entry of the limit, twice that when the pipeline parses or formats", () => {
    const plain = parseExpr('{app="x"} |= "error"') as LogSelectorExpr;
    const parsed = parseExpr('{app="x"} | json | line_format "{{.a}}"') as LogSelectorExpr;
    expect(logQueryReservation(plain, 5000)).toBe(5000 * 2048);
    expect(logQueryReservation(parsed, 5000)).toBe(5000 * 4096);
  });
});

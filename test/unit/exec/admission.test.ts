/** Memory admission for log queries: reservations within capacity, arrival order, Loki's 429. */
import { describe, expect, it, vi } from "vitest";
import { ISOLATE_LOG_QUERY_BYTES, MemoryAdmission, logQueryReservation } from "../../../src/exec/admission";
import { TooManyOutstandingRequests } from "../../../src/core/errors";
import { statusOf } from "../../../src/http/errors";
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
        expect(statusOf(err)).toBe(429);
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

  it("reserves the worst case of a template that can make long text of little, up to the text budget", () => {
    const reserve = (q: string, limit: number) => logQueryReservation(parseExpr(q) as LogSelectorExpr, limit);
    const repeat = '{app="x"} | label_format big="{{ repeat 1000000 \\"x\\" }}"';
    // Each entry can carry 1 Mi characters: one entry, 2 MiB more than the estimate.
    expect(reserve(repeat, 1)).toBe(4096 + 2 * 1024 * 1024);
    // A hundred entries can fill the 16 Mi budget: the query takes the whole isolate's share.
    expect(reserve(repeat, 100)).toBeGreaterThanOrEqual(ISOLATE_LOG_QUERY_BYTES);
    expect(reserve(repeat, 2000)).toBe(2000 * 4096 + 32 * 1024 * 1024);
    // Each amplifying template of a stage counts.
    expect(reserve('{app="x"} | label_format a="{{ repeat 3 .a }}", b="{{ indent 4 .b }}"', 1)).toBe(
      4096 + 2 * 2 * 1024 * 1024,
    );
    for (const q of [
      '{app="x"} | line_format "{{ printf \\"%01000000d\\" 1 }}"',
      '{app="x"} | line_format "{{ .level | printf .fmt }}"',
      '{app="x"} | line_format "{{ range $i, $c := .items }}{{ __line__ }}{{ end }}"',
      '{app="x"} | line_format "{{ replace \\"a\\" \\"bbbbbbbb\\" __line__ }}"',
      `{app="x"} | label_format a="${"{{.msg}}".repeat(17)}"`,
    ]) {
      expect(reserve(q, 10), q).toBe(10 * 4096 + 2 * 10 * 1024 * 1024);
    }
  });

  it("reserves only the estimate for templates that copy what the entry holds", () => {
    for (const q of [
      '{app="x"} | json | label_format a="{{.msg}}{{.msg}}"',
      '{app="x"} | logfmt | line_format "{{ .level | printf \\"%-5s\\" }} {{ .msg | upper }} {{ __line__ | trunc 80 }}"',
      '{app="x"} | label_format a=b',
      // Does not compile: planning refuses it before anything is read.
      '{app="x"} | line_format "{{ nosuchfn . }}"',
    ]) {
      expect(logQueryReservation(parseExpr(q) as LogSelectorExpr, 5000), q).toBe(5000 * 4096);
    }
  });
});

describe("QueryMemory", () => {
  it("grows a running query's share with the text it holds, from the room left, and returns it all", async () => {
    const mib = 1024 * 1024;
    const a = new MemoryAdmission(10 * mib);
    const m = await a.admit(2 * mib);
    expect(a.reserved).toBe(2 * mib);
    // 1 Mi characters are two MiB: covered by the reservation.
    m.cover(mib);
    expect(a.reserved).toBe(2 * mib);
    // 1.25 Mi characters need half a MiB more: a whole step is taken.
    m.cover(1.25 * mib);
    expect(a.reserved).toBe(3 * mib);
    m.cover(4 * mib);
    expect(a.reserved).toBe(8 * mib);
    // 5.5 Mi characters need 11 MiB of a 10 MiB admission: Loki's 429, the share as it was.
    expect(() => m.cover(5.5 * mib)).toThrow(TooManyOutstandingRequests);
    expect(a.reserved).toBe(8 * mib);
    m.release();
    m.release();
    expect(a.reserved).toBe(0);
  });

  it("lets a waiting query in when a growing one gives its room back", async () => {
    const a = new MemoryAdmission(4);
    const m = await a.admit(2);
    const waiting = a.admit(4);
    expect(a.queued).toBe(1);
    m.release();
    const next = await waiting;
    expect(a.reserved).toBe(4);
    next.release();
    expect(a.reserved).toBe(0);
  });
});

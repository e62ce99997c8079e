/**
 * Sub-window splitting and the ordered, bounded, abortable fan-out that log queries rely on.
 * Expected values are worked out by hand from the definitions in the comments.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { runWindows, splitWindows } from "../../../src/exec/windows";
import type { TimeWindow } from "../../../src/core/time-window";

const MIN = 60_000_000_000n;
const HOUR = 60n * MIN;

const w = (start: bigint, end: bigint): TimeWindow => ({ start, end });

describe("splitWindows", () => {
  it("cuts an aligned range into whole intervals, oldest first", () => {
    expect(splitWindows(w(0n, 3n * HOUR), HOUR, false)).toEqual([
      w(0n, HOUR),
      w(HOUR, 2n * HOUR),
      w(2n * HOUR, 3n * HOUR),
    ]);
  });

  it("aligns inner boundaries to epoch multiples and keeps the ragged ends", () => {
    // 00:30 .. 02:30 with 1h windows: the boundaries are 01:00 and 02:00.
    expect(splitWindows(w(30n * MIN, 150n * MIN), HOUR, false)).toEqual([
      w(30n * MIN, HOUR),
      w(HOUR, 2n * HOUR),
      w(2n * HOUR, 150n * MIN),
    ]);
  });

  it("gives newest first for backward queries", () => {
    expect(splitWindows(w(30n * MIN, 150n * MIN), HOUR, true)).toEqual([
      w(2n * HOUR, 150n * MIN),
      w(HOUR, 2n * HOUR),
      w(30n * MIN, HOUR),
    ]);
  });

  it("aligns on the epoch for a real range (compat data, 17m windows)", () => {
    // 1769911200 s = 2026-02-01T02:00:00Z; 17 min = 1020 s. floor(1769911200 / 1020) = 1735207,
    // so the first boundary is 1735208 * 1020 = 1769912160 s (02:16:00Z).
    const s = 1_769_911_200n * 1_000_000_000n;
    const e = 1_769_914_800n * 1_000_000_000n;
    const got = splitWindows(w(s, e), 17n * MIN, false);
    expect(got[0]).toEqual(w(s, 1_769_912_160n * 1_000_000_000n));
    expect(got[1]!.start).toBe(1_769_912_160n * 1_000_000_000n);
    expect(got.at(-1)!.end).toBe(e);
    // 02:16, 02:33, 02:50 are the boundaries inside 02:00..03:00 -> 4 windows.
    expect(got).toHaveLength(4);
  });

  it("floors boundaries correctly before the epoch", () => {
    expect(splitWindows(w(-90n * MIN, 30n * MIN), HOUR, false)).toEqual([
      w(-90n * MIN, -60n * MIN),
      w(-60n * MIN, 0n),
      w(0n, 30n * MIN),
    ]);
  });

  it("returns the range itself when the interval exceeds it or is not positive", () => {
    expect(splitWindows(w(10n, 20n), 1000n * HOUR, true)).toEqual([w(10n, 20n)]);
    expect(splitWindows(w(10n, 20n), 0n, false)).toEqual([w(10n, 20n)]);
  });

  it("returns nothing for an empty range", () => {
    expect(splitWindows(w(20n, 20n), HOUR, false)).toEqual([]);
    expect(splitWindows(w(20n, 10n), 0n, false)).toEqual([]);
  });

  it("tiles any range exactly, each window inside one aligned interval", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
        fc.bigInt({ min: 1n, max: 10n ** 13n }),
        fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 10n ** 10n, max: 10n ** 13n })),
        fc.boolean(),
        (start, len, interval, newestFirst) => {
          fc.pre(len / interval < 2000n);
          const range = w(start, start + len);
          const got = splitWindows(range, interval, newestFirst);
          const ordered = newestFirst ? got.slice().reverse() : got;
          expect(ordered[0]!.start).toBe(range.start);
          expect(ordered.at(-1)!.end).toBe(range.end);
          for (let i = 0; i < ordered.length; i++) {
            const cur = ordered[i]!;
            expect(cur.start < cur.end).toBe(true);
            if (i > 0) expect(cur.start).toBe(ordered[i - 1]!.end);
            // Start and last instant fall in the same interval bucket.
            const bucket = (t: bigint) => (t >= 0n ? t / interval : -((-t + interval - 1n) / interval));
            expect(bucket(cur.start)).toBe(bucket(cur.end - 1n));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("splitWindows within a number of windows (the request's share of origin requests)", () => {
  it("widens the interval to a multiple of itself so that the range needs at most that many", () => {
    // 24 h of 1 h windows, at most 5: 5 h windows (00-05, 05-10, 10-15, 15-20, 20-24).
    const got = splitWindows(w(0n, 24n * HOUR), HOUR, false, 5n);
    expect(got).toEqual([
      w(0n, 5n * HOUR),
      w(5n * HOUR, 10n * HOUR),
      w(10n * HOUR, 15n * HOUR),
      w(15n * HOUR, 20n * HOUR),
      w(20n * HOUR, 24n * HOUR),
    ]);
  });

  it("keeps the interval when the range already fits", () => {
    expect(splitWindows(w(0n, 3n * HOUR), HOUR, false, 3n)).toHaveLength(3);
    expect(splitWindows(w(30n * MIN, 150n * MIN), HOUR, true, 3n)).toEqual([
      w(2n * HOUR, 150n * MIN),
      w(HOUR, 2n * HOUR),
      w(30n * MIN, HOUR),
    ]);
  });

  it("allows for the partial windows at both ends of an unaligned range", () => {
    // 00:30 .. 04:30 with 1 h windows, at most 2: 2 h windows would give 3 (00:30-02, 02-04,
    // 04-04:30), so the width is one that gives 2 however the range falls: span / (2 - 1) = 4 h.
    expect(splitWindows(w(30n * MIN, 270n * MIN), HOUR, false, 2n)).toEqual([
      w(30n * MIN, 4n * HOUR),
      w(4n * HOUR, 270n * MIN),
    ]);
  });

  it("asks for the range itself when only one window is allowed", () => {
    expect(splitWindows(w(30n * MIN, 270n * MIN), HOUR, true, 1n)).toEqual([w(30n * MIN, 270n * MIN)]);
    expect(splitWindows(w(30n * MIN, 270n * MIN), HOUR, false, 0n)).toEqual([w(30n * MIN, 270n * MIN)]);
  });

  it("tiles any range exactly in at most that many windows of a multiple of the interval", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
        fc.bigInt({ min: 1n, max: 10n ** 13n }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.bigInt({ min: 1n, max: 60n }),
        fc.boolean(),
        (start, len, interval, most, newestFirst) => {
          fc.pre(len / interval < 4000n);
          const range = w(start, start + len);
          const got = splitWindows(range, interval, newestFirst, most);
          expect(BigInt(got.length) <= most).toBe(true);
          const ordered = newestFirst ? got.slice().reverse() : got;
          expect(ordered[0]!.start).toBe(range.start);
          expect(ordered.at(-1)!.end).toBe(range.end);
          for (let i = 1; i < ordered.length; i++) expect(ordered[i]!.start).toBe(ordered[i - 1]!.end);
          if (got.length > 1) {
            // Inner boundaries are multiples of one width, itself a multiple of the interval.
            const inner = ordered.slice(1).map((x) => x.start);
            const width = inner.length > 1 ? inner[1]! - inner[0]! : undefined;
            for (const b of inner) expect(b % interval).toBe(0n);
            if (width !== undefined) {
              expect(width % interval).toBe(0n);
              for (const b of inner) expect(b % width).toBe(0n);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

/** A task whose completion the test controls, recording the signal it was given. */
interface Deferred {
  window: TimeWindow;
  signal: AbortSignal;
  resolve: (v: string) => void;
  reject: (e: unknown) => void;
}

function controlledTasks() {
  const started: Deferred[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const task = (window: TimeWindow, signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const done = () => inFlight--;
      signal.addEventListener("abort", () => {
        done();
        reject(signal.reason);
      });
      started.push({
        window,
        signal,
        resolve: (v) => {
          done();
          resolve(v);
        },
        reject,
      });
    });
  return { started, task, maxInFlight: () => maxInFlight };
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const windowsOf = (n: number) => Array.from({ length: n }, (_, i) => w(BigInt(i), BigInt(i + 1)));

describe("runWindows", () => {
  it("ramps concurrency 1, 2, 4, ... up to the bound and consumes strictly in window order", async () => {
    const { started, task, maxInFlight } = controlledTasks();
    const seen: string[] = [];
    const run = runWindows(windowsOf(20), 6, undefined, task, (r) => {
      seen.push(r);
      return true;
    });
    await tick();
    expect(started).toHaveLength(1); // the first window alone: it often answers everything
    started[0]!.resolve("w0");
    await tick();
    expect(started).toHaveLength(3); // window 1 and 2 now in flight (allowance 2)
    // Finishing a later window first must not let it be consumed first.
    started[2]!.resolve("w2");
    await tick();
    expect(seen).toEqual(["w0"]);
    started[1]!.resolve("w1");
    await tick();
    expect(seen).toEqual(["w0", "w1", "w2"]);
    // Drain the rest as they appear.
    for (let i = 3; i < 20; i++) {
      while (started.length <= i) await tick();
      started[i]!.resolve(`w${i}`);
      await tick();
    }
    await run;
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => `w${i}`));
    expect(maxInFlight()).toBe(6);
  });

  it("never exceeds the concurrency bound under random completion order", async () => {
    for (const bound of [1, 2, 3, 6]) {
      let inFlight = 0;
      let peak = 0;
      const order: number[] = [];
      await runWindows(
        windowsOf(40),
        bound,
        undefined,
        async (win) => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          await new Promise((r) => setTimeout(r, Number((win.start * 7n) % 5n)));
          inFlight--;
          return Number(win.start);
        },
        (r) => {
          order.push(r);
          return true;
        },
      );
      expect(peak).toBeLessThanOrEqual(bound);
      expect(order).toEqual(Array.from({ length: 40 }, (_, i) => i));
    }
  });

  it("stops when consume says so: no further window starts, in-flight ones are aborted", async () => {
    const { started, task } = controlledTasks();
    let consumed = 0;
    const run = runWindows(windowsOf(10), 6, undefined, task, () => ++consumed < 2);
    await tick();
    started[0]!.resolve("a");
    await tick();
    expect(started).toHaveLength(3);
    started[1]!.resolve("b"); // consume returns false here
    await run;
    expect(consumed).toBe(2);
    // Windows 0 (allowance 1), then 1 and 2 (allowance 2); window 1's answer ended the run.
    expect(started).toHaveLength(3);
    expect(started[2]!.signal.aborted).toBe(true);
  });

  it("aborts every in-flight window when the parent signal aborts, and rejects", async () => {
    const { started, task } = controlledTasks();
    const parent = new AbortController();
    const run = runWindows(windowsOf(10), 6, parent.signal, task, () => true);
    await tick();
    started[0]!.resolve("a");
    await tick();
    const inFlight = started.slice(1);
    expect(inFlight.length).toBeGreaterThan(0);
    parent.abort(new Error("client went away"));
    await expect(run).rejects.toThrow("client went away");
    for (const d of inFlight) expect(d.signal.aborted).toBe(true);
  });

  it("propagates a window's failure and aborts the others", async () => {
    const { started, task } = controlledTasks();
    const run = runWindows(windowsOf(10), 6, undefined, task, () => true);
    await tick();
    started[0]!.resolve("a");
    await tick();
    started[2]!.resolve("c");
    started[1]!.reject(new Error("origin 502"));
    await expect(run).rejects.toThrow("origin 502");
    for (const d of started) expect(d.signal.aborted).toBe(true);
  });

  it("does nothing for no windows", async () => {
    let calls = 0;
    await runWindows(
      [],
      6,
      undefined,
      async () => calls++,
      () => true,
    );
    expect(calls).toBe(0);
  });
});

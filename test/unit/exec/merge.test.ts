/** mergeConcurrent: every item of every source, bounded concurrency, and abort on early exit or failure. */
import { runInNewContext } from "node:vm";
import v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { mergeConcurrent } from "../../../src/exec/merge";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("mergeConcurrent", () => {
  it("yields every item of every source exactly once", async () => {
    const sources = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(
      (s) =>
        async function* () {
          for (let i = 0; i < 5; i++) {
            await sleep((s * 3 + i) % 4);
            yield `${s}:${i}`;
          }
        },
    );
    const got: string[] = [];
    for await (const x of mergeConcurrent(sources, 3)) got.push(x);
    const want = sources.flatMap((_, s) => [0, 1, 2, 3, 4].map((i) => `${s}:${i}`));
    expect(got.sort()).toEqual(want.sort());
  });

  it("keeps each source's own order", async () => {
    const sources = [0, 1, 2].map(
      (s) =>
        async function* () {
          for (let i = 0; i < 20; i++) {
            if (i % (s + 2) === 0) await sleep(1);
            yield { s, i };
          }
        },
    );
    const last = [-1, -1, -1];
    for await (const { s, i } of mergeConcurrent(sources, 6)) {
      expect(i).toBe(last[s]! + 1);
      last[s] = i;
    }
    expect(last).toEqual([19, 19, 19]);
  });

  it("never runs more than maxConcurrency sources at once", async () => {
    let running = 0;
    let peak = 0;
    const sources = Array.from(
      { length: 12 },
      (_, s) =>
        async function* () {
          running++;
          peak = Math.max(peak, running);
          try {
            for (let i = 0; i < 3; i++) {
              await sleep((s + i) % 3);
              yield i;
            }
          } finally {
            running--;
          }
        },
    );
    let n = 0;
    for await (const _ of mergeConcurrent(sources, 6)) n++;
    expect(n).toBe(36);
    expect(peak).toBe(6);
  });

  it("aborts running sources and closes them when the consumer stops early", async () => {
    const signals: AbortSignal[] = [];
    const closed: number[] = [];
    let started = 0;
    const sources = Array.from(
      { length: 10 },
      (_, s) =>
        async function* (signal: AbortSignal) {
          started++;
          signals.push(signal);
          try {
            for (let i = 0; ; i++) {
              await sleep(1);
              yield s * 1000 + i;
            }
          } finally {
            closed.push(s);
          }
        },
    );
    let n = 0;
    for await (const _ of mergeConcurrent(sources, 4)) if (++n === 10) break;
    expect(started).toBe(4); // none of the infinite sources ended, so no fifth one started
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(closed.sort()).toEqual([0, 1, 2, 3]);
  });

  it("rethrows a source's failure and aborts the others", async () => {
    const signals: AbortSignal[] = [];
    const sources = [0, 1, 2].map(
      (s) =>
        async function* (signal: AbortSignal) {
          signals.push(signal);
          for (let i = 0; i < 100; i++) {
            await sleep(1);
            if (s === 1 && i === 3) throw new Error("origin 502");
            yield i;
          }
        },
    );
    await expect(async () => {
      for await (const _ of mergeConcurrent(sources, 3));
    }).rejects.toThrow("origin 502");
    expect(signals).toHaveLength(3);
    expect(signals.every((s) => s.aborted)).toBe(true);
  });

  it("handles no sources and empty sources", async () => {
    const none: number[] = [];
    for await (const x of mergeConcurrent<number>([], 6)) none.push(x);
    expect(none).toEqual([]);
    const empties = [
      async function* () {},
      async function* () {
        yield 7;
      },
      async function* () {},
    ];
    const got: number[] = [];
    for await (const x of mergeConcurrent<number>(empties, 1)) got.push(x);
    expect(got).toEqual([7]);
  });

  it("holds no item already yielded while another source waits", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const yielded: WeakRef<object>[] = [];
    const sources = [
      // A window whose origin has not started answering yet.
      async function* () {
        await gate;
        yield { last: true };
      },
      async function* () {
        for (let i = 0; i < 200; i++) {
          const batch = { rows: new Array(100).fill(i) };
          yielded.push(new WeakRef(batch));
          yield batch;
        }
      },
    ];
    const merged = mergeConcurrent<object>(sources, 2)[Symbol.asyncIterator]();
    for (let i = 0; i < 200; i++) await merged.next();
    // WeakRef targets stay alive until the current job ends; a timer tick ends it.
    await sleep(1);
    gc();
    const held = yielded.filter((r) => r.deref() !== undefined).length;
    open();
    expect(await merged.next()).toEqual({ done: false, value: { last: true } });
    expect((await merged.next()).done).toBe(true);
    // The batch being consumed may still be referenced; the 199 before it must not be.
    expect(held).toBeLessThanOrEqual(1);
  });
});

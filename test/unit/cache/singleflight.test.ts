import { describe, expect, it } from "vitest";
import { SingleFlight } from "../../../src/cache/singleflight";

describe("SingleFlight", () => {
  it("runs one task per key while it is in flight and shares its result", async () => {
    const flights = new SingleFlight<number>();
    let runs = 0;
    let release!: (n: number) => void;
    const task = () => {
      runs++;
      return new Promise<number>((r) => (release = r));
    };
    const a = flights.run("k", task);
    const b = flights.run("k", task);
    const c = flights.run("other", async () => 7);
    await Promise.resolve();
    release(42);
    expect(await Promise.all([a, b, c])).toEqual([42, 42, 7]);
    expect(runs).toBe(1);
    expect(flights.size).toBe(0);
  });

  it("starts afresh after a flight settles, including after a failure", async () => {
    const flights = new SingleFlight<number>();
    await expect(flights.run("k", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(flights.size).toBe(0);
    expect(await flights.run("k", async () => 1)).toBe(1);
  });

  it("keeps a settled result for later callers while the task holds it, and forgets it after", async () => {
    for (const outcome of ["resolves", "rejects"]) {
      const flights = new SingleFlight<number>();
      let runs = 0;
      let release!: () => void;
      const until = new Promise<void>(
        (resolve, reject) => (release = outcome === "resolves" ? resolve : () => reject(new Error("write failed"))),
      );
      expect(
        await flights.run("k", async (hold) => {
          runs++;
          hold(until);
          return 1;
        }),
      ).toBe(1);
      expect(await flights.run("k", async () => (runs++, 2))).toBe(1);
      expect(runs).toBe(1);
      release();
      await until.catch(() => {});
      await Promise.resolve();
      expect(flights.size).toBe(0);
      expect(await flights.run("k", async () => (runs++, 3))).toBe(3);
    }
  });

  it("forgets a task that throws synchronously", async () => {
    const flights = new SingleFlight<number>();
    await expect(
      flights.run("k", () => {
        throw new Error("sync");
      }),
    ).rejects.toThrow("sync");
    expect(flights.size).toBe(0);
  });
});

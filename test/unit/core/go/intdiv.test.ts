import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ceilDiv, floorDiv, floorMod } from "../../../../src/core/go/intdiv";

describe("floorDiv / floorMod", () => {
  it("round toward −∞ for every sign combination", () => {
    expect([floorDiv(7n, 2n), floorDiv(-7n, 2n), floorDiv(7n, -2n), floorDiv(-7n, -2n)]).toEqual([3n, -4n, -4n, 3n]);
    expect([floorMod(7n, 2n), floorMod(-7n, 2n), floorMod(7n, -2n), floorMod(-7n, -2n)]).toEqual([1n, 1n, -1n, -1n]);
    expect(floorDiv(-6n, 3n)).toBe(-2n);
    expect(floorMod(-6n, 3n)).toBe(0n);
  });
  it("a = b·floorDiv(a, b) + floorMod(a, b), with the remainder between 0 and b", () => {
    fc.assert(
      fc.property(
        fc.bigInt(),
        fc.bigInt().filter((b) => b !== 0n),
        (a, b) => {
          const q = floorDiv(a, b);
          const m = floorMod(a, b);
          expect(b * q + m).toBe(a);
          expect(b > 0n ? m >= 0n && m < b : m <= 0n && m > b).toBe(true);
        },
      ),
    );
  });
});

describe("ceilDiv", () => {
  it("rounds toward +∞ and agrees with floorDiv on exact quotients", () => {
    expect([ceilDiv(7n, 2n), ceilDiv(-7n, 2n), ceilDiv(7n, -2n), ceilDiv(-7n, -2n)]).toEqual([4n, -3n, -3n, 4n]);
    fc.assert(
      fc.property(
        fc.bigInt(),
        fc.bigInt().filter((b) => b !== 0n),
        (a, b) => {
          const c = ceilDiv(a, b);
          expect(c === floorDiv(a, b) ? a % b === 0n : c === floorDiv(a, b) + 1n).toBe(true);
        },
      ),
    );
  });
});

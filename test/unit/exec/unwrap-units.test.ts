/**
 * The Worker's conversion of what the origin aggregated per unit: an extreme, read back from the
 * number the stats table holds, converts to what local evaluation gives its text; a sum scales by
 * one unit's value; a quantile's texts convert one by one. Values checked against Go
 * (time.ParseDuration + Duration.Seconds, go-humanize ParseBytes) where given literally.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decimalText, UnitConverter } from "../../../src/exec/unwrap-units";
import { unwrapConverter } from "../../../src/engine/pipeline/extractor";
import { BYTES_SHAPE, DURATION_SHAPE } from "../../../src/plan/unwrap-units";

const local = (conversion: "duration" | "bytes", text: string) => {
  const r = unwrapConverter(conversion)(text);
  if (!r.ok) throw new Error(`${text}: ${r.error}`);
  return r.value;
};

const shaped = (shape: string, text: fc.Arbitrary<string>) => text.filter((t) => new RegExp(shape).test(t));
const durationText = shaped(
  DURATION_SHAPE,
  fc
    .tuple(
      fc.oneof(fc.stringMatching(/^(0|[1-9][0-9]{0,8})$/), fc.stringMatching(/^(0|[1-9][0-9]{0,4})$/)),
      fc.option(fc.oneof(fc.stringMatching(/^\.[0-9]{1,6}$/), fc.stringMatching(/^\.[0-9]{7,9}$/)), { nil: "" }),
      fc.constantFrom("ns", "us", "µs", "μs", "ms", "s", "s", "m", "h"),
    )
    .map(([n, f, u]) => `${n}${f}${u}`),
);
const bytesText = shaped(
  BYTES_SHAPE,
  fc
    .tuple(
      fc.stringMatching(/^(0|[1-9][0-9]{0,8})$/),
      fc.option(fc.stringMatching(/^\.[0-9]{1,6}$/), { nil: "" }),
      fc.constantFrom("", "B", "kB", "KiB", "mb", "GB", "Gi", "TB"),
    )
    .map(([n, f, u]) => `${n}${f}${u}`),
);
const split = (text: string) => {
  const [, num, unit] = /^([0-9.]+)(.*)$/.exec(text)!;
  return { x: Number(num), unit: unit! };
};

describe("decimalText", () => {
  it("writes the decimal the origin sent, shortest, from the double read of it", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^(0|[1-9][0-9]{0,8})(\.[0-9]{1,6})?$/),
        (num) => void expect(decimalText(Number(num))).toBe(num.includes(".") ? num.replace(/\.?0+$/, "") : num),
      ),
      { numRuns: 5000, seed: 5 },
    );
    expect(decimalText(999999999.999999)).toBe("999999999.999999");
    expect(decimalText(1.5)).toBe("1.5");
    expect(decimalText(0)).toBe("0");
  });

  it("writes seconds of nine fraction digits again, also from a double a unit in the last place off", () => {
    // The origin reads a decimal within a unit in the last place of the nearest double.
    const ulpOff = (x: number, by: -1 | 0 | 1) => {
      // Zero is read exactly.
      if (x === 0) return x;
      const bits = new BigInt64Array(new Float64Array([x]).buffer);
      bits[0] = bits[0]! + BigInt(by);
      return new Float64Array(bits.buffer)[0]!;
    };
    fc.assert(
      fc.property(
        fc.stringMatching(/^(0|[1-9][0-9]{0,4})\.[0-9]{1,9}$/),
        fc.constantFrom(-1, 0, 1) as fc.Arbitrary<-1 | 0 | 1>,
        (num, by) => void expect(decimalText(ulpOff(Number(num), by))).toBe(num.replace(/\.?0+$/, "")),
      ),
      { numRuns: 5000, seed: 6 },
    );
    expect(decimalText(1.058817112)).toBe("1.058817112");
    expect(decimalText(99999.999999999)).toBe("99999.999999999");
  });
});

describe("UnitConverter", () => {
  it("converts a unit's extreme as local evaluation converts its text", () => {
    for (const [conversion, text] of [
      ["duration", durationText],
      ["bytes", bytesText],
    ] as const) {
      const units = new UnitConverter(conversion);
      fc.assert(
        fc.property(text, (t) => {
          const { x, unit } = split(t);
          expect(units.aggregate("max", x, unit), t).toBe(local(conversion, t));
          expect(units.aggregate("min", x, unit), t).toBe(local(conversion, t));
        }),
        { numRuns: 3000, seed: 7 },
      );
    }
  });

  it("gives Go's values", () => {
    const d = new UnitConverter("duration");
    // Go: time.ParseDuration(s).Seconds()
    expect(d.aggregate("max", 999999.999999, "h")).toBe(3599999999.9964);
    expect(d.aggregate("max", 99999999.999999, "m")).toBe(5999999999.99994);
    expect(d.aggregate("min", 999999999.999999, "ms")).toBe(999999.999999999);
    expect(d.aggregate("min", 999.999, "us")).toBe(0.000999999);
    expect(d.aggregate("max", 1.5, "µs")).toBe(1.5e-6);
    expect(d.aggregate("max", 1.5, "μs")).toBe(1.5e-6);
    expect(d.aggregate("max", 23, "ms")).toBe(0.023);
    expect(d.aggregate("max", 0.000001, "h")).toBe(0.0036);
    const b = new UnitConverter("bytes");
    expect(b.aggregate("max", 999999, "TiB")).toBe(999999 * 1024 ** 4);
    expect(b.aggregate("max", 12, "kB")).toBe(12000);
    expect(b.aggregate("max", 12, "")).toBe(12);
  });

  it("scales a unit's sum by the value of one unit", () => {
    const d = new UnitConverter("duration");
    expect(d.aggregate("sum", 1500, "ms")).toBe(1500 * 0.001);
    expect(d.aggregate("avg", 3, "h")).toBe(3 * 3600);
    expect(d.aggregate("sum", 7, "ns")).toBe(7 * 1e-9);
    const b = new UnitConverter("bytes");
    expect(b.aggregate("sum", 1234, "MiB")).toBe(1234 * 1024 ** 2);
    expect(b.aggregate("sum", 5, "b")).toBe(5);
  });

  it("adds a whole text's value once per row it counts", () => {
    const b = new UnitConverter("bytes");
    // go-humanize: ParseBytes("2.01kb") is 2009 (2.01 × 1000 is 2009.9999999999998, truncated).
    expect(b.aggregate("sum", 2, "=2.01kb")).toBe(4018);
    expect(b.aggregate("rate", 3, "=1.5KiB")).toBe(4608);
    // An extreme takes the text's value (its rows' numbers, all 1, say nothing).
    expect(b.aggregate("max", 1, "=2.01kb")).toBe(2009);
    const d = new UnitConverter("duration");
    // Go: time.ParseDuration(s).Seconds()
    expect(d.aggregate("sum", 3, "=2m0.25s")).toBe(360.75);
    expect(d.aggregate("min", 1, "=1h2m3.5s")).toBe(3723.5);
    expect(d.aggregate("avg", 2, "=1m30s")).toBe(180);
    fc.assert(
      fc.property(
        bytesText.filter((t) => t.includes(".")),
        fc.integer({ min: 1, max: 1000 }),
        (t, n) => void expect(b.aggregate("avg", n, `=${t}`), t).toBe(n * local("bytes", t)),
      ),
      { numRuns: 2000, seed: 8 },
    );
  });

  it("converts a quantile's list as local evaluation converts each text", () => {
    const d = new UnitConverter("duration");
    expect([...d.values("[12ms,1.5s,3µs,0h]", 4)!]).toEqual([0.012, 1.5, 3e-6, 0]);
    expect([...d.values("[]", 0)!]).toEqual([]);
    // Not every value sent, or one that does not convert: the bucket is not read.
    expect(d.values("[12ms,1.5s]", 3)).toBeUndefined();
    expect(d.values("[12ms,x]", 2)).toBeUndefined();
    expect(d.values('["12ms"]', 1)).toBeUndefined();
    const b = new UnitConverter("bytes");
    expect([...b.values("[1KiB,7,2MB]", 3)!]).toEqual([1024, 7, 2e6]);
  });
});

/**
 * The value shapes the origin aggregates under a conversion: every value of the shape converts
 * (Go's time.ParseDuration, go-humanize's ParseBytes, as the Worker implements them) to exactly
 * its decimal times its unit — the linearity the per-unit aggregation rests on — and values Go
 * reads otherwise (several units, signs, fractions it truncates, overflow) are outside it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BYTES_SHAPE,
  DURATION_AGGREGATED_SHAPE,
  DURATION_SHAPE,
  DURATION_TEXT_SHAPE,
  UNIT_FIELD,
  unitSplit,
  valueShape,
} from "../../../src/plan/unwrap-units";
import { parseDuration } from "../../../src/core/go/duration";
import { parseBytes } from "../../../src/core/go/bytes";

const duration = new RegExp(DURATION_SHAPE);
const bytes = new RegExp(BYTES_SHAPE);

const NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
/** go-humanize's multipliers, by lower-case unit. */
const MULTIPLIER: Record<string, number> = { "": 1, b: 1 };
["k", "m", "g", "t"].forEach((u, i) => {
  MULTIPLIER[u] = MULTIPLIER[`${u}b`] = 1000 ** (i + 1);
  MULTIPLIER[`${u}i`] = MULTIPLIER[`${u}ib`] = 1024 ** (i + 1);
});

/** Texts near and past the shape's digit limits, in every unit. */
const durationText = fc
  .tuple(
    fc.stringMatching(/^(0|[1-9][0-9]{0,9})$/),
    fc.option(fc.stringMatching(/^\.[0-9]{1,10}$/), { nil: "" }),
    fc.constantFrom(...Object.keys(NS)),
  )
  .map(([n, f, u]) => `${n}${f}${u}`);

describe("DURATION_SHAPE", () => {
  it("admits values whose nanoseconds are exactly decimal × unit, below 2^63", () => {
    fc.assert(
      fc.property(durationText, (text) => {
        if (!duration.test(text)) return;
        const [, num, unit] = /^([0-9.]+)(.*)$/.exec(text)!;
        const [whole, frac = ""] = num!.split(".");
        // In units of 10^-9 of the unit: the finest fraction the shape admits is nine digits.
        const exact = (BigInt(whole!) * 10n ** 9n + BigInt(frac.padEnd(9, "0"))) * NS[unit!]!;
        expect(exact % 1_000_000_000n, text).toBe(0n);
        const parsed = parseDuration(text);
        expect(parsed.ok && parsed.value, text).toBe(exact / 1_000_000_000n);
        expect(exact / 1_000_000_000n < 1n << 63n).toBe(true);
      }),
      { numRuns: 5000, seed: 36 },
    );
  });

  it("takes the edges Go converts exactly and leaves the rest", () => {
    for (const ok of [
      "0ns",
      "999999999ns",
      "999.999us",
      "1.5µs",
      "1.5μs",
      "999999999.999999s",
      "99999999.999999m",
      // Go's Duration.String() of a span under a minute: whole nanoseconds.
      "1.058817112s",
      "99999.999999999s",
    ])
      expect(duration.test(ok), ok).toBe(true);
    expect(duration.test("999999.999999h")).toBe(true);
    for (const out of [
      "1.5ns", // Go truncates: 1ns
      "1.0001us", // Go scales 1/10^4 in floats and truncates
      "1000000h",
      "100000000m",
      "1000000000s",
      "1h30m",
      "-5s",
      "+5s",
      "5",
      "0",
      "007ms",
      ".5s",
      "5.s",
      "5 ms",
      "1e3ms",
      "5MS",
      "5d",
      "",
      "1.1234567ms", // Go scales 1/10^7 of a millisecond in floats
      "100000.1234567s", // more significant digits than the origin orders exactly
      "1.0000000001s",
    ])
      expect(duration.test(out), out).toBe(false);
  });
});

describe("BYTES_SHAPE", () => {
  const unit = fc
    .tuple(fc.constantFrom("", "k", "m", "g", "t", "p"), fc.boolean(), fc.boolean(), fc.boolean())
    .map(([u, i, b, upper]) => {
      const s = u === "" ? (b ? "b" : "") : `${u}${i ? "i" : ""}${b ? "b" : ""}`;
      return upper ? s.toUpperCase() : s;
    });
  const text = fc.tuple(fc.stringMatching(/^(0|[1-9][0-9]{0,9})$/), unit).map(([n, u]) => `${n}${u}`);

  it("admits integers whose size is exactly the float product go-humanize takes, below 2^64", () => {
    fc.assert(
      fc.property(text, (t) => {
        if (!bytes.test(t)) return;
        const [, n, u] = /^([0-9]+)(.*)$/.exec(t)!;
        const mult = MULTIPLIER[u!.toLowerCase()]!;
        const parsed = parseBytes(t);
        expect(parsed.ok && parsed.value, t).toBe(Number(n) * mult);
        expect(Number(n) * mult < 2 ** 64).toBe(true);
      }),
      { numRuns: 5000, seed: 37 },
    );
  });

  it("takes every spelling go-humanize reads up to T, a fraction with a unit up to G, and no space, sign or P/E", () => {
    for (const ok of [
      "0",
      "1234",
      "5B",
      "5b",
      "5K",
      "5kB",
      "5KiB",
      "5kib",
      "5Ki",
      "5MB",
      "5GiB",
      "999999TiB",
      "5Tb",
      "1.5KB",
      "2.01kb",
      "0.5b",
      "999999999.999999GiB",
    ])
      expect(bytes.test(ok), ok).toBe(true);
    for (const out of [
      "1.5",
      "1.5TB",
      "1.1234567KB",
      ".5KB",
      "1.KB",
      "1 KB",
      "1,000",
      "5PB",
      "5EiB",
      "-5",
      "+5",
      "007",
      "5KBs",
      "1000000TB",
      "5\u212aB",
      "",
    ])
      expect(bytes.test(out), out).toBe(false);
  });
});

describe("unitSplit", () => {
  it("aggregates plain values and quantile texts as they are, converted ones per unit", () => {
    expect(unitSplit("", "sum", "__x")).toEqual({ pipes: "", field: "__x", by: [] });
    expect(unitSplit("duration", "quantile", "__x")).toEqual({ pipes: "", field: "__x", by: [] });
    const split = unitSplit("bytes", "max", "__x");
    expect(split.by).toEqual([UNIT_FIELD]);
    const parts = ` | delete __guard_num, ${UNIT_FIELD} | extract_regexp if (__x:*) "^(?P<__guard_num>[0-9.]+)(?P<${UNIT_FIELD}>.*)$" from __x`;
    // A byte size with a fraction (truncated per value by go-humanize) counts its whole text.
    expect(split.pipes).toBe(
      `${parts} | format if (__guard_num:~"\\\\.") "=<__guard_num><${UNIT_FIELD}>" as ${UNIT_FIELD} | format if (__guard_num:~"\\\\.") "1" as __guard_num`,
    );
    expect(split.field).toBe("__guard_num");
    expect(unitSplit("bytes", "sum", "__x").pipes).toBe(split.pipes);
    // So does a duration of several parts (its unit text holds a digit).
    expect(unitSplit("duration", "sum", "__x").pipes).toBe(
      `${parts} | format if (${UNIT_FIELD}:~"[0-9]") "=<__guard_num><${UNIT_FIELD}>" as ${UNIT_FIELD} | format if (${UNIT_FIELD}:~"[0-9]") "1" as __guard_num`,
    );
  });

  it("picks the conversion's shape", () => {
    expect(valueShape("", "N", "sum")).toBe("N");
    expect(valueShape("duration", "N", "sum")).toBe(DURATION_AGGREGATED_SHAPE);
    expect(valueShape("duration_seconds", "N", "max")).toBe(DURATION_AGGREGATED_SHAPE);
    const aggregated = new RegExp(DURATION_AGGREGATED_SHAPE, "u");
    for (const v of ["1h2m3.5s", "2m0.25s", "1m30s", "99999h99999h99999h99999h", "1.5s", "250µs"])
      expect(aggregated.test(v), v).toBe(true);
    for (const v of ["-1m30s", "+2m", "1h2m3s4ms5ns", "100000h1m", ".5s", "1m 30s"])
      expect(aggregated.test(v), v).toBe(false);
    expect(valueShape("bytes", "N", "quantile")).toBe(BYTES_SHAPE);
    // Values the Worker converts as texts: any of Go's spellings.
    expect(valueShape("duration", "N", "quantile")).toBe(DURATION_TEXT_SHAPE);
    expect(valueShape("duration_seconds", "N", "stddev")).toBe(DURATION_TEXT_SHAPE);
  });

  it("admits Go's compound durations for values sent as texts, within int64", () => {
    const text = new RegExp(DURATION_TEXT_SHAPE, "u");
    for (const v of ["1h2m3.5s", "2m0.25s", "-1.5s", "+3m", "250µs", "7μs", "12us", "99999h99999h99999h99999h"])
      expect(text.test(v), v).toBe(true);
    for (const v of [
      "1h2m3s4ms5ns",
      "1000000h",
      "100000h1m",
      ".5s",
      "5.s",
      "1.5",
      "1d",
      "1h 2m",
      "01s",
      "1e3ms",
      "1h,2m",
    ])
      expect(text.test(v), v).toBe(false);
    // Every text admitted is one Go converts (the Worker converts it so): no overflow, no refusal.
    const part = fc
      .tuple(
        fc.integer({ min: 0, max: 99999 }),
        fc.option(fc.integer({ min: 0, max: 999_999_999 })),
        fc.constantFrom("ns", "us", "µs", "μs", "ms", "s", "m", "h"),
      )
      .map(([n, f, u]) => `${n}${f === null ? "" : `.${f}`}${u}`);
    fc.assert(
      fc.property(fc.constantFrom("", "-", "+"), fc.array(part, { minLength: 1, maxLength: 4 }), (sign, parts) => {
        const v = sign + parts.join("");
        expect(text.test(v), v).toBe(true);
        expect(parseDuration(v).ok, v).toBe(true);
      }),
      { numRuns: 2000, seed: 27 },
    );
  });
});

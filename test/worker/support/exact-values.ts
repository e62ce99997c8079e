/**
 * Values both sides read as the same number (the unwrap push-down's EXACT_NUMBER: at most 9
 * integer and 6 fraction digits, or an integer of at most 15; no leading zeros, no negative zero),
 * for property tests over generated lines.
 */
import fc from "fast-check";

export const exactValue: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -999_999_999, max: 999_999_999 }).map(String),
  // Nanosecond durations, epoch milliseconds: 10 to 15 digits.
  fc.bigInt({ min: -999_999_999_999_999n, max: 999_999_999_999_999n }).map(String),
  fc
    .tuple(
      fc.integer({ min: -99_999, max: 99_999 }),
      fc.integer({ min: 0, max: 999_999 }),
      fc.integer({ min: 1, max: 6 }),
    )
    .map(([i, f, d]) => `${i}.${String(f).padStart(6, "0").slice(0, d)}`)
    .filter((s) => !/^-0(\.0*)?$/.test(s)),
);

/**
 * Loki's time parameters at their edges (pkg/loghttp/params.go parseTimestamp and determineBounds,
 * Prometheus' model.ParseDuration): integers wider than int64 are refused with strconv's message,
 * floats beyond int64 seconds become Go's smallest int64, and `since` may not overflow a
 * time.Duration. Before, these threw a RangeError (500) or reached the origin as years it refuses.
 */
import { describe, expect, it } from "vitest";
import {
  checkQueryLength,
  INT64_MIN,
  parseLokiTime,
  parseRange,
  parseStep,
  rawParamsFrom,
} from "../../../src/http/params";
import { formatRFC3339Nano } from "../../../src/origin/timefmt";

const NOW = 1769925600n * 1_000_000_000n;
const range = (q: Record<string, string>) => parseRange(rawParamsFrom(new URLSearchParams(q)), NOW);
const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return "accepted";
};

describe("Loki's timestamps", () => {
  it("refuses integers beyond int64 as strconv.ParseInt does", () => {
    const big = "1" + "0".repeat(25);
    expect(refusal(() => parseLokiTime(big, "start"))).toBe(
      `could not parse 'start' parameter: strconv.ParseInt: parsing "${big}": value out of range`,
    );
    expect(refusal(() => parseLokiTime("-9223372036854775809", "time"))).toBe(
      `could not parse 'time' parameter: strconv.ParseInt: parsing "-9223372036854775809": value out of range`,
    );
    expect(parseLokiTime("9223372036854775807", "end")).toBe(9223372036854775807n);
  });

  it("counts the sign among the ten characters of seconds, and reads a leading +", () => {
    expect(parseLokiTime("-999999999", "start")).toBe(-999999999n * 1_000_000_000n);
    expect(parseLokiTime("-9999999999", "start")).toBe(-9999999999n);
    expect(parseLokiTime("+5", "start")).toBe(5_000_000_000n);
  });

  it("reads floats beyond int64 seconds as Go's smallest int64, and rounds fractions to ms", () => {
    expect(parseLokiTime("1.5e20", "end")).toBe(INT64_MIN * 1_000_000_000n);
    expect(parseLokiTime("-1.5e20", "end")).toBe(INT64_MIN * 1_000_000_000n);
    expect(parseLokiTime("1769925600.5", "end")).toBe(1769925600_500_000_000n);
    // Go's math.Round takes halves away from zero.
    expect(parseLokiTime("-1.0625", "end")).toBe(-1_063_000_000n);
    expect(parseLokiTime("1.0625", "end")).toBe(1_063_000_000n);
    expect(parseLokiTime("-1.0005", "end")).toBe(-1_000_000_000n);
  });

  it("refuses a since that overflows a Go duration", () => {
    expect(refusal(() => range({ since: "9999999y" }))).toBe(
      "could not parse 'since' parameter: duration out of range",
    );
    expect(refusal(() => range({ since: "106752d" }))).toBe("could not parse 'since' parameter: duration out of range");
    expect(range({ since: "106751d" }).start).toBe(NOW - 106751n * 86400n * 1_000_000_000n);
  });

  it("refuses a step duration past int64 nanoseconds as Loki does (it hung the isolate)", () => {
    const window = { start: NOW - 3600n * 1_000_000_000n, end: NOW };
    const step = (v: string) => parseStep(rawParamsFrom(new URLSearchParams({ step: v })), window);
    expect(refusal(() => step("106752d"))).toBe(
      `could not parse 'step' parameter: cannot parse "106752d" to a valid duration`,
    );
    expect(step("106751d")).toBe(106751n * 86400n * 1_000_000_000n);
  });

  it("shows a saturated query length as Go's Time.Sub does", () => {
    const limit = 721n * 3600n * 1_000_000_000n;
    expect(refusal(() => checkQueryLength({ start: INT64_MIN * 1_000_000_000n, end: NOW }, limit))).toBe(
      "the query time range exceeds the limit (query length: 2562047h47m16.854775807s, limit: 30d1h)",
    );
  });
});

describe("times sent to the origin", () => {
  it("clamp to the int64 nanoseconds VictoriaLogs stores, where no row lies beyond", () => {
    expect(formatRFC3339Nano(10n ** 30n)).toBe("2262-04-11T23:47:16.854775807Z");
    expect(formatRFC3339Nano(-(10n ** 30n))).toBe("1677-09-21T00:12:43.145224192Z");
    expect(formatRFC3339Nano(1769925600_000_000_001n)).toBe("2026-02-01T06:00:00.000000001Z");
  });
});

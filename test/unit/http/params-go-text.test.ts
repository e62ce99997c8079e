/**
 * Request parameters read with the Go functions Loki reads them with: `since` and a non-float
 * `step` with Prometheus' model.ParseDuration (integer units only), a float `step` with
 * strconv.ParseFloat, and error messages quoting the value with strconv.Quote.
 */
import { describe, expect, it } from "vitest";
import { parseLimit, parseRange, parseStep, rawParamsFrom } from "../../../src/http/params";

const params = (q: Record<string, string>) => rawParamsFrom(new URLSearchParams(q));
const NOW = 1_700_000_000_000_000_000n;
const range = { start: NOW - 3_600_000_000_000n, end: NOW };

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
}

describe("since", () => {
  it("takes Prometheus durations", () => {
    expect(parseRange(params({ since: "1h30m" }), NOW).start).toBe(NOW - 5_400_000_000_000n);
    expect(parseRange(params({ since: "2d" }), NOW).start).toBe(NOW - 172_800_000_000_000n);
  });
  // Prometheus' model.ParseDuration (common v0.62) names the unit it does not know; Loki passes
  // its error on after "could not parse 'since' parameter: ".
  it("refuses Go-only forms (fractions, µs) with Prometheus' own error", () => {
    expect(message(() => parseRange(params({ since: "1.5h" }), NOW))).toBe(
      `could not parse 'since' parameter: unknown unit "." in duration "1.5h"`,
    );
    expect(message(() => parseRange(params({ since: "10us" }), NOW))).toBe(
      `could not parse 'since' parameter: unknown unit "us" in duration "10us"`,
    );
  });
});

describe("step", () => {
  it("reads float seconds with Go's syntax", () => {
    expect(parseStep(params({ step: "15" }), range)).toBe(15_000_000_000n);
    expect(parseStep(params({ step: "0x1p3" }), range)).toBe(8_000_000_000n);
    expect(parseStep(params({ step: "1_0" }), range)).toBe(10_000_000_000n);
  });
  it("reads other text as a Prometheus duration", () => {
    expect(parseStep(params({ step: "1m30s" }), range)).toBe(90_000_000_000n);
    expect(message(() => parseStep(params({ step: "1.5m" }), range))).toBe(
      `could not parse 'step' parameter: cannot parse "1.5m" to a valid duration`,
    );
  });
});

describe("error texts", () => {
  it("quote the value with strconv.Quote, not JSON", () => {
    expect(message(() => parseLimit(params({ limit: "\u0001\u007f" })))).toBe(
      `could not parse 'limit' parameter: strconv.ParseUint: parsing "\\x01\\x7f": invalid syntax`,
    );
  });
});

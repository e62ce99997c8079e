/** Go/Prometheus formatting and parsing rules, from the Go and Prometheus documentation. */
import { describe, expect, it } from "vitest";
import {
  formatGoDuration,
  formatGoFloat,
  formatHumanBytes,
  formatPromDuration,
  goQuote,
  parseGoDuration,
  parseGoFloat,
  parseHumanBytes,
  parsePromDuration,
} from "../../../src/logql/golang";

const S = 1e9;

describe("durations", () => {
  it("parses Prometheus durations (integer units, biggest first)", () => {
    expect(parsePromDuration("1h30m")).toBe(5400 * S);
    expect(parsePromDuration("1w2d")).toBe(9 * 86400 * S);
    expect(parsePromDuration("100ms")).toBe(0.1 * S);
    expect(parsePromDuration("0")).toBe(0);
    expect(parsePromDuration("30m1h")).toEqual({ error: 'not a valid duration string: "30m1h"' });
    expect(parsePromDuration("5minutes")).toEqual({ error: 'unknown unit "minutes" in duration "5minutes"' });
  });

  it("parses Go durations (decimals, µs)", () => {
    expect(parseGoDuration("1.5h")).toBe(5400 * S);
    expect(parseGoDuration("1h0.5m")).toBe(3630 * S);
    expect(parseGoDuration("3µs")).toBe(3000);
    expect(parseGoDuration("-2s")).toBe(-2 * S);
    // Go scales the fraction's digits as an integer: exact where 0.5005 × 1e9 in floating point is not.
    expect(parseGoDuration("2.5005s")).toBe(2_500_500_000);
    expect(parseGoDuration("2500.5ms")).toBe(2_500_500_000);
    expect(parseGoDuration("0.000000001s")).toBe(1);
    expect(parseGoDuration("2d")).toEqual({ error: 'time: unknown unit "d" in duration "2d"' });
  });

  it("formats like time.Duration.String", () => {
    expect(formatGoDuration(0)).toBe("0s");
    expect(formatGoDuration(5 * 86400 * S)).toBe("120h0m0s");
    expect(formatGoDuration(600 * S)).toBe("10m0s");
    expect(formatGoDuration(250 * 1e6)).toBe("250ms");
    expect(formatGoDuration(1500)).toBe("1.5µs");
    expect(formatGoDuration(90.5 * S)).toBe("1m30.5s");
  });

  it("formats like model.Duration.String", () => {
    expect(formatPromDuration(25 * 3600 * S)).toBe("1d1h");
    expect(formatPromDuration(14 * 86400 * S)).toBe("2w");
    expect(formatPromDuration(365 * 86400 * S)).toBe("1y");
    // Weeks only when exact: 90 days stay "90d".
    expect(formatPromDuration(90 * 86400 * S)).toBe("90d");
    expect(formatPromDuration(1500 * 1e6)).toBe("1s500ms");
  });
});

describe("numbers and bytes", () => {
  it("parses floats as strconv.ParseFloat", () => {
    expect(parseGoFloat("1e3")).toBe(1000);
    expect(parseGoFloat(".5")).toBe(0.5);
    expect(parseGoFloat("0x1p4")).toBe(16);
    expect(parseGoFloat("0x10")).toEqual({ error: 'strconv.ParseFloat: parsing "0x10": invalid syntax' });
    expect(parseGoFloat("1_000")).toEqual({ error: 'strconv.ParseFloat: parsing "1_000": invalid syntax' });
  });

  it("formats floats as fmt %v", () => {
    expect(formatGoFloat(3)).toBe("3");
    expect(formatGoFloat(0.1)).toBe("0.1");
    expect(formatGoFloat(1e21)).toBe("1e+21");
    expect(formatGoFloat(100000)).toBe("100000");
    expect(formatGoFloat(1e6)).toBe("1e+06");
    expect(formatGoFloat(123456789)).toBe("1.23456789e+08");
    expect(formatGoFloat(1e-5)).toBe("1e-05");
    expect(formatGoFloat(NaN)).toBe("NaN");
    expect(formatGoFloat(-Infinity)).toBe("-Inf");
  });

  it("parses and prints humanized byte sizes", () => {
    expect(parseHumanBytes("10KB")).toBe(10_000);
    expect(parseHumanBytes("1.5KiB")).toBe(1536);
    expect(parseHumanBytes("1M")).toBe(1_000_000);
    expect(formatHumanBytes(42)).toBe("42B");
    expect(formatHumanBytes(1_000_000_000)).toBe("1.0GB");
    expect(formatHumanBytes(209_715_200)).toBe("210MB");
  });

  it("quotes strings as strconv.Quote", () => {
    expect(goQuote('a"b\\c\n')).toBe('"a\\"b\\\\c\\n"');
    expect(goQuote("é🚀")).toBe('"é🚀"');
    expect(goQuote("\u0001\u00a0")).toBe('"\\x01\\u00a0"');
  });
});

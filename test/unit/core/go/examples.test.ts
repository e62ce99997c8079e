/**
 * Worked examples of the Go functions as the query language, the pipeline and the templates use
 * them (the Go fixtures cover the same functions exhaustively; these read as documentation).
 */
import { describe, expect, it } from "vitest";
import { formatBytes, parseBytes } from "../../../../src/core/go/bytes";
import {
  formatDuration,
  formatPromDuration,
  parseDuration,
  parseDurationNs,
  parsePromDuration,
} from "../../../../src/core/go/duration";
import { formatFloat, parseFloat, quote } from "../../../../src/core/go/strconv";

const S = 1e9;
const ok = <T>(value: T) => ({ ok: true, value });

describe("durations", () => {
  it("Prometheus durations: integer units, biggest first", () => {
    expect(parsePromDuration("1h30m")).toEqual(ok(5400n * 1_000_000_000n));
    expect(parsePromDuration("1w2d")).toEqual(ok(9n * 86400n * 1_000_000_000n));
    expect(parsePromDuration("100ms")).toEqual(ok(100_000_000n));
    expect(parsePromDuration("0")).toEqual(ok(0n));
    expect(parsePromDuration("30m1h")).toEqual({ ok: false, error: 'not a valid duration string: "30m1h"' });
    expect(parsePromDuration("5minutes")).toEqual({
      ok: false,
      error: 'unknown unit "minutes" in duration "5minutes"',
    });
  });

  it("Go durations: decimals, µs, signs, Go's error texts", () => {
    expect(parseDurationNs("1h30m")).toEqual(ok(5400e9));
    expect(parseDurationNs("1.5h")).toEqual(ok(5400 * S));
    expect(parseDurationNs("1h0.5m")).toEqual(ok(3630 * S));
    expect(parseDurationNs("195ms")).toEqual(ok(195e6));
    expect(parseDurationNs("-2us")).toEqual(ok(-2000));
    expect(parseDurationNs("3\u00b5s")).toEqual(ok(3000));
    expect(parseDurationNs("0")).toEqual(ok(0));
    expect(parseDurationNs("2.5005s")).toEqual(ok(2_500_500_000));
    expect(parseDurationNs("2500.5ms")).toEqual(ok(2_500_500_000));
    expect(parseDurationNs("0.000000001s")).toEqual(ok(1));
    expect(parseDuration("5")).toEqual({ ok: false, error: 'time: missing unit in duration "5"' });
    expect(parseDuration("5x")).toEqual({ ok: false, error: 'time: unknown unit "x" in duration "5x"' });
    expect(parseDuration("abc")).toEqual({ ok: false, error: 'time: invalid duration "abc"' });
    expect(parseDuration("2d")).toEqual({ ok: false, error: 'time: unknown unit "d" in duration "2d"' });
    expect(parseDuration("")).toEqual({ ok: false, error: 'time: invalid duration ""' });
  });

  it("time.Duration.String and model.Duration.String", () => {
    expect(formatDuration(0)).toBe("0s");
    expect(formatDuration(5 * 86400 * S)).toBe("120h0m0s");
    expect(formatDuration(600 * S)).toBe("10m0s");
    expect(formatDuration(250 * 1e6)).toBe("250ms");
    expect(formatDuration(1500)).toBe("1.5µs");
    expect(formatDuration(90.5 * S)).toBe("1m30.5s");
    expect(formatPromDuration(25 * 3600 * S)).toBe("1d1h");
    expect(formatPromDuration(14 * 86400 * S)).toBe("2w");
    expect(formatPromDuration(365 * 86400 * S)).toBe("1y");
    expect(formatPromDuration(90 * 86400 * S)).toBe("90d"); // weeks only when exact
    expect(formatPromDuration(1500 * 1e6)).toBe("1s500ms");
  });
});

describe("numbers, bytes, quoting", () => {
  it("strconv.ParseFloat", () => {
    expect(parseFloat("195.55")).toEqual(ok(195.55));
    expect(parseFloat("-1e3")).toEqual(ok(-1000));
    expect(parseFloat(".5")).toEqual(ok(0.5));
    expect(parseFloat("5.")).toEqual(ok(5));
    expect(parseFloat("+Inf")).toEqual(ok(Infinity));
    expect(parseFloat("0x1p-2")).toEqual(ok(0.25));
    expect(parseFloat("0x1p4")).toEqual(ok(16));
    // Go accepts `_` between digits.
    expect(parseFloat("1_000")).toEqual(ok(1000));
    expect(parseFloat("12ms")).toEqual({ ok: false, error: 'strconv.ParseFloat: parsing "12ms": invalid syntax' });
    expect(parseFloat("")).toEqual({ ok: false, error: 'strconv.ParseFloat: parsing "": invalid syntax' });
    expect(parseFloat("0x10")).toEqual({ ok: false, error: 'strconv.ParseFloat: parsing "0x10": invalid syntax' });
    expect(parseFloat(" 1").ok).toBe(false);
    expect(parseFloat("1e400")).toEqual({
      ok: false,
      error: 'strconv.ParseFloat: parsing "1e400": value out of range',
    });
  });

  it("fmt %v of a float64", () => {
    const v = (x: number) => formatFloat(x, "g", -1);
    expect([v(3), v(0.1), v(1e21), v(100000), v(1e6), v(123456789), v(1e-5), v(NaN), v(-Infinity)]).toEqual([
      "3",
      "0.1",
      "1e+21",
      "100000",
      "1e+06",
      "1.23456789e+08",
      "1e-05",
      "NaN",
      "-Inf",
    ]);
  });

  it("go-humanize ParseBytes and Bytes", () => {
    expect(parseBytes("10KB")).toEqual(ok(10_000));
    expect(parseBytes("10KiB")).toEqual(ok(10240));
    expect(parseBytes("1.5KiB")).toEqual(ok(1536));
    expect(parseBytes("350MB")).toEqual(ok(350e6));
    expect(parseBytes("1,024 kb")).toEqual(ok(1_024_000));
    expect(parseBytes("42")).toEqual(ok(42));
    expect(parseBytes("1M")).toEqual(ok(1_000_000));
    expect(parseBytes("10XB")).toEqual({ ok: false, error: "unhandled size name: xb" });
    expect(parseBytes("abc")).toEqual({ ok: false, error: 'strconv.ParseFloat: parsing "": invalid syntax' });
    expect(formatBytes(42)).toBe("42 B");
    expect(formatBytes(1_000_000_000)).toBe("1.0 GB");
    expect(formatBytes(209_715_200)).toBe("210 MB");
  });

  it("strconv.Quote", () => {
    expect(quote('a"b\\c\n')).toBe('"a\\"b\\\\c\\n"');
    expect(quote("\u001b[0m")).toBe('"\\x1b[0m"');
    expect(quote("é🚀")).toBe('"é🚀"');
    expect(quote("\u0001\u00a0")).toBe('"\\x01\\u00a0"');
  });
});

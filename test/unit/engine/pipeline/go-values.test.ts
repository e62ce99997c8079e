/**
 * Label values read with Go's parsers, through whole queries (lexer → filter or unwrap): the
 * values Loki computes with time.ParseDuration, Duration.Seconds and strconv.ParseFloat, and the
 * error texts it puts in `__error_details__`.
 */
import { describe, expect, it } from "vitest";
import { compileLogPipeline, compileSampleExtractor } from "../../../../src/engine/pipeline";
import type { LogSelectorExpr, RangeAggregationExpr } from "../../../../src/logql/ast";
import type { LogRow } from "../../../../src/engine/types";
import { parseExpr } from "../../../../src/logql/parser";

const row = (line: string): LogRow => ({ ts: 1000n, line, stream: { app: "x" }, metadata: {} });

function keeps(query: string, line: string): Record<string, string> | null {
  const sel = parseExpr(query) as LogSelectorExpr;
  return compileLogPipeline(sel.pipeline).process(row(line))?.parsed ?? null;
}

function unwrapped(query: string, line: string): number | undefined {
  const e = parseExpr(query) as RangeAggregationExpr;
  return compileSampleExtractor(e.range, e.op).process(row(line))?.value;
}

describe("duration label filters", () => {
  // Go reads 0.5005s as 500500000ns exactly (its fraction arithmetic is integer digits × unit /
  // 10^digits); 0.5005 × 1e9 in floating point is 500499999.99…, which dropped the line.
  it("`latency >= 0.5005s` keeps latency=0.5005s, as Loki does", () => {
    expect(keeps('{app="x"} | logfmt | latency >= 0.5005s', "latency=0.5005s")).toEqual({ latency: "0.5005s" });
    expect(keeps('{app="x"} | logfmt | latency >= 500.5ms', "latency=0.5005s")).toEqual({ latency: "0.5005s" });
    expect(keeps('{app="x"} | logfmt | latency <= 0.5005s', "latency=500.5ms")).toEqual({ latency: "500.5ms" });
    expect(keeps('{app="x"} | logfmt | latency == 0.5005s', "latency=500500us")).toEqual({ latency: "500500us" });
  });

  it("a value that is not a duration keeps the line with time's own quoting in the details", () => {
    expect(keeps('{app="x"} | logfmt | latency > 1s', "latency=5µ")).toEqual({
      latency: "5µ",
      __error__: "LabelFilterErr",
      __error_details__: 'time: unknown unit "\\xc2\\xb5" in duration "5\\xc2\\xb5"',
    });
  });
});

describe("numeric label filters", () => {
  it("read `_` digit separators as strconv.ParseFloat does", () => {
    expect(keeps('{app="x"} | logfmt | n > 999', "n=1_000")).toEqual({ n: "1_000" });
  });

  it("quote a bad value with strconv.Quote: non-printable U+00A0 escaped", () => {
    expect(keeps('{app="x"} | logfmt | n > 1', 'n="1\u00a0"')).toEqual({
      n: "1\u00a0",
      __error__: "LabelFilterErr",
      __error_details__: 'strconv.ParseFloat: parsing "1\\u00a0": invalid syntax',
    });
  });
});

describe("duration unwraps", () => {
  it("convert with Duration.Seconds(): whole seconds plus the fraction, as Go adds them", () => {
    // 152 + 0.721288844 = 152.72128884400001, while 152721288844 / 1e9 = 152.721288844.
    expect(unwrapped('sum_over_time({app="x"} | logfmt | unwrap duration(d) [1m])', "d=152.721288844s")).toBe(
      152.72128884400001,
    );
    expect(unwrapped('sum_over_time({app="x"} | logfmt | unwrap duration(d) [1m])', "d=0.5005s")).toBe(0.5005);
  });

  it("keep the nanoseconds exact past 2^53 (about 104 days), as Go's int64 does", () => {
    // Go: 3599999999996400000ns, 3599999999 + 0.9964; the nearest double of the nanoseconds ends in …400128.
    const seconds = (d: string) => unwrapped('sum_over_time({app="x"} | logfmt | unwrap duration(d) [1m])', `d=${d}`);
    expect(seconds("999999.999999h")).toBe(3599999999.9964);
    expect(seconds("99999999.999999m")).toBe(5999999999.99994);
    expect(seconds("-999999.999999h")).toBe(-3599999999.9964);
  });
});

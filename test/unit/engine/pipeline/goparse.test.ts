import { describe, expect, it } from "vitest";
import { goQuote, parseGoDuration, parseGoFloat, parseHumanBytes } from "../../../../src/engine/pipeline/goparse";

describe("parseGoFloat (strconv.ParseFloat)", () => {
  it("accepts Go float syntax", () => {
    expect(parseGoFloat("195.55")).toEqual({ ok: true, value: 195.55 });
    expect(parseGoFloat("-1e3")).toEqual({ ok: true, value: -1000 });
    expect(parseGoFloat(".5")).toEqual({ ok: true, value: 0.5 });
    expect(parseGoFloat("5.")).toEqual({ ok: true, value: 5 });
    expect(parseGoFloat("+Inf")).toEqual({ ok: true, value: Infinity });
    expect(parseGoFloat("0x1p-2")).toEqual({ ok: true, value: 0.25 });
    const nan = parseGoFloat("NaN");
    expect(nan.ok && Number.isNaN(nan.value)).toBe(true);
  });
  it("rejects with Go's message", () => {
    expect(parseGoFloat("12ms")).toEqual({ ok: false, error: 'strconv.ParseFloat: parsing "12ms": invalid syntax' });
    expect(parseGoFloat("")).toEqual({ ok: false, error: 'strconv.ParseFloat: parsing "": invalid syntax' });
    expect(parseGoFloat("1_000").ok).toBe(false);
    expect(parseGoFloat(" 1").ok).toBe(false);
    expect(parseGoFloat("1e400")).toEqual({
      ok: false,
      error: 'strconv.ParseFloat: parsing "1e400": value out of range',
    });
  });
});

describe("parseGoDuration (time.ParseDuration)", () => {
  it("sums units in nanoseconds", () => {
    expect(parseGoDuration("1h30m")).toEqual({ ok: true, value: 5400e9 });
    expect(parseGoDuration("195ms")).toEqual({ ok: true, value: 195e6 });
    expect(parseGoDuration("1.5s")).toEqual({ ok: true, value: 1.5e9 });
    expect(parseGoDuration("-2us")).toEqual({ ok: true, value: -2000 });
    expect(parseGoDuration("3\u00b5s")).toEqual({ ok: true, value: 3000 });
    expect(parseGoDuration("0")).toEqual({ ok: true, value: 0 });
  });
  it("fails like Go", () => {
    expect(parseGoDuration("5")).toEqual({ ok: false, error: 'time: missing unit in duration "5"' });
    expect(parseGoDuration("5x")).toEqual({ ok: false, error: 'time: unknown unit "x" in duration "5x"' });
    expect(parseGoDuration("abc")).toEqual({ ok: false, error: 'time: invalid duration "abc"' });
    expect(parseGoDuration("1d")).toEqual({ ok: false, error: 'time: unknown unit "d" in duration "1d"' });
    expect(parseGoDuration("")).toEqual({ ok: false, error: 'time: invalid duration ""' });
  });
});

describe("parseHumanBytes (go-humanize ParseBytes)", () => {
  it("uses SI for KB and IEC for KiB", () => {
    expect(parseHumanBytes("10KB")).toEqual({ ok: true, value: 10000 });
    expect(parseHumanBytes("10KiB")).toEqual({ ok: true, value: 10240 });
    expect(parseHumanBytes("350MB")).toEqual({ ok: true, value: 350e6 });
    expect(parseHumanBytes("703B")).toEqual({ ok: true, value: 703 });
    expect(parseHumanBytes("1,024 kb")).toEqual({ ok: true, value: 1024000 });
    expect(parseHumanBytes("42")).toEqual({ ok: true, value: 42 });
    expect(parseHumanBytes("1.5k")).toEqual({ ok: true, value: 1500 });
  });
  it("fails like go-humanize", () => {
    expect(parseHumanBytes("10XB")).toEqual({ ok: false, error: "unhandled size name: xb" });
    expect(parseHumanBytes("abc")).toEqual({ ok: false, error: 'strconv.ParseFloat: parsing "": invalid syntax' });
  });
});

it("goQuote escapes like strconv.Quote", () => {
  expect(goQuote('a"b\\c\n')).toBe('"a\\"b\\\\c\\n"');
  expect(goQuote("\u001b[0m")).toBe('"\\x1b[0m"');
});

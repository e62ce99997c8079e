import { describe, expect, it } from "vitest";
import {
  atoi,
  type FloatFormat,
  formatFloat,
  isPrint,
  parseFloat,
  parseInt,
  parseIntLiteral,
  quote,
  quoteBytes,
  quoteRune,
  quoteToASCII,
  underscoreOK,
  unquote,
  unquoteChar,
} from "../../../../src/core/go/strconv";
import { fromBits, goFixture, toBits } from "./fixtures";

const fx = goFixture<{
  parseFloat: { in: string; bits?: string; err?: string }[];
  parseInt: { in: string; base: number; bitSize: number; out?: string; err?: string }[];
  formatFloat: { bits: string; fmt: FloatFormat; prec: number; out: string }[];
  quote: { in: string; quote: string; ascii: string; quoteRune?: string; rune?: number }[];
  unquote: { in: string; outHex: string; ok: boolean }[];
}>("strconv.json");

const hexBytes = (h: string): Uint8Array => new Uint8Array((h.match(/../g) ?? []).map((b) => Number.parseInt(b, 16)));

describe("strconv.ParseFloat (Go fixtures)", () => {
  it("matches Go bit for bit, and Go's error texts", () => {
    for (const c of fx.parseFloat) {
      const r = parseFloat(c.in);
      if (c.err) expect(r, c.in).toEqual({ ok: false, error: c.err });
      else {
        expect(r.ok, c.in).toBe(true);
        // Go's NaN has its own payload bits; any NaN is the same value.
        if (r.ok)
          expect(Number.isNaN(r.value) ? "NaN" : toBits(r.value), c.in).toBe(
            Number.isNaN(fromBits(c.bits!)) ? "NaN" : c.bits,
          );
      }
    }
  });
});

describe("strconv.ParseInt (Go fixtures)", () => {
  it("matches Go for bases 10 and 0, bit sizes 64 and 0, and Atoi", () => {
    for (const c of fx.parseInt) {
      const r = c.base === -1 ? atoi(c.in) : parseInt(c.in, c.base, c.bitSize);
      const name = `${c.in} base ${c.base}`;
      expect(r, name).toEqual(c.err ? { ok: false, error: c.err } : { ok: true, value: BigInt(c.out!) });
    }
  });
  it("reads literals beyond int64 for callers that classify by range", () => {
    expect(parseIntLiteral("18446744073709551615")).toBe(2n ** 64n - 1n);
    expect(parseIntLiteral("-0x_10")).toBe(-16n);
    expect(parseIntLiteral("0x")).toBeUndefined();
    expect(underscoreOK("1__0")).toBe(false);
  });
});

describe("strconv.FormatFloat (Go fixtures)", () => {
  it("matches Go for e, E, f, g, G and x with every precision", () => {
    for (const c of fx.formatFloat) {
      expect(formatFloat(fromBits(c.bits), c.fmt, c.prec), `${c.bits} ${c.fmt} ${c.prec}`).toBe(c.out);
    }
  });
});

describe("strconv.Quote / QuoteToASCII / QuoteRune (Go fixtures)", () => {
  it("matches Go over the interesting and random code points", () => {
    for (const c of fx.quote) {
      expect(quote(c.in), c.in).toBe(c.quote);
      expect(quoteToASCII(c.in), c.in).toBe(c.ascii);
      expect(quoteBytes(new TextEncoder().encode(c.in)), c.in).toBe(c.quote);
      if (c.quoteRune !== undefined) expect(quoteRune(c.rune ?? 0), c.in).toBe(c.quoteRune);
    }
  });

  it("escapes the code points the old copies disagreed on, as Go does", () => {
    expect(quote("\u0085\u00a0\u200b")).toBe('"\\u0085\\u00a0\\u200b"');
    expect(isPrint(0x85)).toBe(false);
    expect(isPrint(0xa0)).toBe(false);
    expect(isPrint(0x200b)).toBe(false);
    expect(isPrint(0xe9)).toBe(true);
  });

  it("reads a lone surrogate as U+FFFD, as TextEncoder and Go's JSON decoder do", () => {
    expect(quote("a\ud800b")).toBe(quote("a\ufffdb"));
    expect(quote("\udc00")).toBe('"\ufffd"');
    expect(quoteToASCII("\ud800")).toBe('"\\ufffd"');
  });

  it("writes invalid UTF-8 bytes as \\x escapes", () => {
    expect(quoteBytes(new Uint8Array([0x31, 0xd9]))).toBe('"1\\xd9"');
    expect(quoteBytes(new Uint8Array([0xed, 0xa0, 0x80]))).toBe('"\\xed\\xa0\\x80"');
  });
});

describe("strconv.Unquote (Go fixtures)", () => {
  it("matches Go; bytes that are not UTF-8 read as TextDecoder reads them", () => {
    const decoder = new TextDecoder();
    for (const c of fx.unquote) {
      expect(unquote(c.in), c.in).toBe(c.ok ? decoder.decode(hexBytes(c.outHex)) : undefined);
    }
  });
  it("UnquoteChar decodes one character or escape", () => {
    expect(unquoteChar("\\x41rest", '"')).toEqual({ code: 0x41, isByte: true, rest: "rest" });
    expect(unquoteChar("\\'", "'")).toEqual({ code: 0x27, isByte: false, rest: "" });
    expect(unquoteChar("\\'", '"')).toBeUndefined();
    expect(unquoteChar("😀x", '"')).toEqual({ code: 0x1f600, isByte: false, rest: "x" });
  });
});

/**
 * Go's strconv as Loki's text reaches users: number parsing (ParseFloat, ParseInt), float
 * formatting (FormatFloat, behind fmt's %v %e %f %g %x) and Go string quoting (Quote,
 * QuoteToASCII, QuoteRune, Unquote, UnquoteChar). Loki's canonical query text, its error messages
 * and its label values come out of these functions, so they follow Go's code paths, edge cases
 * included; test/unit/core/go compares them with Go's own outputs (scripts/go-fixtures).
 *
 * Strings: Go strings are bytes, JavaScript strings UTF-16. A lone surrogate has no UTF-8 form;
 * it is read as U+FFFD, which is what TextEncoder sends and what Go's JSON decoder makes of one.
 */
import { PRINTABLE_RANGES } from "./isprint-table";
import { failure, type ParseResult } from "./result";

// ---------------------------------------------------------------------------------------------
// Quoting

/** strconv.IsPrint (= unicode.IsPrint): letters, marks, numbers, punctuation, symbols, ASCII space. */
export function isPrint(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7f;
  // Binary search over the inclusive [first, last] pairs generated from Go's table.
  let lo = 0;
  let hi = PRINTABLE_RANGES.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < PRINTABLE_RANGES[2 * mid]!) hi = mid - 1;
    else if (cp > PRINTABLE_RANGES[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, "0");

/** Go's appendEscapedRune: one code point as it appears between `quote` characters. */
function escapeRune(cp: number, quote: number, asciiOnly: boolean): string {
  if (cp === quote || cp === 0x5c) return "\\" + String.fromCharCode(cp);
  if (asciiOnly ? cp < 0x80 && isPrint(cp) : isPrint(cp)) return String.fromCodePoint(cp);
  switch (cp) {
    case 7:
      return "\\a";
    case 8:
      return "\\b";
    case 12:
      return "\\f";
    case 10:
      return "\\n";
    case 13:
      return "\\r";
    case 9:
      return "\\t";
    case 11:
      return "\\v";
  }
  if (cp < 0x20 || cp === 0x7f) return "\\x" + hex(cp, 2);
  if (cp < 0x10000) return "\\u" + hex(cp, 4);
  return "\\U" + hex(cp, 8);
}

/** The common case of identifiers and ASCII text: nothing to escape. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function quoteWith(s: string, quote: number, asciiOnly: boolean): string {
  const q = String.fromCharCode(quote);
  if (quote === 0x22 && PLAIN_ASCII.test(s)) return q + s + q;
  let out = q;
  for (let i = 0; i < s.length; i++) {
    let cp = s.codePointAt(i)!;
    if (cp > 0xffff) i++;
    else if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // a lone surrogate
    out += escapeRune(cp, quote, asciiOnly);
  }
  return out + q;
}

/** strconv.Quote: double-quoted, non-printable code points escaped. */
export function quote(s: string): string {
  return quoteWith(s, 0x22, false);
}

/** strconv.QuoteToASCII: as {@link quote}, and every non-ASCII code point escaped too. */
export function quoteToASCII(s: string): string {
  return quoteWith(s, 0x22, true);
}

/** strconv.QuoteRune: a single-quoted character literal; invalid code points become U+FFFD. */
export function quoteRune(cp: number): string {
  if (cp < 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
  return "'" + escapeRune(cp, 0x27, false) + "'";
}

// ---------------------------------------------------------------------------------------------
// Unquoting

const SIMPLE_ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92 };

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/** One decoded character: a code point, or a raw byte (isByte) from a `\x` or octal escape. */
export interface UnquotedChar {
  code: number;
  isByte: boolean;
  rest: string;
}

/**
 * strconv.UnquoteChar: decodes the first character or escape of `s`, the inside of a literal
 * quoted by `quote` (`"`, `'` or `` ` ``). Undefined where Go reports ErrSyntax.
 */
export function unquoteChar(s: string, quote: string): UnquotedChar | undefined {
  const c = s[0];
  if (c === undefined) return undefined;
  if (c === quote && (quote === "'" || quote === '"')) return undefined;
  if (c !== "\\") {
    const code = s.codePointAt(0)!;
    return { code, isByte: false, rest: s.slice(code > 0xffff ? 2 : 1) };
  }
  const e = s[1];
  if (e === undefined) return undefined;
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) return { code: simple, isByte: false, rest: s.slice(2) };
  if (e === "'" || e === '"')
    return e === quote ? { code: e.charCodeAt(0), isByte: false, rest: s.slice(2) } : undefined;
  if (e === "x" || e === "u" || e === "U") {
    const n = e === "x" ? 2 : e === "u" ? 4 : 8;
    const h = s.slice(2, 2 + n);
    if (h.length !== n || !HEX_DIGITS.test(h)) return undefined;
    const v = Number.parseInt(h, 16);
    if (e === "x") return { code: v, isByte: true, rest: s.slice(4) };
    if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return undefined;
    return { code: v, isByte: false, rest: s.slice(2 + n) };
  }
  if (e >= "0" && e <= "7") {
    const o = s.slice(1, 4);
    if (!/^[0-7]{3}$/.test(o)) return undefined;
    const v = Number.parseInt(o, 8);
    if (v > 255) return undefined;
    return { code: v, isByte: true, rest: s.slice(4) };
  }
  return undefined;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * strconv.Unquote for `"..."`, `'...'` and `` `...` `` literals; undefined where Go reports
 * ErrSyntax. Escapes that make bytes which are not UTF-8 (`\xff`) come back as U+FFFD, as
 * anything Go would send on as text does.
 */
export function unquote(lit: string): string | undefined {
  if (lit.length < 2) return undefined;
  const q = lit[0]!;
  const end = lit.indexOf(q, 1);
  if (end < 0) return undefined;
  if (q === "`") {
    if (end !== lit.length - 1) return undefined;
    const body = lit.slice(1, -1);
    // Carriage returns inside raw literals are discarded, as in Go source.
    return body.includes("\r") ? body.replaceAll("\r", "") : body;
  }
  if (q !== '"' && q !== "'") return undefined;
  const head = lit.slice(1, end);
  if (end === lit.length - 1 && !head.includes("\\") && !head.includes("\n")) {
    if (q === '"') return head;
    const cp = head.codePointAt(0);
    if (cp !== undefined && head.length === (cp > 0xffff ? 2 : 1)) return head;
  }
  const bytes: number[] = [];
  let rest = lit.slice(1);
  while (rest !== "" && rest[0] !== q) {
    if (rest[0] === "\n") return undefined;
    const ch = unquoteChar(rest, q);
    if (ch === undefined) return undefined;
    rest = ch.rest;
    if (ch.isByte || ch.code < 0x80) bytes.push(ch.code);
    else for (const b of encoder.encode(String.fromCodePoint(ch.code))) bytes.push(b);
    if (q === "'") break; // a character literal holds one character
  }
  if (rest !== q) return undefined;
  return decoder.decode(new Uint8Array(bytes));
}

// ---------------------------------------------------------------------------------------------
// Integers

/** Go's underscoreOK: `_` only between digits, or right after a base prefix (`0x_1f`). */
export function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  if (s[0] === "-" || s[0] === "+") s = s.slice(1);
  let hexDigits = false;
  if (s.length >= 2 && s[0] === "0" && "bBoOxX".includes(s[1]!)) {
    i = 2;
    saw = "0";
    hexDigits = s[1] === "x" || s[1] === "X";
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= "0" && c <= "9") || (hexDigits && ((c >= "a" && c <= "f") || (c >= "A" && c <= "F")))) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

const numError = (fn: string, s: string, what: string): { ok: false; error: string } =>
  failure(() => `strconv.${fn}: parsing ${quote(s)}: ${what}`);

function digitValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  return l >= 97 && l <= 122 ? l - 97 + 10 : 99;
}

/** Go's ParseUint core: the magnitude, or which error Go reports. */
function parseUintText(s: string, base: number, bitSize: number): bigint | "syntax" | "range" {
  if (s === "") return "syntax";
  const base0 = base === 0;
  const s0 = s;
  if (base0) {
    base = 10;
    if (s[0] === "0") {
      const p = s.length >= 3 ? s[1]!.toLowerCase() : "";
      if (p === "b" || p === "o" || p === "x") {
        base = p === "b" ? 2 : p === "o" ? 8 : 16;
        s = s.slice(2);
      } else {
        base = 8;
        s = s.slice(1);
      }
    }
  }
  const b = BigInt(base);
  const maxVal = (1n << BigInt(bitSize)) - 1n;
  const cutoff = ((1n << 64n) - 1n) / b + 1n;
  let underscores = false;
  let n = 0n;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5f && base0) {
      underscores = true;
      continue;
    }
    const d = digitValue(c);
    if (d >= base) return "syntax";
    if (n >= cutoff) return "range";
    n = n * b + BigInt(d);
    if (n > maxVal) return "range";
  }
  if (underscores && !underscoreOK(s0)) return "syntax";
  return n;
}

/** strconv.ParseInt(s, base, bitSize); base 0 reads Go's prefixes (0x, 0o, 0b, 0) and `_`. */
export function parseInt(s: string, base: number, bitSize: number): ParseResult<bigint> {
  return parseIntAs("ParseInt", s, base, bitSize);
}

/** strconv.Atoi: ParseInt(s, 10, 0) reporting its errors as Atoi's. */
export function atoi(s: string): ParseResult<bigint> {
  return parseIntAs("Atoi", s, 10, 0);
}

function parseIntAs(fn: string, s: string, base: number, bitSize: number): ParseResult<bigint> {
  if (bitSize === 0) bitSize = 64;
  if (s === "") return numError(fn, s, "invalid syntax");
  const neg = s[0] === "-";
  const body = s[0] === "+" || s[0] === "-" ? s.slice(1) : s;
  const un = parseUintText(body, base, bitSize);
  if (un === "syntax") return numError(fn, s, "invalid syntax");
  const cutoff = 1n << BigInt(bitSize - 1);
  if (un === "range" || (!neg && un >= cutoff) || (neg && un > cutoff)) {
    return numError(fn, s, "value out of range");
  }
  return { ok: true, value: neg ? -un : un };
}

/**
 * Go integer literal syntax at any size (ParseInt with base 0, without the range check): the
 * template language classifies a literal as int, uint or float by range after reading it.
 */
export function parseIntLiteral(s: string): bigint | undefined {
  const neg = s[0] === "-";
  const body = s[0] === "+" || s[0] === "-" ? s.slice(1) : s;
  const un = parseUintText(body, 0, 4096);
  if (typeof un !== "bigint") return undefined;
  return neg ? -un : un;
}

// ---------------------------------------------------------------------------------------------
// Floats

// Each digit run has one place to end (the fraction starts at its dot), so V8 never backtracks
// through a split of the same digits: a long run of digits that fails to parse stays linear.
const DECIMAL_FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/;
const INFINITY = /^[+-]?(?:inf|infinity)$/i;

/** x · 2^n for a result that is exact (representable): scaled in steps that cannot underflow early. */
function ldexp(x: number, n: number): number {
  while (n > 1000) {
    x *= 2 ** 1000;
    n -= 1000;
  }
  while (n < -1000) {
    x *= 2 ** -1000;
    n += 1000;
  }
  return x * 2 ** n;
}

/** M · 2^e2 rounded to the nearest double, ties to even, as Go's atofHex rounds. */
function hexToDouble(mant: bigint, e2: number): number {
  if (mant === 0n) return 0;
  const len = mant.toString(2).length;
  const top = len - 1 + e2; // the value is in [2^top, 2^(top+1))
  if (top > 1023) return Infinity;
  // Normal doubles keep 53 significant bits; subnormals fewer, down to the 2^-1074 step.
  const keep = top >= -1022 ? 53 : top + 1075;
  if (keep < 0) return 0;
  const shift = len - keep;
  if (shift <= 0) return ldexp(Number(mant), e2);
  const s = BigInt(shift);
  let q = mant >> s;
  const rem = mant & ((1n << s) - 1n);
  const half = 1n << (s - 1n);
  if (rem > half || (rem === half && (q & 1n) === 1n)) q++;
  return ldexp(Number(q), e2 + shift);
}

/** strconv.ParseFloat(s, 64): the value, or Go's syntax or range error. */
export function parseFloat(s: string): ParseResult<number> {
  if (DECIMAL_FLOAT.test(s)) {
    // Number() rounds decimal text to the nearest double exactly as Go does.
    const v = Number(s);
    return Number.isFinite(v) ? { ok: true, value: v } : numError("ParseFloat", s, "value out of range");
  }
  return parseFloatRare(s);
}

/** Infinities, NaN, `_` separators and hexadecimal floats. */
function parseFloatRare(s: string): ParseResult<number> {
  if (INFINITY.test(s)) return { ok: true, value: s[0] === "-" ? -Infinity : Infinity };
  if (/^nan$/i.test(s)) return { ok: true, value: NaN };
  let text = s;
  if (text.includes("_")) {
    if (!underscoreOK(text)) return numError("ParseFloat", s, "invalid syntax");
    text = text.replaceAll("_", "");
    if (DECIMAL_FLOAT.test(text)) {
      const v = Number(text);
      return Number.isFinite(v) ? { ok: true, value: v } : numError("ParseFloat", s, "value out of range");
    }
  }
  const m = HEX_FLOAT.exec(text);
  if (m === null || (m[2] === "" && (m[3] ?? "") === "")) return numError("ParseFloat", s, "invalid syntax");
  const frac = m[3] ?? "";
  const mant = BigInt("0x" + (m[2]! + frac || "0"));
  // Exponents beyond any double's range saturate, as Go's do; the sign still picks 0 or infinity.
  const exp = Math.max(-1e6, Math.min(1e6, Number(m[4])));
  const v = hexToDouble(mant, exp - 4 * frac.length);
  if (v === Infinity) return numError("ParseFloat", s, "value out of range");
  return { ok: true, value: m[1] === "-" ? -v : v };
}

/** Decimal digits of a positive double: significant digits without leading zeros, and where the point goes. */
interface Digits {
  /** Significant decimal digits, no leading zeros ("" for zero). */
  d: string;
  /** Position of the decimal point relative to the start of d. */
  dp: number;
}

/** Shortest digits that read back as x (x finite, > 0). JS and Go agree on these. */
function shortestDigits(x: number): Digits {
  const s = x.toExponential();
  const e = s.indexOf("e");
  const mant = s.slice(0, e).replace(".", "");
  const exp = Number(s.slice(e + 1));
  return { d: mant, dp: exp + 1 };
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** The exact decimal expansion of a positive finite double. */
function exactDigits(x: number): Digits {
  f64[0] = x;
  const bits = u64[0]!;
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  let e2: number;
  if (expBits === 0) e2 = -1074;
  else {
    mant |= 1n << 52n;
    e2 = expBits - 1075;
  }
  let digits: string;
  let dp: number;
  if (e2 >= 0) {
    digits = (mant << BigInt(e2)).toString();
    dp = digits.length;
  } else {
    digits = (mant * 5n ** BigInt(-e2)).toString();
    dp = digits.length + e2;
  }
  let end = digits.length;
  while (end > 1 && digits.charCodeAt(end - 1) === 48) end--;
  return { d: digits.slice(0, end), dp };
}

/** Rounds to nd significant digits, ties to even, as Go's decimal rounding does. */
function roundDigits(x: Digits, nd: number): Digits {
  const { d } = x;
  if (nd < 0) return { d: "", dp: x.dp };
  if (nd >= d.length) return x;
  const c = d.charCodeAt(nd) - 48;
  let up: boolean;
  if (c === 5 && nd + 1 === d.length) up = nd > 0 && (d.charCodeAt(nd - 1) - 48) % 2 === 1;
  else up = c >= 5;
  if (!up) {
    let end = nd;
    while (end > 0 && d.charCodeAt(end - 1) === 48) end--;
    return { d: d.slice(0, end), dp: x.dp };
  }
  let i = nd - 1;
  while (i >= 0 && d.charCodeAt(i) === 57) i--;
  if (i < 0) return { d: "1", dp: x.dp + 1 };
  return { d: d.slice(0, i) + String.fromCharCode(d.charCodeAt(i) + 1), dp: x.dp };
}

function digitAt(d: Digits, i: number): string {
  return i >= 0 && i < d.d.length ? d.d[i]! : "0";
}

function fmtE(neg: boolean, d: Digits, prec: number, upper: boolean): string {
  let s = neg ? "-" : "";
  s += d.d.length === 0 ? "0" : d.d[0]!;
  if (prec > 0) {
    s += ".";
    for (let i = 1; i <= prec; i++) s += digitAt(d, i);
  }
  s += upper ? "E" : "e";
  let exp = d.d.length === 0 ? 0 : d.dp - 1;
  if (exp < 0) {
    s += "-";
    exp = -exp;
  } else s += "+";
  s += exp < 10 ? "0" + exp : String(exp);
  return s;
}

function fmtF(neg: boolean, d: Digits, prec: number): string {
  let s = neg ? "-" : "";
  if (d.dp > 0) {
    let m = Math.min(d.d.length, d.dp);
    s += d.d.slice(0, m);
    for (; m < d.dp; m++) s += "0";
  } else s += "0";
  if (prec > 0) {
    s += ".";
    for (let i = 0; i < prec; i++) s += digitAt(d, d.dp + i);
  }
  return s;
}

export type FloatFormat = "e" | "E" | "f" | "g" | "G" | "x" | "X";

/** strconv.FormatFloat(x, fmt, prec, 64); prec -1 means the fewest digits that read back as x. */
export function formatFloat(x: number, fmt: FloatFormat, prec: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  if (fmt === "x" || fmt === "X") return formatHexFloat(x, fmt === "X", prec);
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  const shortest = prec < 0;
  let d: Digits;
  if (ax === 0) d = { d: "", dp: 0 };
  else if (shortest) d = shortestDigits(ax);
  else {
    const exact = exactDigits(ax);
    switch (fmt) {
      case "e":
      case "E":
        d = roundDigits(exact, prec + 1);
        break;
      case "f":
        d = roundDigits(exact, exact.dp + prec);
        break;
      default:
        d = roundDigits(exact, prec === 0 ? 1 : prec);
    }
  }
  if (shortest) {
    const nd = Math.max(d.d.length, 1);
    if (fmt === "e" || fmt === "E") prec = nd - 1;
    else if (fmt === "f") prec = Math.max(d.d.length - d.dp, 0);
    else prec = nd;
  }
  switch (fmt) {
    case "e":
    case "E":
      return fmtE(neg, d, prec, fmt === "E");
    case "f":
      return fmtF(neg, d, prec);
  }
  // %g: exponent form when the exponent is < -4 or >= the precision (6 for the shortest form).
  if (!shortest && prec === 0) prec = 1;
  const nd = d.d.length;
  let eprec = prec;
  if (eprec > nd && nd >= d.dp) eprec = nd;
  if (shortest) eprec = 6;
  const exp = d.dp - 1;
  if (exp < -4 || exp >= eprec) {
    if (prec > nd) prec = nd;
    return fmtE(neg, d, prec - 1, fmt === "G");
  }
  if (prec > d.dp) prec = nd;
  return fmtF(neg, d, Math.max(prec - d.dp, 0));
}

/** %x / %X of a float64: hexadecimal mantissa and binary exponent ("0x1.cp+01"). */
function formatHexFloat(x: number, upper: boolean, prec: number): string {
  f64[0] = x;
  const bits = u64[0]!;
  const neg = bits >> 63n === 1n;
  let exp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  if (exp === 0) exp++;
  else mant |= 1n << 52n;
  exp -= 1023;
  if (mant === 0n) exp = 0;
  mant <<= 8n;
  while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
    mant <<= 1n;
    exp--;
  }
  if (prec >= 0 && prec < 15) {
    // round to prec hex digits, ties to even
    const shift = BigInt(prec * 4);
    const extra = (mant << shift) & ((1n << 60n) - 1n);
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant <<= 60n - shift;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  const digitsOf = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  let s = (neg ? "-" : "") + "0" + (upper ? "X" : "x") + String((mant >> 60n) & 1n);
  mant = (mant << 4n) & ((1n << 64n) - 1n);
  if (prec > 0) {
    s += ".";
    for (let i = 0; i < prec; i++) {
      s += digitsOf[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & ((1n << 64n) - 1n);
    }
  } else if (prec < 0 && mant !== 0n) {
    s += ".";
    while (mant !== 0n) {
      s += digitsOf[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & ((1n << 64n) - 1n);
    }
  }
  s += upper ? "P" : "p";
  s += exp < 0 ? "-" : "+";
  const e = Math.abs(exp);
  s += e < 10 ? "0" + e : String(e);
  return s;
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * strconv.Quote of a byte string that may not be UTF-8: each byte of an invalid sequence is
 * written as `\xNN`, as Go writes it (go-humanize hands strconv such slices of multi-byte digits).
 */
export function quoteBytes(bytes: Uint8Array): string {
  let out = '"';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const width = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 0;
    let ch: string | undefined;
    if (width > 0 && i + width <= bytes.length) {
      try {
        ch = strictDecoder.decode(bytes.subarray(i, i + width));
      } catch {
        ch = undefined;
      }
    }
    if (ch === undefined) {
      out += "\\x" + hex(b, 2);
      i++;
      continue;
    }
    out += escapeRune(ch.codePointAt(0)!, 0x22, false);
    i += width;
  }
  return out + '"';
}

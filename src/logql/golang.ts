/**
 * Go-compatible scalar reading and writing used by the LogQL lexer and printer.
 *
 * Loki's canonical text comes from Go formatting verbs (`%v` of a float64, `strconv.Quote`,
 * `time.Duration.String`, Prometheus `model.Duration.String`, go-humanize bytes), and its lexer
 * reads numbers, durations and byte sizes with Go/Prometheus parsers. Matching Loki "value for
 * value" means matching those functions' edge cases, so they are reimplemented here from their
 * documented behaviour.
 */

export const NS_PER_MS = 1_000_000;
export const NS_PER_SECOND = 1_000_000_000;
const NS_PER_MINUTE = 60 * NS_PER_SECOND;
const NS_PER_HOUR = 60 * NS_PER_MINUTE;
const NS_PER_DAY = 24 * NS_PER_HOUR;
const NS_PER_WEEK = 7 * NS_PER_DAY;
const NS_PER_YEAR = 365 * NS_PER_DAY;
const MAX_INT64 = 2 ** 63; // the double nearest int64 max

// ---------------------------------------------------------------------------------------------
// Durations

/** Prometheus units in the only order `model.ParseDuration` accepts them (biggest first). */
const PROM_UNITS: Record<string, { pos: number; ns: number }> = {
  y: { pos: 1, ns: NS_PER_YEAR },
  w: { pos: 2, ns: NS_PER_WEEK },
  d: { pos: 3, ns: NS_PER_DAY },
  h: { pos: 4, ns: NS_PER_HOUR },
  m: { pos: 5, ns: NS_PER_MINUTE },
  s: { pos: 6, ns: NS_PER_SECOND },
  ms: { pos: 7, ns: NS_PER_MS },
};

const isAsciiDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/**
 * Prometheus `model.ParseDuration`: integer components, units y w d h m s ms each at most once
 * and biggest first, `0` alone allowed. Returns nanoseconds or an error message.
 */
export function parsePromDuration(s: string): number | { error: string } {
  if (s === "0") return 0;
  if (s === "") return { error: "empty duration string" };
  const invalid = { error: `not a valid duration string: ${goQuote(s)}` };
  let rest = s;
  let total = 0;
  let lastPos = 0;
  while (rest !== "") {
    if (!isAsciiDigit(rest[0])) return invalid;
    let i = 0;
    while (i < rest.length && isAsciiDigit(rest[i])) i++;
    const value = Number(rest.slice(0, i));
    rest = rest.slice(i);
    let j = 0;
    while (j < rest.length && !isAsciiDigit(rest[j])) j++;
    if (j === 0) return invalid;
    const unitText = rest.slice(0, j);
    rest = rest.slice(j);
    const unit = PROM_UNITS[unitText];
    if (unit === undefined) return { error: `unknown unit ${goQuote(unitText)} in duration ${goQuote(s)}` };
    if (unit.pos <= lastPos) return invalid;
    lastPos = unit.pos;
    total += value * unit.ns;
    if (total > MAX_INT64) return { error: "duration out of range" };
  }
  return total;
}

const GO_UNITS: Record<string, number> = {
  ns: 1,
  us: 1_000,
  µs: 1_000, // U+00B5 micro sign
  μs: 1_000, // U+03BC Greek mu
  ms: NS_PER_MS,
  s: NS_PER_SECOND,
  m: NS_PER_MINUTE,
  h: NS_PER_HOUR,
};

/** Go `time.ParseDuration`: signed, decimal components, units ns us µs ms s m h. */
export function parseGoDuration(orig: string): number | { error: string } {
  let s = orig;
  const bad = { error: `time: invalid duration ${goQuote(orig)}` };
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") return bad;
  let total = 0;
  while (s !== "") {
    if (!(s[0] === "." || isAsciiDigit(s[0]))) return bad;
    let i = 0;
    while (i < s.length && isAsciiDigit(s[i])) i++;
    const intPart = s.slice(0, i);
    s = s.slice(i);
    let frac = "";
    if (s[0] === ".") {
      s = s.slice(1);
      let k = 0;
      while (k < s.length && isAsciiDigit(s[k])) k++;
      frac = s.slice(0, k);
      s = s.slice(k);
    }
    if (intPart === "" && frac === "") return bad;
    let u = 0;
    while (u < s.length && s[u] !== "." && !isAsciiDigit(s[u])) u++;
    if (u === 0) return { error: `time: missing unit in duration ${goQuote(orig)}` };
    const unitText = s.slice(0, u);
    s = s.slice(u);
    const unit = GO_UNITS[unitText];
    if (unit === undefined) return { error: `time: unknown unit ${goQuote(unitText)} in duration ${goQuote(orig)}` };
    let v = Number(intPart || "0") * unit;
    if (frac !== "") v += fractionOf(frac, unit);
    total += v;
    if (total > MAX_INT64) return bad;
  }
  return neg ? -total : total;
}

/**
 * Go's arithmetic for a duration's fraction digits: the digits as an integer (those past int64's
 * range ignored) times unit/10^digits, truncated. `0.5005` of a second is then exactly 500500000 ns,
 * where 0.5005 × 1e9 in floating point is 500499999.99…
 */
function fractionOf(digits: string, unit: number): number {
  let x = 0n;
  let scale = 1;
  for (const c of digits) {
    const y = x * 10n + BigInt(c.charCodeAt(0) - 48);
    if (y > 1n << 63n) break;
    x = y;
    scale *= 10;
  }
  return Math.trunc(Number(x) * (unit / scale));
}

/** Loki's duration reading: Prometheus syntax first, then Go's. */
export function parseLokiDuration(s: string): number | { error: string } {
  const p = parsePromDuration(s);
  if (typeof p === "number") return p;
  return parseGoDuration(s);
}

/** Go `time.Duration.String()` (`1h0m0s`, `250ms`, `1.5µs`, `0s`). */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return "0s";
  const neg = ns < 0;
  let u = Math.abs(Math.round(ns));
  let out: string;
  if (u < NS_PER_SECOND) {
    // Sub-second durations use the largest unit that keeps an integer part.
    let unit: string;
    let scale: number;
    if (u < 1_000) {
      unit = "ns";
      scale = 1;
    } else if (u < NS_PER_MS) {
      unit = "µs";
      scale = 1_000;
    } else {
      unit = "ms";
      scale = NS_PER_MS;
    }
    out = fixedFraction(u, scale) + unit;
  } else {
    const h = Math.floor(u / NS_PER_HOUR);
    u -= h * NS_PER_HOUR;
    const m = Math.floor(u / NS_PER_MINUTE);
    u -= m * NS_PER_MINUTE;
    const secs = fixedFraction(u, NS_PER_SECOND) + "s";
    out = h > 0 ? `${h}h${m}m${secs}` : m > 0 ? `${m}m${secs}` : secs;
  }
  return neg ? "-" + out : out;
}

/** `v/scale` printed with the fraction's trailing zeros removed, as Go's fmtFrac does. */
function fixedFraction(v: number, scale: number): string {
  const whole = Math.floor(v / scale);
  const frac = v - whole * scale;
  if (frac === 0) return String(whole);
  const digits = String(scale).length - 1;
  return `${whole}.${String(frac).padStart(digits, "0").replace(/0+$/, "")}`;
}

/** Prometheus `model.Duration.String()`: y and w only when exact, then d h m s ms. */
export function formatPromDuration(ns: number): string {
  let ms = Math.trunc(ns / NS_PER_MS);
  if (ms === 0) return "0s";
  let sign = "";
  if (ms < 0) {
    sign = "-";
    ms = -ms;
  }
  let r = "";
  const take = (unit: string, mult: number, exact: boolean): void => {
    if (exact && ms % mult !== 0) return;
    const v = Math.floor(ms / mult);
    if (v > 0) {
      r += `${v}${unit}`;
      ms -= v * mult;
    }
  };
  take("y", NS_PER_YEAR / NS_PER_MS, true);
  take("w", NS_PER_WEEK / NS_PER_MS, true);
  take("d", NS_PER_DAY / NS_PER_MS, false);
  take("h", NS_PER_HOUR / NS_PER_MS, false);
  take("m", NS_PER_MINUTE / NS_PER_MS, false);
  take("s", NS_PER_SECOND / NS_PER_MS, false);
  take("ms", 1, false);
  return sign + r;
}

// ---------------------------------------------------------------------------------------------
// Byte sizes (go-humanize)

const BYTE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gib: 1024 ** 3,
  t: 1e12,
  tb: 1e12,
  tib: 1024 ** 4,
  p: 1e15,
  pb: 1e15,
  pib: 1024 ** 5,
  e: 1e18,
  eb: 1e18,
  eib: 1024 ** 6,
};

/** go-humanize `ParseBytes`: a decimal number, optional spaces, a case-insensitive unit. */
export function parseHumanBytes(s: string): number | undefined {
  let i = 0;
  while (i < s.length && (isAsciiDigit(s[i]) || s[i] === "." || s[i] === ",")) i++;
  const num = s.slice(0, i).replace(/,/g, "");
  if (num === "" || !/^\d*\.?\d*$/.test(num) || num === ".") return undefined;
  const unit = s.slice(i).trim().toLowerCase();
  const mult = BYTE_UNITS[unit];
  if (mult === undefined) return undefined;
  const value = Number(num) * mult;
  if (value >= 2 ** 64) return undefined;
  return Math.trunc(value);
}

/** go-humanize `Bytes` (SI units) with the space removed, as Loki prints byte filters. */
export function formatHumanBytes(bytes: number): string {
  if (bytes < 10) return `${bytes}B`;
  const sizes = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
  const e = Math.floor(Math.log(bytes) / Math.log(1000));
  const suffix = sizes[e] ?? "EB";
  const val = Math.floor((bytes / 1000 ** e) * 10 + 0.5) / 10;
  return (val < 10 ? val.toFixed(1) : val.toFixed(0)) + suffix;
}

// ---------------------------------------------------------------------------------------------
// Floats

/**
 * Go `strconv.ParseFloat(s, 64)` on the text of a NUMBER token. Returns the value or the Go error
 * text (`strconv.ParseFloat: parsing "0x10": invalid syntax`).
 */
export function parseGoFloat(s: string): number | { error: string } {
  const bad = { error: `strconv.ParseFloat: parsing ${goQuote(s)}: invalid syntax` };
  let body = s;
  let sign = 1;
  if (body[0] === "+" || body[0] === "-") {
    if (body[0] === "-") sign = -1;
    body = body.slice(1);
  }
  const lower = body.toLowerCase();
  if (lower === "inf" || lower === "infinity") return sign * Infinity;
  if (lower === "nan") return NaN;
  if (/^0x/i.test(body)) {
    // Hex floats need a binary exponent; underscores are allowed between digits after the prefix.
    const m = /^0x(_?[0-9a-f](?:_?[0-9a-f])*)?(?:\.([0-9a-f](?:_?[0-9a-f])*)?)?p([+-]?\d+)$/i.exec(body);
    if (!m || (m[1] === undefined && m[2] === undefined)) return bad;
    const mant = (m[1] ?? "").replace(/_/g, "");
    const frac = (m[2] ?? "").replace(/_/g, "");
    let v = mant === "" ? 0 : parseInt(mant, 16);
    for (let i = 0; i < frac.length; i++) v += parseInt(frac[i]!, 16) / 16 ** (i + 1);
    return sign * v * 2 ** Number(m[3]);
  }
  if (!/^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(body)) return bad;
  const v = Number(body);
  if (!Number.isFinite(v)) return { error: `strconv.ParseFloat: parsing ${goQuote(s)}: value out of range` };
  return sign * v;
}

/** Go `strconv.Atoi`: optional sign and decimal digits only. */
export function parseGoInt(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const v = Number(s);
  return Number.isSafeInteger(v) ? v : undefined;
}

/**
 * Go `fmt.Sprint(float64)` (`%v`, i.e. `strconv.FormatFloat(v, 'g', -1, 64)`): shortest digits,
 * exponent form when the decimal exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`).
 */
export function formatGoFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const exp = Math.floor(Math.log10(Math.abs(v)));
  // With the shortest digits Go's %g switches to %e when exp < -4 || exp >= 6.
  const shortest = v.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
  const m = /^(-?[\d.]+)e([+-]\d+)$/.exec(shortest);
  const realExp = m ? Number(m[2]) : exp;
  if (realExp < -4 || realExp >= 6) {
    return shortest.replace(/e([+-])(\d+)$/, (_x, sgn: string, d: string) => `e${sgn}${d.padStart(2, "0")}`);
  }
  return formatGoFloatFixed(v);
}

/** Go `strconv.FormatFloat(v, 'f', -1, 64)`: shortest digits, never an exponent. */
export function formatGoFloatFixed(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  const s = String(v);
  if (!/e/i.test(s)) return s;
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const digits = m[2]! + (m[3] ?? "");
  const e = Number(m[4]);
  if (e >= 0) return m[1] + digits.padEnd(e + 1, "0");
  return `${m[1]}0.${"0".repeat(-e - 1)}${digits}`;
}

/** Go `fmt.Sprintf("%f", v)`: six decimals. */
export function formatGoFloat6(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return v.toFixed(6);
}

// ---------------------------------------------------------------------------------------------
// Strings

/** Go `unicode.IsPrint`, approximated with Unicode general categories. */
const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u;

/** Go `strconv.Quote`: double-quoted, Go escapes, printable Unicode kept as is. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (cp === 0x20 || (cp > 0x20 && cp < 0x7f)) {
      out += ch;
    } else if (cp < 0x80 || (cp < 0x100 && !PRINTABLE.test(ch))) {
      out += cp < 0x80 ? `\\x${hex(cp, 2)}` : `\\u${hex(cp, 4)}`;
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      out += "\\ufffd"; // a lone surrogate is invalid UTF-8 in Go
    } else if (PRINTABLE.test(ch)) {
      out += ch;
    } else if (cp < 0x10000) {
      out += `\\u${hex(cp, 4)}`;
    } else {
      out += `\\U${hex(cp, 8)}`;
    }
  }
  return out + '"';
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, "0");

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * Go string-literal body decoding (`"..."` with escapes), as Prometheus `strutil.Unquote` does.
 * `body` excludes the quotes. Returns the decoded string, or undefined when an escape is invalid.
 */
export function unquoteGoString(body: string): string | undefined {
  if (!body.includes("\\")) return body;
  const bytes: number[] = [];
  const pushText = (t: string): void => {
    for (const b of utf8.encode(t)) bytes.push(b);
  };
  let i = 0;
  while (i < body.length) {
    const c = body[i]!;
    if (c !== "\\") {
      const cp = body.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      pushText(ch);
      i += ch.length;
      continue;
    }
    const e = body[i + 1];
    i += 2;
    switch (e) {
      case "a":
        bytes.push(7);
        break;
      case "b":
        bytes.push(8);
        break;
      case "f":
        bytes.push(12);
        break;
      case "n":
        bytes.push(10);
        break;
      case "r":
        bytes.push(13);
        break;
      case "t":
        bytes.push(9);
        break;
      case "v":
        bytes.push(11);
        break;
      case "\\":
        bytes.push(92);
        break;
      case '"':
        bytes.push(34);
        break;
      case "x": {
        const h = body.slice(i, i + 2);
        if (!/^[0-9a-fA-F]{2}$/.test(h)) return undefined;
        bytes.push(parseInt(h, 16));
        i += 2;
        break;
      }
      case "u":
      case "U": {
        const n = e === "u" ? 4 : 8;
        const h = body.slice(i, i + n);
        if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(h)) return undefined;
        const cp = parseInt(h, 16);
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return undefined;
        pushText(String.fromCodePoint(cp));
        i += n;
        break;
      }
      default: {
        if (e !== undefined && e >= "0" && e <= "7") {
          const o = body.slice(i - 1, i + 2);
          if (!/^[0-7]{3}$/.test(o)) return undefined;
          const v = parseInt(o, 8);
          if (v > 255) return undefined;
          bytes.push(v);
          i += 2;
          break;
        }
        return undefined;
      }
    }
  }
  return utf8Decoder.decode(new Uint8Array(bytes));
}

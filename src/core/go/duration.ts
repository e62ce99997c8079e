/**
 * Durations as Loki reads and prints them: Go's time.ParseDuration and Duration.String, and
 * Prometheus' model.ParseDuration and model.Duration.String (the `[5m]` and `1d` forms). Go does
 * this arithmetic on uint64 nanoseconds, so the exact path here uses bigint; a number path covers
 * the everyday inputs whose every step stays below 2^53, where doubles are exact too.
 */
import { failure, type ParseResult } from "./result";
import { quote } from "./strconv";

export const NS_PER_MS = 1_000_000;
export const NS_PER_SECOND = 1_000_000_000;
const NS_PER_MINUTE = 60 * NS_PER_SECOND;
const NS_PER_HOUR = 60 * NS_PER_MINUTE;
const NS_PER_DAY = 24 * NS_PER_HOUR;
const NS_PER_WEEK = 7 * NS_PER_DAY;
const NS_PER_YEAR = 365 * NS_PER_DAY;

const TWO_63 = 1n << 63n;
const MAX_INT64 = TWO_63 - 1n;

const utf8 = new TextEncoder();

/**
 * The time package's own quoting (not strconv.Quote): `"` and `\` escaped, and every byte of a
 * control or non-ASCII character written as `\xNN`. Duration errors carry it.
 */
export function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x80 || cp < 0x20) {
      for (const b of utf8.encode(ch)) out += "\\x" + b.toString(16).padStart(2, "0");
    } else out += ch === '"' || ch === "\\" ? "\\" + ch : ch;
  }
  return out + '"';
}

// ---------------------------------------------------------------------------------------------
// Go: time.ParseDuration

const GO_UNITS: Record<string, number> = {
  ns: 1,
  us: 1_000,
  "\u00b5s": 1_000, // micro sign
  "\u03bcs": 1_000, // Greek mu
  ms: NS_PER_MS,
  s: NS_PER_SECOND,
  m: NS_PER_MINUTE,
  h: NS_PER_HOUR,
};

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** Go's `float64(unit) / scale` needs scale built by repeated ×10, as Go builds it. */
function tenTo(n: number): number {
  let scale = 1;
  for (let i = 0; i < n; i++) scale *= 10;
  return scale;
}

/**
 * Nanoseconds as a double when every intermediate of Go's arithmetic is an exact double (digit
 * runs of at most 15 digits, sums below 2^53), else undefined: the caller takes the bigint path,
 * which also produces the errors.
 */
function parseDurationFast(orig: string): number | undefined {
  let i = 0;
  const n = orig.length;
  let neg = false;
  if (n > 0 && (orig[0] === "-" || orig[0] === "+")) {
    neg = orig[0] === "-";
    i = 1;
  }
  if (i === n) return undefined;
  if (i === n - 1 && orig[i] === "0") return 0;
  let total = 0;
  while (i < n) {
    const intStart = i;
    while (i < n && isDigit(orig.charCodeAt(i))) i++;
    const intLen = i - intStart;
    let fracStart = i;
    let fracLen = 0;
    if (i < n && orig[i] === ".") {
      fracStart = ++i;
      while (i < n && isDigit(orig.charCodeAt(i))) i++;
      fracLen = i - fracStart;
    }
    if ((intLen === 0 && fracLen === 0) || intLen > 15 || fracLen > 15) return undefined;
    const unitStart = i;
    while (i < n && orig[i] !== "." && !isDigit(orig.charCodeAt(i))) i++;
    const unit = GO_UNITS[orig.slice(unitStart, i)];
    if (unit === undefined) return undefined;
    const v = intLen === 0 ? 0 : Number(orig.slice(intStart, intStart + intLen));
    if (v > Number.MAX_SAFE_INTEGER / unit) return undefined;
    let part = v * unit;
    if (fracLen > 0) {
      const f = Number(orig.slice(fracStart, fracStart + fracLen));
      // Go: uint64(float64(f) * (float64(unit) / scale)), truncated.
      if (f > 0) part += Math.trunc(f * (unit / tenTo(fracLen)));
    }
    total += part;
    if (total > Number.MAX_SAFE_INTEGER) return undefined;
  }
  return neg && total !== 0 ? -total : total;
}

/** Go's ParseDuration step by step on uint64 values (bigint): the nanoseconds or Go's error text. */
function parseDurationExact(orig: string): bigint | (() => string) {
  const invalid = () => `time: invalid duration ${timeQuote(orig)}`;
  let s = orig;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") return invalid;
  let d = 0n;
  while (s !== "") {
    if (!(s[0] === "." || isDigit(s.charCodeAt(0)))) return invalid;
    let i = 0;
    while (i < s.length && isDigit(s.charCodeAt(i))) i++;
    const pre = i > 0;
    // Go's leadingInt fails exactly when the digits' value passes 2^63.
    let v = pre ? BigInt(s.slice(0, i)) : 0n;
    if (v > TWO_63) return invalid;
    s = s.slice(i);
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === ".") {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      // Go's leadingFraction: digits past int64's precision are read and ignored.
      while (j < s.length && isDigit(s.charCodeAt(j))) {
        if (!overflow) {
          const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
          if (f > MAX_INT64 / 10n || y > TWO_63) overflow = true;
          else {
            f = y;
            scale *= 10;
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) return invalid;
    let u = 0;
    while (u < s.length && !(s[u] === "." || isDigit(s.charCodeAt(u)))) u++;
    if (u === 0) return () => `time: missing unit in duration ${timeQuote(orig)}`;
    const unitName = s.slice(0, u);
    s = s.slice(u);
    const unitNs = GO_UNITS[unitName];
    if (unitNs === undefined) return () => `time: unknown unit ${timeQuote(unitName)} in duration ${timeQuote(orig)}`;
    const unit = BigInt(unitNs);
    if (v > TWO_63 / unit) return invalid;
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (unitNs / scale)));
      if (v > TWO_63) return invalid;
    }
    d += v;
    if (d > TWO_63) return invalid;
  }
  if (neg) return -d;
  if (d > MAX_INT64) return invalid;
  return d;
}

/** time.ParseDuration: nanoseconds, exactly. */
export function parseDuration(s: string): ParseResult<bigint> {
  const fast = parseDurationFast(s);
  if (fast !== undefined) return { ok: true, value: BigInt(fast) };
  const r = parseDurationExact(s);
  return typeof r === "bigint" ? { ok: true, value: r } : failure(r);
}

/**
 * time.ParseDuration with the nanoseconds as a double (exact below 2^53, about 104 days; the
 * nearest double beyond), for per-line filters and unwraps that compare numbers.
 */
export function parseDurationNs(s: string): ParseResult<number> {
  const fast = parseDurationFast(s);
  if (fast !== undefined) return { ok: true, value: fast };
  const r = parseDurationExact(s);
  return typeof r === "bigint" ? { ok: true, value: Number(r) } : failure(r);
}

/**
 * Duration.Seconds(): whole seconds plus the fraction, each converted separately as Go does (this
 * can differ from ns / 1e9 in the last bit). Number input must be an integer.
 */
export function durationSeconds(ns: bigint | number): number {
  if (typeof ns === "bigint") return Number(ns / 1_000_000_000n) + Number(ns % 1_000_000_000n) / 1e9;
  // % and the division of a multiple of 1e9 are exact on integer doubles.
  const nsec = ns % NS_PER_SECOND;
  return (ns - nsec) / NS_PER_SECOND + nsec / 1e9;
}

/** Go's fmtFrac: v/10^prec with the fraction's trailing zeros (and a bare dot) dropped. */
function withFraction(v: bigint, prec: number): string {
  const scale = 10n ** BigInt(prec);
  const whole = v / scale;
  const frac = v % scale;
  if (frac === 0n) return whole.toString();
  return `${whole}.${frac.toString().padStart(prec, "0").replace(/0+$/, "")}`;
}

/** Go's Duration.String(): `1h0m0s`, `1m30s`, `250ms`, `1.5µs`, `0s`. */
export function formatDuration(ns: number | bigint): string {
  const d = typeof ns === "bigint" ? ns : BigInt(Math.round(ns));
  if (d === 0n) return "0s";
  const neg = d < 0n;
  const u = neg ? -d : d;
  let out: string;
  if (u < 1_000_000_000n) {
    // Below a second: the largest unit that keeps an integer part.
    if (u < 1_000n) out = `${u}ns`;
    else if (u < 1_000_000n) out = `${withFraction(u, 3)}µs`;
    else out = `${withFraction(u, 6)}ms`;
  } else {
    const secs = `${withFraction(u % 60_000_000_000n, 9)}s`;
    const minutes = u / 60_000_000_000n;
    const h = minutes / 60n;
    const m = minutes % 60n;
    out = h > 0n ? `${h}h${m}m${secs}` : m > 0n ? `${m}m${secs}` : secs;
  }
  return neg ? "-" + out : out;
}

// ---------------------------------------------------------------------------------------------
// Prometheus: model.ParseDuration, model.Duration.String

/** Prometheus units in the only order model.ParseDuration accepts them (biggest first). */
const PROM_UNITS: Record<string, { pos: number; ns: bigint }> = {
  y: { pos: 1, ns: BigInt(NS_PER_YEAR) },
  w: { pos: 2, ns: BigInt(NS_PER_WEEK) },
  d: { pos: 3, ns: BigInt(NS_PER_DAY) },
  h: { pos: 4, ns: BigInt(NS_PER_HOUR) },
  m: { pos: 5, ns: BigInt(NS_PER_MINUTE) },
  s: { pos: 6, ns: BigInt(NS_PER_SECOND) },
  ms: { pos: 7, ns: BigInt(NS_PER_MS) },
};

/**
 * Prometheus model.ParseDuration: integer components, units y w d h m s ms each at most once and
 * biggest first, `0` alone allowed; nanoseconds or its error text.
 */
export function parsePromDuration(orig: string): ParseResult<bigint> {
  if (orig === "0") return { ok: true, value: 0n };
  if (orig === "") return { ok: false, error: "empty duration string" };
  const invalid = { ok: false as const, error: `not a valid duration string: ${quote(orig)}` };
  const outOfRange = { ok: false as const, error: "duration out of range" };
  let s = orig;
  let total = 0n;
  let lastPos = 0;
  while (s !== "") {
    let i = 0;
    while (i < s.length && isDigit(s.charCodeAt(i))) i++;
    if (i === 0) return invalid;
    const v = BigInt(s.slice(0, i));
    if (v >= 1n << 64n) return invalid; // strconv.ParseUint's range error
    s = s.slice(i);
    let j = 0;
    while (j < s.length && !isDigit(s.charCodeAt(j))) j++;
    if (j === 0) return invalid;
    const unitText = s.slice(0, j);
    s = s.slice(j);
    const unit = PROM_UNITS[unitText];
    if (unit === undefined) {
      return { ok: false, error: `unknown unit ${quote(unitText)} in duration ${quote(orig)}` };
    }
    if (unit.pos <= lastPos) return invalid;
    lastPos = unit.pos;
    if (v > TWO_63 / unit.ns) return outOfRange;
    total += v * unit.ns;
    if (total > MAX_INT64) return outOfRange;
  }
  return { ok: true, value: total };
}

/**
 * Prometheus model.Duration.String(): y and w only when exact, then d h m s ms. Below zero
 * Prometheus prints nothing; the sign is kept here so a negative value stays readable.
 */
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

/** Loki's duration reading in queries: Prometheus syntax first, then Go's (whose error is reported). */
export function parseLokiDuration(s: string): ParseResult<bigint> {
  const p = parsePromDuration(s);
  return p.ok ? p : parseDuration(s);
}

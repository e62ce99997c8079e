/**
 * Go's number, duration and byte-size parsers as Loki calls them on label values, with Go's
 * exact acceptance rules and error texts: these texts surface verbatim in `__error_details__`.
 */

export type ParseResult = { ok: true; value: number } | { ok: false; error: string };

/**
 * A failed parse whose message (which quotes the whole input) is built only when read: most
 * callers only ask whether a value parses, and quoting a 1 MB label for nothing took 150 ms.
 */
function failure(message: () => string): ParseResult {
  return {
    ok: false,
    get error() {
      return message();
    },
  };
}

/** Go's strconv.Quote for the common case: ASCII printable kept, `"`/`\` and controls escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (c === 7) out += "\\a";
    else if (c === 8) out += "\\b";
    else if (c === 12) out += "\\f";
    else if (c === 11) out += "\\v";
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else if (c === 0xfffd) out += "\\ufffd";
    else out += ch;
  }
  return out + '"';
}

// Each digit run has one place to end (the fraction starts at its dot), so V8 never backtracks
// through a split of the same digits: a long run of digits that fails to parse stays linear.
const DECIMAL_FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/;

function floatSyntaxError(s: string): ParseResult {
  return failure(() => `strconv.ParseFloat: parsing ${goQuote(s)}: invalid syntax`);
}

/** strconv.ParseFloat(s, 64). Out-of-range values are an error, as in Go. */
export function parseGoFloat(s: string): ParseResult {
  if (s.length === 0) return floatSyntaxError(s);
  if (DECIMAL_FLOAT.test(s)) {
    const v = Number(s);
    if (!Number.isFinite(v)) {
      return failure(() => `strconv.ParseFloat: parsing ${goQuote(s)}: value out of range`);
    }
    return { ok: true, value: v };
  }
  const lower = s.toLowerCase();
  const unsigned = lower[0] === "+" || lower[0] === "-" ? lower.slice(1) : lower;
  if (unsigned === "inf" || unsigned === "infinity") {
    return { ok: true, value: lower[0] === "-" ? -Infinity : Infinity };
  }
  if (lower === "nan") return { ok: true, value: NaN };
  const hex = HEX_FLOAT.exec(s);
  if (hex && (hex[2]!.length > 0 || (hex[3] ?? "").length > 0)) {
    const intPart = hex[2]!;
    const frac = hex[3] ?? "";
    let mant = 0;
    for (const d of intPart + frac) mant = mant * 16 + parseInt(d, 16);
    const v = mant * Math.pow(2, Number(hex[4]) - 4 * frac.length);
    if (!Number.isFinite(v)) {
      return failure(() => `strconv.ParseFloat: parsing ${goQuote(s)}: value out of range`);
    }
    return { ok: true, value: hex[1] === "-" ? -v : v };
  }
  return floatSyntaxError(s);
}

const NS_PER_UNIT: Record<string, number> = {
  ns: 1,
  us: 1e3,
  "\u00b5s": 1e3,
  "\u03bcs": 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

const MAX_DURATION_NS = 2 ** 63; // the double nearest int64 max

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** time.ParseDuration: nanoseconds (as a double) or Go's error text. */
export function parseGoDuration(orig: string): ParseResult {
  const invalid = (): ParseResult => failure(() => `time: invalid duration ${goQuote(orig)}`);
  let s = orig;
  let neg = false;
  if (s.length > 0 && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return { ok: true, value: 0 };
  if (s === "") return invalid();
  let total = 0;
  while (s.length > 0) {
    if (!(s[0] === "." || isDigit(s[0]))) return invalid();
    let i = 0;
    while (isDigit(s[i])) i++;
    const pre = i > 0;
    const intText = s.slice(0, i);
    s = s.slice(i);
    let fracText = "";
    let post = false;
    if (s[0] === ".") {
      s = s.slice(1);
      let j = 0;
      while (isDigit(s[j])) j++;
      post = j > 0;
      fracText = s.slice(0, j);
      s = s.slice(j);
    }
    if (!pre && !post) return invalid();
    let u = 0;
    while (u < s.length && s[u] !== "." && !isDigit(s[u])) {
      // Longer than every unit Go knows ("ms", "µs"): no need to read a long value to its end.
      if (++u > 2) return unknownUnit(s, orig);
    }
    const unit = s.slice(0, u);
    s = s.slice(u);
    if (unit === "") return failure(() => `time: missing unit in duration ${goQuote(orig)}`);
    const scale = NS_PER_UNIT[unit];
    if (scale === undefined) return unknownUnit(unit, orig);
    const whole = intText === "" ? 0 : Number(intText);
    if (whole > MAX_DURATION_NS / scale) return invalid();
    const frac = fracText === "" ? 0 : Number("0." + fracText);
    total += whole * scale + Math.trunc(frac * scale);
    if (total > MAX_DURATION_NS) return invalid();
  }
  return { ok: true, value: neg ? -total : total };
}

/** Go's error for the unit at the start of `rest` (the run of characters up to a digit or a dot). */
function unknownUnit(rest: string, orig: string): ParseResult {
  return failure(() => {
    let u = 0;
    while (u < rest.length && rest[u] !== "." && !isDigit(rest[u])) u++;
    return `time: unknown unit ${goQuote(rest.slice(0, u))} in duration ${goQuote(orig)}`;
  });
}

const BYTE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  ki: 1024,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mi: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gi: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1e12,
  tb: 1e12,
  ti: 1024 ** 4,
  tib: 1024 ** 4,
  p: 1e15,
  pb: 1e15,
  pi: 1024 ** 5,
  pib: 1024 ** 5,
  e: 1e18,
  eb: 1e18,
  ei: 1024 ** 6,
  eib: 1024 ** 6,
};

/** go-humanize ParseBytes: `10KB` is 10000, `10KiB` 10240; the number part may hold commas. */
export function parseHumanBytes(s: string): ParseResult {
  let end = 0;
  while (end < s.length && (isDigit(s[end]) || s[end] === "." || s[end] === ",")) end++;
  const num = s.slice(0, end).replaceAll(",", "");
  const f = parseGoFloat(num);
  if (!f.ok) return f;
  const rest = s.slice(end);
  // Units are at most three letters: a longer rest without spaces to trim is none of them.
  const unit = rest.length > 3 && !/^\s|\s$/.test(rest) ? rest : rest.trim().toLowerCase();
  const mult = unit.length > 3 ? undefined : BYTE_UNITS[unit];
  if (mult === undefined) return failure(() => `unhandled size name: ${rest.trim().toLowerCase()}`);
  const v = f.value * mult;
  if (v >= 2 ** 64) return failure(() => `too large: ${s}`);
  return { ok: true, value: Math.trunc(v) };
}

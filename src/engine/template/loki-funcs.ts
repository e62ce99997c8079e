/**
 * Loki's template function set: its own functions (__line__, __timestamp__, the Go strings
 * helpers, regexReplaceAll, count, bytes, duration, unixToTime, ...) and the sprig functions it
 * imports, each with the argument order and edge-case behaviour of the Go implementation.
 */

import { toFloat64, toInt64 } from "./cast";
import { decimalAdd, decimalDiv, decimalFromFloat, decimalMul, decimalSub, decimalToFloat } from "./decimal";
import { FuncError, TEMPLATE_OUTPUT_LIMIT, type GoFunc } from "./funcs";
import { parseBytes } from "../../core/go/bytes";
import { durationSeconds, parseDuration } from "../../core/go/duration";
import { floorDiv } from "../../core/go/intdiv";
import { quote as goQuote } from "../../core/go/strconv";
import { GoTime, UTC, loadLocation, parseTime, zeroTime } from "./gotime";
import { countMatches, regexReplace } from "./regex-funcs";
import { queryEscape, queryUnescape } from "./urlcodec";
import { GoInt, GoMap, GoSlice, fromUtf8, goInt, goInt64, isAscii, isTrue, utf8Bytes, type GoValue } from "./values";

// ---------------------------------------------------------------------------------------------
// Go's strings package

const isAsciiLetterOrDigit = (c: string): boolean => /^[0-9A-Za-z_]$/.test(c);

/** unicode.IsSpace. */
function isGoSpace(cp: number): boolean {
  switch (cp) {
    case 0x09:
    case 0x0a:
    case 0x0b:
    case 0x0c:
    case 0x0d:
    case 0x20:
    case 0x85:
    case 0xa0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202f:
    case 0x205f:
    case 0x3000:
      return true;
  }
  return cp >= 0x2000 && cp <= 0x200a;
}

/** Case mapping rune by rune: Go has no context rules (final sigma) and no expansions (ß stays ß). */
function mapCase(s: string, upper: boolean): string {
  if (isAscii(s)) return upper ? s.toUpperCase() : s.toLowerCase();
  let out = "";
  for (const ch of s) {
    if (!upper && ch === "\u0130") {
      out += "i";
      continue;
    }
    const m = upper ? ch.toUpperCase() : ch.toLowerCase();
    out += [...m].length === 1 ? m : ch;
  }
  return out;
}

export const toLower = (s: string): string => mapCase(s, false);
export const toUpper = (s: string): string => mapCase(s, true);

/** Title case differs from upper case only for the Latin digraphs (ǆ → ǅ). */
const TITLE_DIGRAPHS: Record<string, string> = {
  "\u01c4": "\u01c5",
  "\u01c5": "\u01c5",
  "\u01c6": "\u01c5",
  "\u01c7": "\u01c8",
  "\u01c8": "\u01c8",
  "\u01c9": "\u01c8",
  "\u01ca": "\u01cb",
  "\u01cb": "\u01cb",
  "\u01cc": "\u01cb",
  "\u01f1": "\u01f2",
  "\u01f2": "\u01f2",
  "\u01f3": "\u01f2",
};

function title(s: string): string {
  let prevSep = true;
  let out = "";
  for (const ch of s) {
    out += prevSep ? (TITLE_DIGRAPHS[ch] ?? mapCase(ch, true)) : ch;
    const cp = ch.codePointAt(0)!;
    if (cp <= 0x7f) prevSep = !isAsciiLetterOrDigit(ch);
    else if (/^[\p{L}\p{Nd}]$/u.test(ch)) prevSep = false;
    else prevSep = isGoSpace(cp);
  }
  return out;
}

function trimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isGoSpace(s.codePointAt(start)!)) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

function trimCutset(s: string, cutset: string, left: boolean, right: boolean): string {
  if (s === "" || cutset === "") return s;
  const set = new Set(cutset);
  const chars = [...s];
  let start = 0;
  let end = chars.length;
  if (left) while (start < end && set.has(chars[start]!)) start++;
  if (right) while (end > start && set.has(chars[end - 1]!)) end--;
  return chars.slice(start, end).join("");
}

/** strings.Replace(s, old, new, n); an empty `old` inserts before every rune. */
function replace(s: string, old: string, repl: string, n: number): string {
  if (old === repl || n === 0) return s;
  if (repl.length > old.length) {
    // Each replacement grows the string: refuse before building what could not be returned.
    const occurrences = old === "" ? [...s].length + 1 : s.split(old).length - 1;
    if (s.length + occurrences * (repl.length - old.length) > TEMPLATE_OUTPUT_LIMIT) {
      throw new FuncError(`result exceeds the limit of ${TEMPLATE_OUTPUT_LIMIT} characters`);
    }
  }
  if (old === "") {
    const chars = [...s];
    let out = "";
    let done = 0;
    for (let i = 0; i <= chars.length; i++) {
      if (n < 0 || done < n) {
        out += repl;
        done++;
      }
      if (i < chars.length) out += chars[i];
    }
    return out;
  }
  if (n < 0) return s.split(old).join(repl);
  let out = "";
  let from = 0;
  for (let done = 0; done < n; done++) {
    const at = s.indexOf(old, from);
    if (at < 0) break;
    out += s.slice(from, at) + repl;
    from = at + old.length;
  }
  return out + s.slice(from);
}

function repeat(s: string, count: bigint): string {
  if (count < 0n) throw new FuncError("strings: negative Repeat count");
  // Refused before the string is built (the call's result is bounded too, but only once it exists).
  if (BigInt(s.length) * count > BigInt(TEMPLATE_OUTPUT_LIMIT)) {
    throw new FuncError(`result exceeds the limit of ${TEMPLATE_OUTPUT_LIMIT} characters`);
  }
  return s.repeat(Number(count));
}

// ---------------------------------------------------------------------------------------------
// sprig string helpers (byte-oriented where sprig slices Go strings)

function sliceBytes(s: string, from: number, to: number): string {
  if (isAscii(s)) return s.slice(from, to);
  return fromUtf8(utf8Bytes(s).slice(from, to));
}

function byteLength(s: string): number {
  return isAscii(s) ? s.length : utf8Bytes(s).length;
}

function trunc(c: bigint, s: string): string {
  const len = byteLength(s);
  const n = Number(c);
  if (n < 0 && len + n > 0) return sliceBytes(s, len + n, len);
  if (n >= 0 && len > n) return sliceBytes(s, 0, n);
  return s;
}

function substr(startB: bigint, endB: bigint, s: string): string {
  const len = byteLength(s);
  const start = Number(startB);
  const end = Number(endB);
  const oob = (lo: number | string, hi: number | string): FuncError =>
    new FuncError(`runtime error: slice bounds out of range [${lo}:${hi}]`);
  if (start < 0) {
    if (end < 0) throw new FuncError(`runtime error: slice bounds out of range [:${end}]`);
    if (end > len) throw new FuncError(`runtime error: slice bounds out of range [:${end}] with length ${len}`);
    return sliceBytes(s, 0, end);
  }
  if (end < 0 || end > len) {
    if (start > len) throw new FuncError(`runtime error: slice bounds out of range [${start}:${len}]`);
    return sliceBytes(s, start, len);
  }
  if (start > end) throw oob(start, end);
  return sliceBytes(s, start, end);
}

function indent(spaces: bigint, s: string): string {
  if (spaces < 0n) throw new FuncError("strings: negative Repeat count");
  const lines = BigInt(s.split("\n").length);
  if (spaces * lines + BigInt(s.length) > BigInt(TEMPLATE_OUTPUT_LIMIT)) {
    throw new FuncError(`result exceeds the limit of ${TEMPLATE_OUTPUT_LIMIT} characters`);
  }
  const pad = " ".repeat(Number(spaces));
  return pad + s.split("\n").join("\n" + pad);
}

function alignLeft(count: bigint, s: string): string {
  const chars = [...s];
  const n = Number(count);
  if (n > TEMPLATE_OUTPUT_LIMIT) throw new FuncError(`result exceeds the limit of ${TEMPLATE_OUTPUT_LIMIT} characters`);
  if (n < 0 || n === chars.length) return s;
  if (n > chars.length) return s + " ".repeat(n - chars.length);
  return chars.slice(0, n).join("");
}

function alignRight(count: bigint, s: string): string {
  const chars = [...s];
  const n = Number(count);
  if (n < 0 || n === chars.length) return s;
  if (n > chars.length) return " ".repeat(n - chars.length) + s;
  return chars.slice(chars.length - n).join("");
}

// ---------------------------------------------------------------------------------------------
// base64 (Go's StdEncoding, strict about padding and stray characters)

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function b64enc(s: string): string {
  const bytes = utf8Bytes(s);
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    out += B64[a >> 2]! + B64[((a & 3) << 4) | ((b ?? 0) >> 4)]!;
    out += b === undefined ? "=" : B64[((b & 15) << 2) | ((c ?? 0) >> 6)]!;
    out += c === undefined ? "=" : B64[c & 63]!;
  }
  return out;
}

/** sprig returns the decoder's error text instead of failing. */
function b64dec(s: string): string {
  // Go's decoder skips \r and \n anywhere
  const input = s.replace(/[\r\n]/g, "");
  const offsets: number[] = [];
  for (let i = 0, j = 0; i < s.length; i++) if (s[i] !== "\r" && s[i] !== "\n") offsets[j++] = i;
  const out: number[] = [];
  let i = 0;
  while (i < input.length) {
    const quantum: number[] = [];
    let j = 0;
    for (; j < 4; j++) {
      if (i === input.length) {
        if (j === 0) return fromUtf8(new Uint8Array(out));
        return `illegal base64 data at input byte ${s.length - j}`;
      }
      const ch = input[i]!;
      const v = B64.indexOf(ch);
      if (v >= 0) {
        quantum.push(v);
        i++;
        continue;
      }
      if (ch === "=" && j >= 2) {
        // padding: "==" after two symbols, "=" after three, then nothing more
        if (j === 2) {
          if (i + 1 >= input.length) return `illegal base64 data at input byte ${s.length}`;
          if (input[i + 1] !== "=") return `illegal base64 data at input byte ${offsets[i]!}`;
          i += 2;
        } else i += 1;
        if (i < input.length) return `illegal base64 data at input byte ${offsets[i]!}`;
        break;
      }
      return `illegal base64 data at input byte ${offsets[i]!}`;
    }
    const [a, b, c, d] = quantum;
    out.push((a! << 2) | (b! >> 4));
    if (c !== undefined) out.push(((b! & 15) << 4) | (c >> 2));
    if (d !== undefined) out.push(((c! & 3) << 6) | d);
    if (quantum.length < 4) break;
  }
  return fromUtf8(new Uint8Array(out));
}

// ---------------------------------------------------------------------------------------------
// Numbers

function floatOp(op: "add" | "sub" | "mul" | "div", first: GoValue, rest: GoValue[]): number {
  let acc = decimalFromFloat(toFloat64(first));
  for (const v of rest) {
    const d = decimalFromFloat(toFloat64(v));
    acc =
      op === "add"
        ? decimalAdd(acc, d)
        : op === "sub"
          ? decimalSub(acc, d)
          : op === "mul"
            ? decimalMul(acc, d)
            : decimalDiv(acc, d);
  }
  return decimalToFloat(acc);
}

function intDiv(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new FuncError("runtime error: integer divide by zero");
  return BigInt.asIntN(64, a / b);
}

function intMod(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new FuncError("runtime error: integer divide by zero");
  return a % b;
}

function round(a: GoValue, places: bigint, rest: GoValue[]): number {
  const roundOn = rest.length > 0 ? (rest[0] as number) : 0.5;
  const val = toFloat64(a);
  const pow = Math.pow(10, Number(places));
  const digit = pow * val;
  const frac = digit - Math.trunc(digit);
  const r = frac >= roundOn ? Math.ceil(digit) : Math.floor(digit);
  return r / pow;
}

/** go-humanize ParseBytes: "42 MB", "1.5KiB", "1,000"; the result is truncated to whole bytes. */
function bytesOf(s: string): number {
  const r = parseBytes(s);
  if (!r.ok) throw new FuncError(r.error);
  return r.value;
}

// ---------------------------------------------------------------------------------------------
// Time

const NS = 1_000_000_000n;

function timeArgForDate(v: GoValue): GoTime {
  if (v instanceof GoTime) return v;
  if (v instanceof GoInt && v.type !== "uint8") return new GoTime(v.v * NS, UTC);
  return new GoTime(BigInt(Date.now()) * 1_000_000n, UTC);
}

function unixToTime(epoch: string): GoTime {
  const m = /^[+-]?[0-9]+$/.test(epoch) ? BigInt(epoch) : null;
  if (m === null)
    throw new FuncError(`unable to parse time '${epoch}': strconv.ParseInt: parsing ${goQuote(epoch)}: invalid syntax`);
  if (m < -(1n << 63n) || m >= 1n << 63n) {
    throw new FuncError(
      `unable to parse time '${epoch}': strconv.ParseInt: parsing ${goQuote(epoch)}: value out of range`,
    );
  }
  switch (utf8Bytes(epoch).length) {
    case 5:
      return new GoTime(m * 86400n * NS, UTC);
    case 10:
      return new GoTime(m * NS, UTC);
    case 13:
      return new GoTime(BigInt.asIntN(64, m * 1_000_000n), UTC);
    case 16:
      return new GoTime(BigInt.asIntN(64, m * 1000n), UTC);
    case 19:
      return new GoTime(m, UTC);
  }
  throw new FuncError(`unable to parse time '${epoch}': %!w(<nil>)`);
}

// ---------------------------------------------------------------------------------------------
// JSON

function fromJson(s: string): GoValue {
  let parsed: unknown;
  try {
    parsed = JSON.parse(s);
  } catch {
    return undefined;
  }
  const convert = (v: unknown): GoValue | false => {
    if (v === null) return null;
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        return Number.isFinite(v) ? v : false;
    }
    if (Array.isArray(v)) {
      const items: GoValue[] = [];
      for (const x of v) {
        const c = convert(x);
        if (c === false) return false;
        items.push(c);
      }
      return new GoSlice(items);
    }
    const m = new Map<string, GoValue>();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const c = convert(x);
      if (c === false) return false;
      m.set(k, c);
    }
    return new GoMap(m);
  };
  const out = convert(parsed);
  return out === false || out === null ? undefined : out;
}

// ---------------------------------------------------------------------------------------------

const str = (v: GoValue): string => v as string;
const int = (v: GoValue): bigint => (v as GoInt).v;
const time = (v: GoValue): GoTime => v as GoTime;

function isEmpty(v: GoValue): boolean {
  return !isTrue(v) && !(v instanceof GoTime);
}

export const LOKI_FUNCS: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  ["__line__", { params: [], fn: (_a, env) => env.line, readsLine: true }],
  ["__timestamp__", { params: [], fn: (_a, env) => new GoTime(env.ts, UTC), readsTimestamp: true }],

  // Go strings functions under their Go names (Loki's original set)
  ["ToLower", { params: ["string"], fn: (a) => toLower(str(a[0])) }],
  ["ToUpper", { params: ["string"], fn: (a) => toUpper(str(a[0])) }],
  [
    "Replace",
    {
      params: ["string", "string", "string", "int"],
      fn: (a) => replace(str(a[0]), str(a[1]), str(a[2]), Number(int(a[3]))),
    },
  ],
  ["Trim", { params: ["string", "string"], fn: (a) => trimCutset(str(a[0]), str(a[1]), true, true) }],
  ["TrimLeft", { params: ["string", "string"], fn: (a) => trimCutset(str(a[0]), str(a[1]), true, false) }],
  ["TrimRight", { params: ["string", "string"], fn: (a) => trimCutset(str(a[0]), str(a[1]), false, true) }],
  [
    "TrimPrefix",
    {
      params: ["string", "string"],
      fn: (a) => (str(a[0]).startsWith(str(a[1])) ? str(a[0]).slice(str(a[1]).length) : str(a[0])),
    },
  ],
  [
    "TrimSuffix",
    {
      params: ["string", "string"],
      fn: (a) =>
        str(a[1]) !== "" && str(a[0]).endsWith(str(a[1])) ? str(a[0]).slice(0, -str(a[1]).length) : str(a[0]),
    },
  ],
  ["TrimSpace", { params: ["string"], fn: (a) => trimSpace(str(a[0])) }],

  // regular expressions (Go RE2 syntax)
  [
    "regexReplaceAll",
    { params: ["string", "string", "string"], fn: (a) => regexReplace(str(a[0]), str(a[1]), str(a[2]), true) },
  ],
  [
    "regexReplaceAllLiteral",
    { params: ["string", "string", "string"], fn: (a) => regexReplace(str(a[0]), str(a[1]), str(a[2]), false) },
  ],
  ["count", { params: ["string", "string"], fn: (a) => goInt(countMatches(str(a[0]), str(a[1]))) }],

  ["urldecode", { params: ["string"], fn: (a) => queryUnescape(str(a[0])) }],
  ["urlencode", { params: ["string"], fn: (a) => queryEscape(str(a[0])) }],
  ["bytes", { params: ["string"], fn: (a) => bytesOf(str(a[0])) }],
  ["duration", { params: ["string"], fn: (a) => durationOf(str(a[0])) }],
  ["duration_seconds", { params: ["string"], fn: (a) => durationOf(str(a[0])) }],
  [
    "unixEpochMillis",
    { params: ["time"], fn: (a) => BigInt.asIntN(64, floorDiv(time(a[0]).ns, 1_000_000n)).toString() },
  ],
  ["unixEpochNanos", { params: ["time"], fn: (a) => BigInt.asIntN(64, time(a[0]).ns).toString() }],
  [
    "toDateInZone",
    {
      params: ["string", "string", "string"],
      fn: (a) => parseTime(str(a[0]), str(a[2]), loadLocation(str(a[1]))) ?? zeroTime(),
    },
  ],
  ["unixToTime", { params: ["string"], fn: (a) => unixToTime(str(a[0])) }],
  ["alignLeft", { params: ["int", "string"], fn: (a) => alignLeft(int(a[0]), str(a[1])) }],
  ["alignRight", { params: ["int", "string"], fn: (a) => alignRight(int(a[0]), str(a[1])) }],

  // sprig
  ["b64enc", { params: ["string"], fn: (a) => b64enc(str(a[0])) }],
  ["b64dec", { params: ["string"], fn: (a) => b64dec(str(a[0])) }],
  ["lower", { params: ["string"], fn: (a) => toLower(str(a[0])) }],
  ["upper", { params: ["string"], fn: (a) => toUpper(str(a[0])) }],
  ["title", { params: ["string"], fn: (a) => title(str(a[0])) }],
  ["trunc", { params: ["int", "string"], fn: (a) => trunc(int(a[0]), str(a[1])) }],
  ["substr", { params: ["int", "int", "string"], fn: (a) => substr(int(a[0]), int(a[1]), str(a[2])) }],
  ["contains", { params: ["string", "string"], fn: (a) => str(a[1]).includes(str(a[0])) }],
  ["hasPrefix", { params: ["string", "string"], fn: (a) => str(a[1]).startsWith(str(a[0])) }],
  ["hasSuffix", { params: ["string", "string"], fn: (a) => str(a[1]).endsWith(str(a[0])) }],
  ["indent", { params: ["int", "string"], fn: (a) => indent(int(a[0]), str(a[1])) }],
  ["nindent", { params: ["int", "string"], fn: (a) => "\n" + indent(int(a[0]), str(a[1])) }],
  ["replace", { params: ["string", "string", "string"], fn: (a) => replace(str(a[2]), str(a[0]), str(a[1]), -1) }],
  ["repeat", { params: ["int", "string"], fn: (a) => repeat(str(a[1]), int(a[0])) }],
  ["trim", { params: ["string"], fn: (a) => trimSpace(str(a[0])) }],
  ["trimAll", { params: ["string", "string"], fn: (a) => trimCutset(str(a[1]), str(a[0]), true, true) }],
  [
    "trimSuffix",
    {
      params: ["string", "string"],
      fn: (a) =>
        str(a[0]) !== "" && str(a[1]).endsWith(str(a[0])) ? str(a[1]).slice(0, -str(a[0]).length) : str(a[1]),
    },
  ],
  [
    "trimPrefix",
    {
      params: ["string", "string"],
      fn: (a) => (str(a[1]).startsWith(str(a[0])) ? str(a[1]).slice(str(a[0]).length) : str(a[1])),
    },
  ],
  ["int", { params: ["any"], fn: (a) => new GoInt("int", toInt64(a[0])) }],
  ["float64", { params: ["any"], fn: (a) => toFloat64(a[0]) }],
  ["add", { params: [], variadic: "any", fn: (a) => goInt64(a.reduce<bigint>((s, v) => s + toInt64(v), 0n)) }],
  ["sub", { params: ["any", "any"], fn: (a) => goInt64(toInt64(a[0]) - toInt64(a[1])) }],
  [
    "mul",
    {
      params: ["any"],
      variadic: "any",
      fn: (a) => goInt64(a.slice(1).reduce<bigint>((s, v) => BigInt.asIntN(64, s * toInt64(v)), toInt64(a[0]))),
    },
  ],
  ["div", { params: ["any", "any"], fn: (a) => goInt64(intDiv(toInt64(a[0]), toInt64(a[1]))) }],
  ["mod", { params: ["any", "any"], fn: (a) => goInt64(intMod(toInt64(a[0]), toInt64(a[1]))) }],
  ["addf", { params: [], variadic: "any", fn: (a) => floatOp("add", 0, a) }],
  ["subf", { params: ["any"], variadic: "any", fn: (a) => floatOp("sub", a[0], a.slice(1)) }],
  ["mulf", { params: ["any"], variadic: "any", fn: (a) => floatOp("mul", a[0], a.slice(1)) }],
  ["divf", { params: ["any"], variadic: "any", fn: (a) => floatOp("div", a[0], a.slice(1)) }],
  [
    "max",
    {
      params: ["any"],
      variadic: "any",
      fn: (a) => goInt64(a.slice(1).reduce<bigint>((m, v) => (toInt64(v) > m ? toInt64(v) : m), toInt64(a[0]))),
    },
  ],
  [
    "min",
    {
      params: ["any"],
      variadic: "any",
      fn: (a) => goInt64(a.slice(1).reduce<bigint>((m, v) => (toInt64(v) < m ? toInt64(v) : m), toInt64(a[0]))),
    },
  ],
  [
    "maxf",
    {
      params: ["any"],
      variadic: "any",
      fn: (a) => a.slice(1).reduce<number>((m, v) => goMax(m, toFloat64(v)), toFloat64(a[0])),
    },
  ],
  [
    "minf",
    {
      params: ["any"],
      variadic: "any",
      fn: (a) => a.slice(1).reduce<number>((m, v) => goMin(m, toFloat64(v)), toFloat64(a[0])),
    },
  ],
  ["ceil", { params: ["any"], fn: (a) => Math.ceil(toFloat64(a[0])) }],
  ["floor", { params: ["any"], fn: (a) => Math.floor(toFloat64(a[0])) }],
  ["round", { params: ["any", "int"], variadic: "float64", fn: (a) => round(a[0], int(a[1]), a.slice(2)) }],
  ["fromJson", { params: ["string"], fn: (a) => fromJson(str(a[0])) }],
  ["date", { params: ["string", "any"], fn: (a) => timeArgForDate(a[1]).in(UTC).format(str(a[0])) }],
  ["toDate", { params: ["string", "string"], fn: (a) => parseTime(str(a[0]), str(a[1]), UTC) ?? zeroTime() }],
  ["now", { params: [], fn: () => new GoTime(BigInt(Date.now()) * 1_000_000n, UTC) }],
  ["unixEpoch", { params: ["time"], fn: (a) => floorDiv(time(a[0]).ns, NS).toString() }],
  ["default", { params: ["any"], variadic: "any", fn: (a) => (a.length < 2 || isEmpty(a[1]) ? a[0] : a[1]) }],
]);

function durationOf(s: string): number {
  const d = parseDuration(s);
  if (!d.ok) throw new FuncError(d.error);
  return durationSeconds(d.value);
}

/** math.Max / math.Min: NaN wins, and +0 beats -0. */
function goMax(a: number, b: number): number {
  return Math.max(a, b);
}
function goMin(a: number, b: number): number {
  return Math.min(a, b);
}

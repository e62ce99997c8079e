/**
 * Byte sizes as Loki reads and prints them, with go-humanize's ParseBytes and Bytes: `10KB` is
 * 10000 and `10KiB` 10240; printing uses SI units and Go's %.0f / %.1f rounding (ties to even).
 */
import { failure, type ParseResult } from "./result";
import { formatFloat, parseFloat, quoteBytes } from "./strconv";

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

const DECIMAL_DIGIT = /^\p{Nd}$/u;

/** Go's unicode.IsSpace (JavaScript's trim differs on U+0085 and U+FEFF). */
function isGoSpace(c: number): boolean {
  if (c <= 0xff) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x85 || c === 0xa0;
  return (
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

function trimGoSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isGoSpace(s.charCodeAt(start))) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

const utf8 = new TextEncoder();

/**
 * go-humanize ParseBytes: a number (digits, `.`, `,` thousands separators), optional spaces and a
 * case-insensitive unit; truncated to whole bytes. Errors are Go's texts.
 */
export function parseBytes(s: string): ParseResult<number> {
  // go-humanize counts characters but cuts the string at that many bytes: with a non-ASCII digit
  // the number part ends inside it and ParseFloat rejects the broken bytes.
  let count = 0;
  let ascii = true;
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (isDigitAscii(c) || c === 0x2e || c === 0x2c) {
      count++;
      continue;
    }
    if (c < 0x80 || !DECIMAL_DIGIT.test(ch)) break;
    ascii = false;
    count++;
  }
  if (!ascii) {
    const bytes = utf8
      .encode(s)
      .subarray(0, count)
      .filter((b) => b !== 0x2c);
    return failure(() => `strconv.ParseFloat: parsing ${quoteBytes(bytes)}: invalid syntax`);
  }
  const num = s.slice(0, count).replaceAll(",", "");
  const f = parseFloat(num);
  if (!f.ok) return f;
  const unit = trimGoSpace(s.slice(count)).toLowerCase();
  const mult = BYTE_UNITS[unit];
  if (mult === undefined) return failure(() => `unhandled size name: ${unit}`);
  const v = f.value * mult;
  if (v >= 2 ** 64) return failure(() => `too large: ${s}`);
  return { ok: true, value: Math.trunc(v) };
}

function isDigitAscii(c: number): boolean {
  return c >= 48 && c <= 57;
}

const SI_SIZES = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];

/** go-humanize Bytes: `9 B`, `1.5 kB`, `83 MB` (one decimal below 10 of a unit, none from 10). */
export function formatBytes(bytes: number): string {
  if (bytes < 10) return `${bytes} B`;
  const e = Math.floor(Math.log(bytes) / Math.log(1000));
  const suffix = SI_SIZES[e] ?? "EB";
  const val = Math.floor((bytes / 1000 ** e) * 10 + 0.5) / 10;
  return `${formatFloat(val, "f", val < 10 ? 1 : 0)} ${suffix}`;
}

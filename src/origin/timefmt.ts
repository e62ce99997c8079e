/** Nanosecond timestamps ↔ the RFC3339 forms VictoriaLogs reads and writes. */

const NS_PER_MS = 1_000_000n;
/** The int64 nanoseconds VictoriaLogs stores: 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z. */
const MAX_NS = 2n ** 63n - 1n;
const MIN_NS = -(2n ** 63n);

/** RFC3339 with all nine fractional digits: exact to the nanosecond in VictoriaLogs filters. */
export function formatRFC3339Nano(ns: bigint): string {
  // VictoriaLogs keeps int64 nanoseconds: no row lies outside, so a bound beyond them means the
  // same clamped, and years outside 0000-9999 have no RFC3339 spelling.
  const t = ns > MAX_NS ? MAX_NS : ns < MIN_NS ? MIN_NS : ns;
  let ms = t / NS_PER_MS;
  let sub = t % NS_PER_MS;
  if (sub < 0n) {
    sub += NS_PER_MS;
    ms -= 1n;
  }
  const iso = new Date(Number(ms)).toISOString(); // 2026-02-01T00:00:00.123Z
  const nanos = iso.slice(20, 23) + sub.toString().padStart(6, "0");
  return `${iso.slice(0, 19)}.${nanos}Z`;
}

/**
 * VictoriaLogs' `_time` (RFC3339 with trailing fractional zeros cut) to nanoseconds. Parsed by hand:
 * this runs once per row on the hot path.
 */
export function parseVLTime(s: string): bigint {
  // YYYY-MM-DDTHH:MM:SS[.fffffffff]Z
  const ms = Date.UTC(num(s, 0, 4), num(s, 5, 7) - 1, num(s, 8, 10), num(s, 11, 13), num(s, 14, 16), num(s, 17, 19));
  let frac = 0;
  if (s.charCodeAt(19) === 46 /* . */) {
    let end = 20;
    while (end < s.length && s.charCodeAt(end) >= 48 && s.charCodeAt(end) <= 57) end++;
    const digits = s.slice(20, end);
    frac = Number(digits.padEnd(9, "0"));
  }
  if (Number.isNaN(ms)) throw new Error(`origin returned an unparsable _time ${JSON.stringify(s)}`);
  return BigInt(ms) * NS_PER_MS + BigInt(frac);
}

function num(s: string, a: number, b: number): number {
  let n = 0;
  for (let i = a; i < b; i++) n = n * 10 + (s.charCodeAt(i) - 48);
  return n;
}

/**
 * parseVLTime for the rows of one response: neighbouring rows mostly share their hour, and
 * Date.UTC is the costly part, so the last hour is remembered and only minutes, seconds and the
 * fraction are read (as a double: under an hour of nanoseconds is exact below 2^53).
 */
export class VLTimeReader {
  /** The hour last read as the number YYYYMMDDHH (-1 before the first), and its first nanosecond. */
  private lastHour = -1;
  private lastHourNs = 0n;

  read(s: string): bigint {
    return this.readAt(s, 0, s.length);
  }

  /**
   * The time spelled by text[start, end), read where it stands: a row's `_time` costs no string of
   * its own (and reading characters of a slice costs more than reading them in place).
   */
  readAt(text: string, start: number, end: number): bigint {
    // YYYY-MM-DDTHH:MM:SS[.fffffffff]Z
    const n = end - start;
    if (
      n < 20 ||
      n > 30 ||
      text.charCodeAt(start + 13) !== 58 /* : */ ||
      text.charCodeAt(start + 16) !== 58 ||
      text.charCodeAt(end - 1) !== 90 /* Z */ ||
      (n > 20 && text.charCodeAt(start + 19) !== 46) /* . */
    ) {
      return parseVLTime(text.slice(start, end));
    }
    // Two digits at a time (-1 unless both are digits), then the fraction's digits and as many zeros
    // as make nine.
    const century = twoDigits(text, start),
      year = twoDigits(text, start + 2),
      month = twoDigits(text, start + 5);
    const day = twoDigits(text, start + 8),
      hourOfDay = twoDigits(text, start + 11);
    const minutes = twoDigits(text, start + 14),
      seconds = twoDigits(text, start + 17);
    let frac = 0;
    let fracDigits = true;
    for (let i = start + 20; i < end - 1; i++) {
      const d = (text.charCodeAt(i) - 48) >>> 0; // a character below "0" comes out far above 9
      if (d > 9) fracDigits = false;
      frac = frac * 10 + d;
    }
    for (let k = n - 21; k < 9; k++) frac *= 10;
    // A character that is not a digit: parseVLTime says what such a time is.
    if ((century | year | month | day | hourOfDay | minutes | seconds) < 0 || !fracDigits) {
      return parseVLTime(text.slice(start, end));
    }
    // YYYYMMDDHH
    const hour = (((century * 100 + year) * 100 + month) * 100 + day) * 100 + hourOfDay;
    if (hour !== this.lastHour) {
      this.lastHourNs = parseVLTime(`${text.slice(start, start + 13)}:00:00Z`);
      this.lastHour = hour;
    }
    return this.lastHourNs + BigInt((minutes * 60 + seconds) * 1e9 + frac);
  }
}

/** The two-digit number at text[at], or -1 unless both characters are digits. */
function twoDigits(text: string, at: number): number {
  // `>>> 0`: a character below "0" comes out far above 9, like one above "9".
  const tens = (text.charCodeAt(at) - 48) >>> 0;
  const ones = (text.charCodeAt(at + 1) - 48) >>> 0;
  return tens <= 9 && ones <= 9 ? tens * 10 + ones : -1;
}

/** Nanosecond timestamps ↔ the RFC3339 forms VictoriaLogs reads and writes. */

const NS_PER_MS = 1_000_000n;

/** RFC3339 with all nine fractional digits: exact to the nanosecond in VictoriaLogs filters. */
export function formatRFC3339Nano(ns: bigint): string {
  let ms = ns / NS_PER_MS;
  let sub = ns % NS_PER_MS;
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
  private lastHour = "\u0000"; // matches no time until the first is read
  private lastHourNs = 0n;

  read(s: string): bigint {
    // YYYY-MM-DDTHH:MM:SS[.fffffffff]Z
    const n = s.length;
    if (n < 20 || s.charCodeAt(13) !== 58 /* : */ || s.charCodeAt(16) !== 58 || s.charCodeAt(n - 1) !== 90 /* Z */) {
      return parseVLTime(s);
    }
    if (!s.startsWith(this.lastHour)) {
      const hour = s.slice(0, 13);
      this.lastHourNs = parseVLTime(`${hour}:00:00Z`);
      this.lastHour = hour;
    }
    const m1 = s.charCodeAt(14) - 48;
    const m0 = s.charCodeAt(15) - 48;
    const s1 = s.charCodeAt(17) - 48;
    const s0 = s.charCodeAt(18) - 48;
    if (!(digit(m1) && digit(m0) && digit(s1) && digit(s0))) return parseVLTime(s);
    let frac = 0;
    if (n > 20) {
      if (s.charCodeAt(19) !== 46 /* . */ || n > 30) return parseVLTime(s);
      let digits = 0;
      for (let k = 20; k < n - 1; k++) {
        const d = s.charCodeAt(k) - 48;
        if (!digit(d)) return parseVLTime(s);
        frac = frac * 10 + d;
        digits++;
      }
      for (; digits < 9; digits++) frac *= 10;
    }
    const seconds = (m1 * 10 + m0) * 60 + s1 * 10 + s0;
    return this.lastHourNs + BigInt(seconds * 1e9 + frac);
  }
}

function digit(d: number): boolean {
  return d >= 0 && d <= 9;
}

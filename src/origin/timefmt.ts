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

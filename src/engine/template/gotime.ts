/**
 * Go's time.Time as far as Loki's template functions reach it: layout-based formatting and
 * parsing (reference time "Mon Jan 2 15:04:05 MST 2006") and Time.String. Durations are in
 * core/go/duration.
 *
 * Loki runs with the server's Local zone, which is UTC in its containers (the compat goldens print
 * `__timestamp__` in UTC), so Local is UTC here. Other IANA zones (toDateInZone) are resolved
 * through Intl when the runtime has it.
 */
import { floorDiv } from "../../core/go/intdiv";
import { BoundedMap } from "../../util/bounded-map";

export interface Zone {
  /** The location name ("UTC", "America/New_York", or "" for an unnamed fixed offset). */
  readonly name: string;
  /** Offset east of UTC in seconds and the abbreviation in effect at a unix second. */
  lookup(unixSec: number): { offset: number; abbr: string };
}

class FixedZone implements Zone {
  constructor(
    readonly name: string,
    private readonly offset: number,
  ) {}
  lookup(): { offset: number; abbr: string } {
    return { offset: this.offset, abbr: this.name };
  }
}

export const UTC: Zone = new FixedZone("UTC", 0);

class IntlZone implements Zone {
  private readonly fmt: Intl.DateTimeFormat;
  private readonly abbrFmt: Intl.DateTimeFormat;
  constructor(readonly name: string) {
    this.fmt = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      era: "short",
    });
    this.abbrFmt = new Intl.DateTimeFormat("en-US", { timeZone: name, timeZoneName: "short" });
  }
  lookup(unixSec: number): { offset: number; abbr: string } {
    const ms = Math.max(Math.min(unixSec * 1000, 8.64e15), -8.64e15);
    const date = new Date(ms);
    const parts: Record<string, string> = {};
    for (const p of this.fmt.formatToParts(date)) parts[p.type] = p.value;
    let year = Number(parts.year);
    if (parts.era === "BC" || parts.era === "B") year = 1 - year;
    const wall =
      civilToDays(year, Number(parts.month), Number(parts.day)) * 86400 +
      Number(parts.hour) * 3600 +
      Number(parts.minute) * 60 +
      Number(parts.second);
    const offset = wall - Math.floor(ms / 1000);
    let abbr = "";
    for (const p of this.abbrFmt.formatToParts(date)) if (p.type === "timeZoneName") abbr = p.value;
    if (abbr === "" || abbr.startsWith("GMT")) abbr = formatOffsetAbbr(offset);
    return { offset, abbr };
  }
}

/** Go names zones without an abbreviation by their offset: "+03", "-0330". */
function formatOffsetAbbr(offset: number): string {
  const sign = offset < 0 ? "-" : "+";
  const a = Math.abs(offset);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  return sign + pad(h, 2) + (m !== 0 ? pad(m, 2) : "");
}

/** Zone names come from templates: bounded, so they do not pile up in the isolate. */
const zoneCache = new BoundedMap<Zone>(256, 256 * 1024);

/** time.LoadLocation, falling back to UTC on failure as Loki's callers do. */
export function loadLocation(name: string): Zone {
  if (name === "" || name === "UTC" || name === "Local") return UTC;
  let z = zoneCache.get(name);
  if (z) return z;
  try {
    z = new IntlZone(name);
    z.lookup(0);
  } catch {
    z = UTC;
  }
  zoneCache.set(name, z);
  return z;
}

export class GoTime {
  constructor(
    /** Nanoseconds since the Unix epoch; may lie outside int64 (the zero Time does). */
    readonly ns: bigint,
    readonly zone: Zone = UTC,
  ) {}

  static fromUnixNano(ns: bigint): GoTime {
    return new GoTime(ns, UTC);
  }

  unixSec(): number {
    return Number(floorDiv(this.ns, 1_000_000_000n));
  }
  nanosecond(): number {
    return Number(this.ns - floorDiv(this.ns, 1_000_000_000n) * 1_000_000_000n);
  }
  isZero(): boolean {
    return this.ns === ZERO_TIME_NS;
  }
  in(zone: Zone): GoTime {
    return new GoTime(this.ns, zone);
  }

  /** Wall-clock fields in the time's zone. */
  fields(): Fields {
    const sec = this.unixSec();
    const { offset, abbr } = this.zone.lookup(sec);
    const local = sec + offset;
    const days = Math.floor(local / 86400);
    const secOfDay = local - days * 86400;
    const { year, month, day } = daysToCivil(days);
    return {
      year,
      month,
      day,
      hour: Math.floor(secOfDay / 3600),
      minute: Math.floor((secOfDay % 3600) / 60),
      second: secOfDay % 60,
      nanosecond: this.nanosecond(),
      weekday: (((days + 4) % 7) + 7) % 7,
      yday: days - civilToDays(year, 1, 1) + 1,
      offset,
      abbr,
    };
  }

  format(layout: string): string {
    return formatTime(this, compileLayout(layout));
  }

  toString(): string {
    return formatTime(this, STRING_LAYOUT);
  }
}

export interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanosecond: number;
  weekday: number;
  yday: number;
  offset: number;
  abbr: string;
}

/** January 1, year 1, 00:00:00 UTC: Go's zero Time. */
export const ZERO_TIME_NS = -62135596800n * 1_000_000_000n;

export const zeroTime = (): GoTime => new GoTime(ZERO_TIME_NS, UTC);

// ---------------------------------------------------------------------------------------------
// Civil calendar (proleptic Gregorian), days counted from 1970-01-01.

export function civilToDays(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysToCivil(z: number): { year: number; month: number; day: number } {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function isLeap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** time.Date: wall clock in a zone to an instant (normalising out-of-range fields as Go does). */
export function makeTime(
  year: number,
  month: number,
  day: number,
  hour: number,
  min: number,
  sec: number,
  nsec: number,
  zone: Zone,
): GoTime {
  const wall = civilToDays(year, month, 1) * 86400 + (day - 1) * 86400 + hour * 3600 + min * 60 + sec;
  let { offset } = zone.lookup(wall);
  let unix = wall - offset;
  const second = zone.lookup(unix).offset;
  if (second !== offset) {
    offset = second;
    unix = wall - offset;
  }
  return new GoTime(BigInt(unix) * 1_000_000_000n + BigInt(nsec), zone);
}

// ---------------------------------------------------------------------------------------------
// Layouts

export const LONG_MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const LONG_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export const monthName = (m: number): string => LONG_MONTHS[m - 1] ?? `%!Month(${m})`;
export const weekdayName = (d: number): string => LONG_DAYS[d] ?? `%!Weekday(${d})`;

type Std =
  | "January"
  | "Jan"
  | "1"
  | "01"
  | "Monday"
  | "Mon"
  | "2"
  | "_2"
  | "02"
  | "__2"
  | "002"
  | "15"
  | "3"
  | "03"
  | "4"
  | "04"
  | "5"
  | "05"
  | "2006"
  | "06"
  | "PM"
  | "pm"
  | "MST"
  | "Z0700"
  | "Z070000"
  | "Z07"
  | "Z07:00"
  | "Z07:00:00"
  | "-0700"
  | "-070000"
  | "-07"
  | "-07:00"
  | "-07:00:00"
  | "frac0"
  | "frac9";

type Chunk = string | { std: Std; digits?: number; sep?: string };

const startsWithLower = (s: string, i: number): boolean => i < s.length && s[i]! >= "a" && s[i]! <= "z";
const isDigitAt = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Splits a layout into literal text and std elements, with Go's precedence rules. */
function nextStd(layout: string, i: number): { std: Std; len: number; digits?: number; sep?: string } | null {
  const rest = layout.slice(i);
  const c = layout[i]!;
  switch (c) {
    // "Jan" and "Mon" followed by a lower-case letter are plain words ("Janet", "Monthly")
    case "J":
      if (rest.startsWith("January")) return { std: "January", len: 7 };
      if (rest.startsWith("Jan") && !startsWithLower(rest, 3)) return { std: "Jan", len: 3 };
      break;
    case "M":
      if (rest.startsWith("Monday")) return { std: "Monday", len: 6 };
      if (rest.startsWith("Mon") && !startsWithLower(rest, 3)) return { std: "Mon", len: 3 };
      if (rest.startsWith("MST")) return { std: "MST", len: 3 };
      break;
    case "0":
      if (rest.length >= 2 && rest[1]! >= "1" && rest[1]! <= "6") return { std: ("0" + rest[1]) as Std, len: 2 };
      if (rest.startsWith("002")) return { std: "002", len: 3 };
      break;
    case "1":
      if (rest.startsWith("15")) return { std: "15", len: 2 };
      return { std: "1", len: 1 };
    case "2":
      if (rest.startsWith("2006")) return { std: "2006", len: 4 };
      return { std: "2", len: 1 };
    case "_":
      if (rest.startsWith("_2")) {
        // "_2006" is a literal underscore followed by the year
        if (rest.startsWith("_2006")) return null;
        return { std: "_2", len: 2 };
      }
      if (rest.startsWith("__2")) return { std: "__2", len: 3 };
      break;
    case "3":
    case "4":
    case "5":
      return { std: c, len: 1 };
    case "P":
      if (rest.startsWith("PM")) return { std: "PM", len: 2 };
      break;
    case "p":
      if (rest.startsWith("pm")) return { std: "pm", len: 2 };
      break;
    case "-":
      for (const s of ["-07:00:00", "-070000", "-07:00", "-0700", "-07"] as const)
        if (rest.startsWith(s)) return { std: s, len: s.length };
      break;
    case "Z":
      for (const s of ["Z07:00:00", "Z070000", "Z07:00", "Z0700", "Z07"] as const)
        if (rest.startsWith(s)) return { std: s, len: s.length };
      break;
    case ".":
    case ",":
      if (rest.length >= 2 && (rest[1] === "0" || rest[1] === "9")) {
        const ch = rest[1];
        let j = 1;
        while (j < rest.length && rest[j] === ch) j++;
        if (!isDigitAt(rest, j)) return { std: ch === "0" ? "frac0" : "frac9", len: j, digits: j - 1, sep: c };
      }
      break;
  }
  return null;
}

/** Layouts come from templates: bounded in bytes, a compiled layout holding about its text. */
const layoutCache = new BoundedMap<Chunk[]>(1000, 1024 * 1024, (_chunks, layout) => 4 * layout.length);

export function compileLayout(layout: string): Chunk[] {
  const cached = layoutCache.get(layout);
  if (cached) return cached;
  const chunks: Chunk[] = [];
  let lit = "";
  for (let i = 0; i < layout.length;) {
    const s = nextStd(layout, i);
    if (s === null) {
      // "_2006": the underscore is literal, the year is not
      if (layout.startsWith("_2006", i)) {
        lit += "_";
        i += 1;
        continue;
      }
      lit += layout[i];
      i++;
      continue;
    }
    if (lit) chunks.push(lit);
    lit = "";
    chunks.push(s.digits !== undefined ? { std: s.std, digits: s.digits, sep: s.sep! } : { std: s.std });
    i += s.len;
  }
  if (lit) chunks.push(lit);
  layoutCache.set(layout, chunks);
  return chunks;
}

const STRING_LAYOUT = compileLayout("2006-01-02 15:04:05.999999999 -0700 MST");

function pad(n: number, width: number): string {
  const neg = n < 0;
  let s = String(Math.abs(n));
  while (s.length < width) s = "0" + s;
  return neg ? "-" + s : s;
}

function formatTime(t: GoTime, chunks: Chunk[]): string {
  const f = t.fields();
  let out = "";
  for (const c of chunks) {
    if (typeof c === "string") {
      out += c;
      continue;
    }
    switch (c.std) {
      case "2006":
        out += pad(f.year, 4);
        break;
      case "06":
        out += pad(((f.year % 100) + 100) % 100, 2);
        break;
      case "January":
        out += monthName(f.month);
        break;
      case "Jan":
        out += monthName(f.month).slice(0, 3);
        break;
      case "1":
        out += f.month;
        break;
      case "01":
        out += pad(f.month, 2);
        break;
      case "Monday":
        out += weekdayName(f.weekday);
        break;
      case "Mon":
        out += weekdayName(f.weekday).slice(0, 3);
        break;
      case "2":
        out += f.day;
        break;
      case "_2":
        out += (f.day < 10 ? " " : "") + f.day;
        break;
      case "02":
        out += pad(f.day, 2);
        break;
      case "__2":
        out += String(f.yday).padStart(3, " ");
        break;
      case "002":
        out += pad(f.yday, 3);
        break;
      case "15":
        out += pad(f.hour, 2);
        break;
      case "3":
        out += f.hour % 12 === 0 ? 12 : f.hour % 12;
        break;
      case "03":
        out += pad(f.hour % 12 === 0 ? 12 : f.hour % 12, 2);
        break;
      case "4":
        out += f.minute;
        break;
      case "04":
        out += pad(f.minute, 2);
        break;
      case "5":
        out += f.second;
        break;
      case "05":
        out += pad(f.second, 2);
        break;
      case "PM":
        out += f.hour >= 12 ? "PM" : "AM";
        break;
      case "pm":
        out += f.hour >= 12 ? "pm" : "am";
        break;
      case "MST":
        out += f.abbr !== "" ? f.abbr : formatNumericZone(f.offset);
        break;
      case "frac0":
      case "frac9":
        out += formatNano(f.nanosecond, c.digits!, c.sep!, c.std === "frac9");
        break;
      default:
        out += formatZone(c.std, f.offset);
    }
  }
  return out;
}

function formatNumericZone(offset: number): string {
  let zone = Math.trunc(offset / 60);
  let s = "+";
  if (zone < 0) {
    s = "-";
    zone = -zone;
  }
  return s + pad(Math.floor(zone / 60), 2) + pad(zone % 60, 2);
}

function formatZone(std: Std, offset: number): string {
  if (std[0] === "Z" && offset === 0) return "Z";
  let zone = Math.trunc(offset / 60);
  let abs = offset;
  let s = "+";
  if (zone < 0) {
    s = "-";
    zone = -zone;
    abs = -abs;
  }
  s += pad(Math.floor(zone / 60), 2);
  const colon = std.includes(":");
  if (colon) s += ":";
  if (std !== "-07" && std !== "Z07") s += pad(zone % 60, 2);
  if (std === "Z070000" || std === "-070000" || std === "Z07:00:00" || std === "-07:00:00") {
    if (colon) s += ":";
    s += pad(abs % 60, 2);
  }
  return s;
}

function formatNano(nanos: number, digits: number, sep: string, trim: boolean): string {
  let s = String(nanos).padStart(9, "0");
  let n = Math.min(digits, 9);
  if (trim) {
    while (n > 0 && s[n - 1] === "0") n--;
    if (n === 0) return "";
  }
  s = s.slice(0, n);
  return sep + s;
}

// ---------------------------------------------------------------------------------------------
// Parsing (time.ParseInLocation). Callers in Loki ignore the error, so failure is `null`.

function lookupName(names: readonly string[], value: string, len: number | null): { idx: number; rest: string } | null {
  for (let i = 0; i < names.length; i++) {
    const n = len === null ? names[i]! : names[i]!.slice(0, len);
    if (value.length >= n.length && value.slice(0, n.length).toLowerCase() === n.toLowerCase()) {
      return { idx: i, rest: value.slice(n.length) };
    }
  }
  return null;
}

/** getnum: one or two digits (exactly two when fixed). */
function getnum(s: string, fixed: boolean): { n: number; rest: string } | null {
  if (!isDigitAt(s, 0)) return null;
  if (!isDigitAt(s, 1)) {
    if (fixed) return null;
    return { n: s.charCodeAt(0) - 48, rest: s.slice(1) };
  }
  return { n: (s.charCodeAt(0) - 48) * 10 + s.charCodeAt(1) - 48, rest: s.slice(2) };
}

function getnum3(s: string, fixed: boolean): { n: number; rest: string } | null {
  let n = 0;
  let i = 0;
  for (; i < 3 && isDigitAt(s, i); i++) n = n * 10 + s.charCodeAt(i) - 48;
  if (i === 0 || (fixed && i !== 3)) return null;
  return { n, rest: s.slice(i) };
}

function skipPrefix(value: string, prefix: string): string | null {
  while (prefix.length > 0) {
    if (prefix[0] === " ") {
      if (value.length > 0 && value[0] !== " ") return null;
      prefix = prefix.replace(/^ +/, "");
      value = value.replace(/^ +/, "");
      continue;
    }
    if (value.length === 0 || value[0] !== prefix[0]) return null;
    prefix = prefix.slice(1);
    value = value.slice(1);
  }
  return value;
}

function parseNanos(value: string, nbytes: number): number | null {
  if (value[0] !== "." && value[0] !== ",") return null;
  if (nbytes > 10) nbytes = 10;
  const digits = value.slice(1, nbytes);
  if (!/^[0-9]+$/.test(digits)) return null;
  let ns = Number(digits);
  for (let i = 0; i < 10 - nbytes; i++) ns *= 10;
  return ns;
}

/** Length of a zone abbreviation at the start of value, per Go's parseTimeZone heuristics. */
function zoneAbbrLength(value: string): number {
  if (value.length < 3) return 0;
  if (value.startsWith("ChST") || value.startsWith("MeST")) return 4;
  if (value.startsWith("GMT")) {
    const m = /^GMT([+-][0-9]{1,2})?/.exec(value)!;
    return m[0].length;
  }
  if (value[0] === "+" || value[0] === "-") {
    const m = /^[+-][0-9]{2}(?::?[0-9]{2})?/.exec(value);
    return m ? m[0].length : 0;
  }
  let n = 0;
  while (n < value.length && value[n]! >= "A" && value[n]! <= "Z") n++;
  switch (n) {
    case 5:
      return value[4] === "T" ? 5 : 0;
    case 4:
      return value[3] === "T" || value.startsWith("WITA") ? 4 : 0;
    case 3:
      return 3;
  }
  return 0;
}

export function parseTime(layout: string, value: string, zone: Zone): GoTime | null {
  const chunks = compileLayout(layout);
  let year = 0;
  let month = -1;
  let day = -1;
  let yday = -1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let pmSet = false;
  let amSet = false;
  let zoneOffset: number | null = null;
  let zoneName = "";
  let utc = false;
  for (let ci = 0; ci < chunks.length; ci++) {
    const c = chunks[ci]!;
    if (typeof c === "string") {
      const r = skipPrefix(value, c);
      if (r === null) return null;
      value = r;
      continue;
    }
    const std = c.std;
    let r: { n: number; rest: string } | null;
    switch (std) {
      case "2006":
        if (value.length < 4 || !/^[0-9]{4}/.test(value)) return null;
        year = Number(value.slice(0, 4));
        value = value.slice(4);
        break;
      case "06":
        if (!/^[0-9]{2}/.test(value)) return null;
        year = Number(value.slice(0, 2));
        year += year >= 69 ? 1900 : 2000;
        value = value.slice(2);
        break;
      case "January":
      case "Jan": {
        const m = lookupName(LONG_MONTHS, value, std === "Jan" ? 3 : null);
        if (!m) return null;
        month = m.idx + 1;
        value = m.rest;
        break;
      }
      case "Monday":
      case "Mon": {
        const m = lookupName(LONG_DAYS, value, std === "Mon" ? 3 : null);
        if (!m) return null;
        value = m.rest;
        break;
      }
      case "1":
      case "01":
        r = getnum(value, std === "01");
        if (!r || r.n <= 0 || r.n > 12) return null;
        month = r.n;
        value = r.rest;
        break;
      case "2":
      case "_2":
      case "02":
        if (std === "_2" && value[0] === " ") value = value.slice(1);
        r = getnum(value, std === "02");
        if (!r) return null;
        day = r.n;
        value = r.rest;
        break;
      case "__2":
      case "002":
        if (std === "__2") value = value.replace(/^ {1,2}/, "");
        r = getnum3(value, std === "002");
        if (!r || r.n < 1 || r.n > 366) return null;
        yday = r.n;
        value = r.rest;
        break;
      case "15":
        r = getnum(value, false);
        if (!r || r.n >= 24) return null;
        hour = r.n;
        value = r.rest;
        break;
      case "3":
      case "03":
        r = getnum(value, std === "03");
        if (!r || r.n > 12) return null;
        hour = r.n;
        value = r.rest;
        break;
      case "4":
      case "04":
        r = getnum(value, std === "04");
        if (!r || r.n >= 60) return null;
        min = r.n;
        value = r.rest;
        break;
      case "5":
      case "05": {
        r = getnum(value, std === "05");
        if (!r || r.n >= 60) return null;
        sec = r.n;
        value = r.rest;
        // a fractional second in the value that the layout does not mention is still accepted
        if (value.length >= 2 && (value[0] === "." || value[0] === ",") && isDigitAt(value, 1)) {
          const next = chunks[ci + 1];
          if (typeof next === "object" && (next.std === "frac0" || next.std === "frac9")) break;
          let n = 2;
          while (isDigitAt(value, n)) n++;
          const ns = parseNanos(value, n);
          if (ns === null) return null;
          nsec = ns;
          value = value.slice(n);
        }
        break;
      }
      case "PM":
      case "pm": {
        if (value.length < 2) return null;
        const p = value.slice(0, 2);
        value = value.slice(2);
        if (p === (std === "PM" ? "PM" : "pm")) pmSet = true;
        else if (p === (std === "PM" ? "AM" : "am")) amSet = true;
        else return null;
        break;
      }
      case "MST": {
        if (value.startsWith("UTC")) {
          utc = true;
          value = value.slice(3);
          break;
        }
        const n = zoneAbbrLength(value);
        if (n === 0) return null;
        zoneName = value.slice(0, n);
        value = value.slice(n);
        break;
      }
      case "frac0": {
        const nd = 1 + c.digits!;
        if (value.length < nd) return null;
        const ns = parseNanos(value, nd);
        if (ns === null) return null;
        nsec = ns;
        value = value.slice(nd);
        break;
      }
      case "frac9": {
        if (value.length < 2 || (value[0] !== "." && value[0] !== ",") || !isDigitAt(value, 1)) break;
        let i = 0;
        while (isDigitAt(value, i + 1)) i++;
        const ns = parseNanos(value, 1 + i);
        if (ns === null) return null;
        nsec = ns;
        value = value.slice(1 + i);
        break;
      }
      default: {
        // numeric zone offsets
        if (std[0] === "Z" && value[0] === "Z") {
          value = value.slice(1);
          utc = true;
          break;
        }
        let m: RegExpExecArray | null;
        if (std === "Z07:00" || std === "-07:00") m = /^([+-])([0-9]{2}):([0-9]{2})()/.exec(value);
        else if (std === "Z07" || std === "-07") m = /^([+-])([0-9]{2})()()/.exec(value);
        else if (std === "Z07:00:00" || std === "-07:00:00") m = /^([+-])([0-9]{2}):([0-9]{2}):([0-9]{2})/.exec(value);
        else if (std === "Z070000" || std === "-070000") m = /^([+-])([0-9]{2})([0-9]{2})([0-9]{2})/.exec(value);
        else m = /^([+-])([0-9]{2})([0-9]{2})()/.exec(value);
        if (!m) return null;
        const hh = Number(m[2]);
        const mm = Number(m[3] || "0");
        const ss = Number(m[4] || "0");
        if (hh > 24 || mm > 60 || ss > 60) return null;
        zoneOffset = (hh * 60 + mm) * 60 + ss;
        if (m[1] === "-") zoneOffset = -zoneOffset;
        value = value.slice(m[0].length);
      }
    }
  }
  if (value.length > 0) return null;
  if (pmSet && hour < 12) hour += 12;
  else if (amSet && hour === 12) hour = 0;
  if (yday >= 0) {
    let m = 0;
    let d = yday;
    if (isLeap(year) && d === 60) {
      m = 2;
      d = 29;
    } else {
      if (isLeap(year) && d > 60) d--;
      const cum = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];
      m = cum.findIndex((x) => x >= d);
      d -= cum[m - 1]!;
    }
    if ((month >= 0 && month !== m) || (day >= 0 && day !== d)) return null;
    month = m;
    day = d;
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }
  if (day < 1 || day > daysIn(month, year)) return null;
  if (utc) return makeTime(year, month, day, hour, min, sec, nsec, UTC);
  if (zoneOffset !== null) {
    const t = makeTime(year, month, day, hour, min, sec, nsec, UTC);
    const ns = t.ns - BigInt(zoneOffset) * 1_000_000_000n;
    const local = zone.lookup(Number(floorDiv(ns, 1_000_000_000n)));
    if (local.offset === zoneOffset && (zoneName === "" || local.abbr === zoneName)) return new GoTime(ns, zone);
    return new GoTime(ns, new FixedZone(zoneName, zoneOffset));
  }
  if (zoneName !== "") {
    const t = makeTime(year, month, day, hour, min, sec, nsec, UTC);
    const local = zone.lookup(t.unixSec());
    if (local.abbr === zoneName) return new GoTime(t.ns - BigInt(local.offset) * 1_000_000_000n, zone);
    let offset = 0;
    if (zoneName.length > 3 && zoneName.startsWith("GMT")) offset = Number(zoneName.slice(3)) * 3600;
    return new GoTime(t.ns - BigInt(offset) * 1_000_000_000n, new FixedZone(zoneName, offset));
  }
  return makeTime(year, month, day, hour, min, sec, nsec, zone);
}

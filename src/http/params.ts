/**
 * Loki's request parameters, parsed with Loki's rules and Loki's error messages.
 * Everything here is pure: the route reads raw strings, these functions turn them into typed values.
 */
import { BadRequestError } from "../core/errors";
import { formatDuration, formatPromDuration, parsePromDuration } from "../core/go/duration";
import { quote as goQuote, parseFloat } from "../core/go/strconv";
import type { Direction } from "../engine/types";

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/** Raw parameters of one request: GET query string and form-encoded POST body merged. */
export interface RawParams {
  get(name: string): string | undefined;
  getAll(name: string): string[];
}

export function rawParamsFrom(search: URLSearchParams, form?: URLSearchParams): RawParams {
  return {
    get(name) {
      const v = form?.get(name) ?? search.get(name);
      return v ?? undefined;
    },
    getAll(name) {
      return [...search.getAll(name), ...(form?.getAll(name) ?? [])];
    },
  };
}

/** Go's int64 bounds: Loki reads timestamps and durations into int64s. */
export const INT64_MAX = 2n ** 63n - 1n;
export const INT64_MIN = -(2n ** 63n);

/**
 * A Loki timestamp: float seconds when it has a `.`, integer seconds up to 10 characters, integer
 * nanoseconds beyond, else RFC3339(Nano). Returns nanoseconds.
 */
export function parseLokiTime(value: string, param: string): bigint {
  if (value.includes(".")) {
    const f = Number(value);
    if (Number.isFinite(f)) {
      // Loki converts the whole seconds to a Go int64, which yields the smallest int64 for a float
      // beyond its range (a time far in the past, refused later as a reversed or too long range).
      const whole = Math.trunc(f);
      if (Math.abs(whole) >= 2 ** 63) return INT64_MIN * NS_PER_S;
      // Loki rounds the fraction to milliseconds, halves away from zero (Go's math.Round).
      const frac = f - whole;
      return BigInt(whole) * NS_PER_S + BigInt(Math.sign(frac) * Math.round(Math.abs(frac) * 1000)) * NS_PER_MS;
    }
  } else if (/^[+-]?\d+$/.test(value)) {
    const n = BigInt(value);
    // strconv.ParseInt(value, 10, 64): a wider integer is refused before any time is built.
    if (n > INT64_MAX || n < INT64_MIN) {
      throw new BadRequestError(
        `could not parse '${param}' parameter: strconv.ParseInt: parsing ${goQuote(value)}: value out of range`,
      );
    }
    // Loki counts the sign among the 10 characters.
    return value.length <= 10 ? n * NS_PER_S : n;
  }
  const t = parseRFC3339Nano(value);
  if (t !== undefined) return t;
  throw new BadRequestError(
    `could not parse '${param}' parameter: strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`,
  );
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

export function parseRFC3339Nano(value: string): bigint | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) return undefined;
  let ns = BigInt(ms) * NS_PER_MS;
  if (frac) ns += BigInt(frac.padEnd(9, "0"));
  if (zone && zone !== "Z" && zone !== "z") {
    const sign = zone[0] === "-" ? -1n : 1n;
    const offMin = BigInt(Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
    ns -= sign * offMin * 60n * NS_PER_S;
  }
  return ns;
}

export interface TimeRange {
  start: bigint;
  end: bigint;
}

/**
 * start/end/since with Loki's defaults: end = now, since = 1h, start = min(end, now) − since.
 */
export function parseRange(p: RawParams, nowNs: bigint, defaultSince = 3600n * NS_PER_S): TimeRange {
  const endRaw = p.get("end");
  const end = endRaw ? parseLokiTime(endRaw, "end") : nowNs;
  const sinceRaw = p.get("since");
  let since = defaultSince;
  if (sinceRaw) {
    // Loki reads `since` with Prometheus' model.ParseDuration and passes its error on ("not a valid
    // duration string: …", "unknown unit …", "duration out of range" past a Go time.Duration).
    const d = parsePromDuration(sinceRaw);
    if (!d.ok) throw new BadRequestError(`could not parse 'since' parameter: ${d.error}`);
    since = d.value;
  }
  const startRaw = p.get("start");
  const start = startRaw ? parseLokiTime(startRaw, "start") : (end < nowNs ? end : nowNs) - since;
  return { start, end };
}

/** `limit`: Loki's parse and positivity checks. The entry cap is separate ({@link checkEntriesLimit}). */
export function parseLimit(p: RawParams, defaultLimit = 100): number {
  const raw = p.get("limit");
  if (raw === undefined || raw === "") return defaultLimit;
  if (!/^-?\d+$/.test(raw)) {
    throw new BadRequestError(
      `could not parse 'limit' parameter: strconv.ParseUint: parsing ${goQuote(raw)}: invalid syntax`,
    );
  }
  const limit = Number(raw);
  if (limit <= 0) throw new BadRequestError("limit must be a positive value");
  return limit;
}

/**
 * The per-query entry cap. Loki applies it to log queries only: Grafana sends its "max lines" as
 * `limit` with metric queries too, and those must not fail for it.
 */
export function checkEntriesLimit(limit: number, maxEntries: number): number {
  if (limit > maxEntries) {
    throw new BadRequestError(
      `max entries limit per query exceeded, limit > max_entries_limit_per_query (${limit} > ${maxEntries})`,
    );
  }
  return limit;
}

export function parseDirection(p: RawParams): Direction {
  const raw = p.get("direction");
  if (raw === undefined || raw === "") return "backward";
  const d = raw.toLowerCase();
  if (d === "forward" || d === "backward") return d;
  throw new BadRequestError(`invalid direction '${raw}'`);
}

/** Step in nanoseconds: float seconds or a duration; default max(floor((end−start)/250 s), 1) s. */
export function parseStep(p: RawParams, range: TimeRange): bigint {
  const raw = p.get("step");
  let step: bigint;
  if (raw === undefined || raw === "") {
    const span = range.end - range.start;
    const secs = span / 250n / NS_PER_S;
    step = (secs > 1n ? secs : 1n) * NS_PER_S;
  } else {
    const seconds = parseFloat(raw);
    if (seconds.ok) {
      // Float seconds as strconv.ParseFloat reads them (`15`, `0.5`, `1e1`, `0x1p3`, `1_0`).
      const ns = Math.round(seconds.value * 1e9);
      // Loki converts the seconds to a Go time.Duration: past int64 it wraps negative, and is refused
      // as a non-positive step below.
      step = Number.isFinite(ns) && Math.abs(ns) < 2 ** 63 ? BigInt(ns) : -1n;
    } else {
      // Not float seconds: Loki then tries Prometheus' model.ParseDuration, which refuses a duration
      // past int64 nanoseconds; Loki then names the value.
      const d = parsePromDuration(raw);
      if (!d.ok || d.value > INT64_MAX) {
        throw new BadRequestError(`could not parse 'step' parameter: cannot parse ${goQuote(raw)} to a valid duration`);
      }
      step = d.value;
    }
  }
  if (step <= 0n) {
    throw new BadRequestError("zero or negative query resolution step widths are not accepted. Try a positive integer");
  }
  return step;
}

export function checkRangeOrder(range: TimeRange): void {
  if (range.end < range.start) {
    throw new BadRequestError("end timestamp must not be before or equal to start time");
  }
}

/**
 * Loki's `max_query_length` (default 721h): a query's range may not be longer. Without it a single
 * request over a century would make the Worker plan millions of sub-windows.
 */
export function checkQueryLength(range: TimeRange, maxQueryLength: bigint): void {
  if (maxQueryLength <= 0n) return;
  const length = range.end - range.start;
  if (length > maxQueryLength) {
    // Go's Time.Sub saturates at the largest Duration.
    const shown = length > INT64_MAX ? "2562047h47m16.854775807s" : formatDuration(length);
    throw new BadRequestError(
      `the query time range exceeds the limit (query length: ${shown}, limit: ${formatPromDuration(Number(maxQueryLength))})`,
    );
  }
}

export const MAX_POINTS_PER_SERIES = 11_000n;

export function checkResolution(range: TimeRange, step: bigint): void {
  if ((range.end - range.start) / step > MAX_POINTS_PER_SERIES) {
    throw new BadRequestError(
      "exceeded maximum resolution of 11,000 points per time series. Try increasing the value of the step parameter",
    );
  }
}

export function requireQuery(p: RawParams): string {
  return p.get("query") ?? "";
}

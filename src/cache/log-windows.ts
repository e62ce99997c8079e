/**
 * Immutable answers of log-query windows. A window that is aligned to the query's split interval (or
 * to a twelfth of it, for the pieces of edge windows), lies wholly inside the query's range and
 * ended before the freshness horizon has a fixed top-`limit` in each direction: a sliding range (a
 * refreshing log panel) reuses the windows it has read and asks the origin only for the new edge and
 * whatever it has not seen.
 *
 * The key names everything the entries depend on: tenant, origin and credentials context (through
 * cacheKey), the LogsQL sent, the stages the Worker ran, direction, limit and the window. Which
 * windows a query reads from here and stores is planned in log-window-plan.ts.
 */
import type { LogEntry } from "../engine/types";
import type { TimeWindow } from "../core/time-window";
import type { ResultCache } from "./result-cache";

/** The pieces an edge window is kept in: aligned windows of this fraction of the interval. */
export const PIECES_PER_WINDOW = 12;

/** Entries larger than this (serialized) are not kept: the chunk store is for answers, not archives. */
const MAX_WINDOW_BYTES = 4 * 1024 * 1024;

export interface LogWindowCache {
  /** Whether `w` may be read from and written to the cache. */
  storable(w: TimeWindow): boolean;
  /** Notes a window asked of the origin without a lookup (Cache-Status counts it, fresh or not). */
  passedOver(w: TimeWindow): void;
  lookup(w: TimeWindow): Promise<LogEntry[] | undefined>;
  store(w: TimeWindow, entries: readonly LogEntry[]): void;
}

/**
 * The window cache of one log query, or undefined when caching is off for the request.
 * `identity` is the query's full description (LogsQL, local stages, direction, limit).
 */
export function logWindowCache(
  cache: ResultCache | undefined,
  identity: string,
  interval: bigint,
): LogWindowCache | undefined {
  if (!cache || interval <= 0n) return undefined;
  const settled = cache.nowNs() - cache.horizonNs;
  return {
    // Whole aligned windows of the interval, or of a twelfth of it (the pieces of edge windows).
    storable: (w) => {
      const length = w.end - w.start;
      return (
        (length === interval || length === interval / BigInt(PIECES_PER_WINDOW)) &&
        length > 0n &&
        mod(w.start, length) === 0n &&
        w.end <= settled
      );
    },
    passedOver(w) {
      cache.stats.notLookedUp(w.end > settled);
    },
    async lookup(w) {
      const started = Date.now();
      const body = await cache.store.get(await cache.keyOf(identity, w), w);
      const entries = body === undefined ? undefined : decodeEntries(body);
      cache.stats.lookedUp("logResult", entries ? body : undefined, Date.now() - started, w.end - w.start);
      return entries;
    },
    store(w, entries) {
      // Encoding thousands of entries costs milliseconds the client need not wait for: it runs
      // once the answer is out. The entries are final by now; nothing changes them afterwards.
      cache.later(() => {
        const body = encodeEntries(entries);
        if (body.length > MAX_WINDOW_BYTES) return;
        cache.stats.stored("logResult", body);
        cache.defer(cache.keyOf(identity, w).then((key) => cache.store.put(key, body, w)));
      });
    },
  };
}

/** `line` is null when `rawLine` (its JSON literal) is kept: it is read back from that. */
type StoredEntry = [
  ts: string,
  line: string | null,
  stream: LogEntry["stream"],
  metadata: LogEntry["metadata"],
  parsed: LogEntry["parsed"],
  rawLine?: string,
];

export function encodeEntries(entries: readonly LogEntry[]): string {
  const out: StoredEntry[] = entries.map((e) => {
    if (e.rawLine === undefined) return [String(e.ts), e.line, e.stream, e.metadata, e.parsed];
    return [String(e.ts), null, e.stream, e.metadata, e.parsed, e.rawLine];
  });
  return JSON.stringify({ entries: out });
}

/** The stored entries, or undefined when the body is not a window entry (a corrupt entry is a miss). */
export function decodeEntries(body: string): LogEntry[] | undefined {
  try {
    const parsed = JSON.parse(body) as { entries?: unknown };
    if (!Array.isArray(parsed?.entries)) return undefined;
    const out: LogEntry[] = [];
    for (const item of parsed.entries as unknown[]) {
      if (!Array.isArray(item) || item.length < 5) return undefined;
      const [ts, stored, stream, metadata, parsedLabels, rawLine] = item as StoredEntry;
      if (typeof ts !== "string" || !/^-?\d+$/.test(ts)) return undefined;
      if (!isLabels(stream) || !isLabels(metadata) || !isLabels(parsedLabels)) return undefined;
      const line = typeof stored === "string" ? stored : stored === null ? lineOf(rawLine) : undefined;
      if (line === undefined) return undefined;
      const entry: LogEntry = { ts: BigInt(ts), line, stream, metadata, parsed: parsedLabels };
      if (typeof rawLine === "string") entry.rawLine = rawLine;
      out.push(entry);
    }
    return out;
  } catch {
    return undefined;
  }
}

/** The line a stored JSON literal spells, or undefined when it is not a string literal. */
function lineOf(rawLine: unknown): string | undefined {
  if (typeof rawLine !== "string") return undefined;
  const line: unknown = JSON.parse(rawLine);
  return typeof line === "string" ? line : undefined;
}

function isLabels(v: unknown): v is Record<string, string> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  for (const x of Object.values(v)) if (typeof x !== "string") return false;
  return true;
}

function mod(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}

/**
 * How a log query uses the log-window cache (log-windows.ts): which windows it is cut into, which
 * of them are looked up, how the missing ones are grouped into origin requests, which answers are
 * stored, and how cached and fresh windows are joined in direction order. Execution (exec/logs.ts)
 * supplies the origin requests, runs the groups with its concurrency and keeps the top `limit`;
 * everything that depends on the cache is decided here, so that a query without a cache is planned
 * without any of it.
 */
import type { Direction, LogEntry } from "../engine/types";
import type { TimeWindow } from "../core/time-window";
import type { SubrequestBudget } from "../origin/subrequest-budget";
import { type LogWindowCache, logWindowCache, PIECES_PER_WINDOW } from "./log-windows";
import type { ResultCache } from "./result-cache";

/** A log query, as far as its cached windows depend on it. */
export interface LogWindowQuery {
  /** The query's full description (LogsQL sent, local stages, direction, limit): part of every key. */
  identity: string;
  range: TimeWindow;
  /** The query's split interval: cached windows are aligned multiples of it. */
  splitInterval: bigint;
  direction: Direction;
  limit: number;
  /**
   * Aligned windows of `length` covering `range`, in direction order (newest first when asked):
   * execution's own split (exec/windows.ts), so that cached and uncached windows align alike.
   */
  split: (range: TimeWindow, length: bigint, newestFirst: boolean) => TimeWindow[];
}

/** What one origin request answered, or what the cache held, for some windows of the query. */
export interface WindowAnswer {
  entries: LogEntry[];
  rows: number;
  bytes: number;
  subqueries: number;
  /** Entry text the heaps that read these entries charged to the query's budget. */
  charged: number;
}

/** One origin request over adjacent windows (direction order): each window's best `limit` entries. */
export type FetchWindows = (
  ws: readonly TimeWindow[],
) => Promise<{ perWindow: LogEntry[][]; rows: number; bytes: number; charged: number }>;

/** The cached reading of one log query; see planLogWindows. */
export interface LogWindowPlan {
  /**
   * For a query the origin cuts to `limit` itself: its windows read in direction order, from the
   * cache or the origin (`fetch`, one request per call), each answer handed to `consume` until it
   * returns false.
   */
  readCut(fetch: (w: TimeWindow) => Promise<WindowAnswer>, consume: (answer: WindowAnswer) => boolean): Promise<void>;
  /**
   * For any other query: the windows grouped by the interval they belong to, in direction order.
   * Aligned, so that historical ones are the same from one refresh to the next; the pieces of one
   * interval go together, so that a range nothing is cached for costs a request per interval, not
   * per piece. Each group is read by `readGroup`, with whatever concurrency execution allows.
   */
  groups(): TimeWindow[][];
  readGroup(pieces: readonly TimeWindow[], fetch: FetchWindows): Promise<WindowAnswer>;
}

/**
 * The cached reading of `q`, or undefined when it is better asked of the origin without the cache:
 * caching off, the request's origin budget too small for the cached windows, or a range shorter
 * than one cache window (it would be cut into pieces, each a lookup and an origin request of its
 * own, to cache parts that cost a single small request).
 */
export function planLogWindows(
  results: ResultCache | undefined,
  budget: SubrequestBudget,
  q: LogWindowQuery,
): LogWindowPlan | undefined {
  // The cached windows cost at most one request each, plus up to a piece each in the two edge
  // windows kept in pieces: they must fit the request's origin budget, or the range is planned
  // without the cache (where windows are widened to fit).
  const cacheWindowCount = Math.min(Number(MAX_CACHE_WINDOWS), budget.originLeft - 2 * PIECES_PER_WINDOW);
  const interval = cacheInterval(q.splitInterval, q.range, BigInt(Math.max(1, cacheWindowCount)));
  if (cacheWindowCount < 1 || q.range.end - q.range.start < interval) return undefined;
  const cache = logWindowCache(results, q.identity, interval);
  if (!cache) return undefined;
  const backward = q.direction === "backward";
  const maxRun = Math.max(1, Math.min(PIECES_PER_WINDOW, Math.floor(RUN_ENTRIES / q.limit)));
  return {
    readCut: (fetch, consume) =>
      readCutWindows(cacheWindows(q, interval, cache), cache, { limit: q.limit, backward, fetch, consume }),
    groups: () => cacheWindowGroups(q, interval, cache),
    readGroup: (pieces, fetch) => readGroup(pieces, cache, { limit: q.limit, maxRun, fetch }),
  };
}

/**
 * The cached windows of a query the origin cuts to `limit`, in direction order. Windows found in
 * the cache are used as they are; a window not found is asked for alone (it is the edge of what is
 * missing), and when it held some entries but fewer than `limit`, the next request covers twice as
 * many of the following missing windows as its density says the missing entries need — all of
 * them when it held none. A sparse query (a rare substring over days) so costs two requests
 * instead of one per window, as exec/logs.ts `nearEdgeFirst` does for uncached ranges.
 *
 * A window asked for alone is stored as its answer. Of a request over several windows, those the
 * answer proves complete are stored: all when it has fewer than `limit` entries, else the ones
 * wholly on the near side of its last entry (the origin's cut can fall among entries of that very
 * nanosecond, never before it); the window holding the cut is asked for again by a later refresh.
 */
async function readCutWindows(
  windows: readonly TimeWindow[],
  cache: LogWindowCache,
  opts: {
    limit: number;
    backward: boolean;
    fetch: (w: TimeWindow) => Promise<WindowAnswer>;
    consume: (answer: WindowAnswer) => boolean;
  },
): Promise<void> {
  const lookup = lookupOnce(windows, cache);
  // How many missing windows the next request may cover: one after a cached window.
  let take = 1;
  let i = 0;
  while (i < windows.length) {
    const cached = await lookup(i);
    if (cached) {
      if (!opts.consume({ entries: cached, rows: 0, bytes: 0, subqueries: 0, charged: 0 })) return;
      take = 1;
      i++;
      continue;
    }
    // Windows i..end-1: missing, at most `take` of them (looked up together).
    let end = i + 1;
    if (take > 1) {
      const next: number[] = [];
      for (let k = end; k < Math.min(windows.length, i + take); k++) next.push(k);
      const ahead = await Promise.all(next.map(lookup));
      const hit = ahead.findIndex((entries) => entries !== undefined);
      end += hit < 0 ? next.length : hit;
    }
    const part = windows.slice(i, end);
    const answer = await opts.fetch(spanOf(part));
    storeComplete(part, answer.entries, cache, opts.limit, opts.backward);
    if (!opts.consume(answer)) return;
    const found = answer.entries.length;
    take = part.length === 1 && found > 0 ? Math.ceil((2 * (opts.limit - found)) / found) : windows.length;
    i = end;
  }
}

/**
 * At most this many entries (a run's pieces times `limit`) are held by one request over several
 * missing pieces of an interval, since each piece keeps its own top `limit` to be stored: all
 * twelve pieces go together up to Grafana's default limit of 1000 lines, fewer above it.
 */
const RUN_ENTRIES = 12_000;

/**
 * The answer of one interval's windows (direction order): the pieces found in the cache, and each
 * run of adjacent missing pieces (at most `maxRun`) asked for in one request, whose rows are split
 * back into the pieces and stored. Stops once `limit` entries are in hand: later pieces cannot win.
 */
async function readGroup(
  pieces: readonly TimeWindow[],
  cache: LogWindowCache,
  opts: {
    limit: number;
    maxRun: number;
    fetch: (
      ws: readonly TimeWindow[],
    ) => Promise<{ perWindow: LogEntry[][]; rows: number; bytes: number; charged: number }>;
  },
): Promise<WindowAnswer> {
  const answer: WindowAnswer = { entries: [], rows: 0, bytes: 0, subqueries: 0, charged: 0 };
  const lookup = lookupOnce(pieces, cache);
  let i = 0;
  while (i < pieces.length && answer.entries.length < opts.limit) {
    const cached = await lookup(i);
    if (cached) {
      answer.entries.push(...cached);
      i++;
      continue;
    }
    // The run of missing pieces from i: the following ones are looked up together.
    const last = Math.min(pieces.length, i + opts.maxRun);
    for (let k = i + 1; k < last; k++) void lookup(k);
    let end = i + 1;
    while (end < last && (await lookup(end)) === undefined) end++;
    const run = pieces.slice(i, end);
    const fetched = await opts.fetch(run);
    answer.rows += fetched.rows;
    answer.bytes += fetched.bytes;
    answer.charged += fetched.charged;
    answer.subqueries++;
    run.forEach((w, k) => {
      if (cache.storable(w)) cache.store(w, fetched.perWindow[k]!);
      answer.entries.push(...fetched.perWindow[k]!);
    });
    i = end;
  }
  // Pieces are in direction order and do not overlap: the first `limit` entries are the best.
  if (answer.entries.length > opts.limit) answer.entries.length = opts.limit;
  return answer;
}

/** The cache lookup of `windows[k]`, made at most once however often it is asked for. */
function lookupOnce(
  windows: readonly TimeWindow[],
  cache: LogWindowCache,
): (k: number) => Promise<LogEntry[] | undefined> {
  const lookups = new Map<number, Promise<LogEntry[] | undefined>>();
  return (k) => {
    let p = lookups.get(k);
    if (!p) {
      const w = windows[k]!;
      if (cache.storable(w)) p = cache.lookup(w);
      else {
        cache.passedOver(w);
        p = Promise.resolve(undefined);
      }
      lookups.set(k, p);
    }
    return p;
  };
}

/** The smallest window holding every one of `ws`. */
export function spanOf(ws: readonly TimeWindow[]): TimeWindow {
  let start = ws[0]!.start;
  let end = ws[0]!.end;
  for (const w of ws) {
    if (w.start < start) start = w.start;
    if (w.end > end) end = w.end;
  }
  return { start, end };
}

/** Stores each storable window of `part` whose entries `entries` (the part's answer, direction order) hold in full. */
function storeComplete(
  part: readonly TimeWindow[],
  entries: readonly LogEntry[],
  cache: LogWindowCache,
  limit: number,
  backward: boolean,
): void {
  const last = entries[entries.length - 1];
  // One window's answer is its top `limit` whatever it holds.
  const cut = part.length === 1 || entries.length < limit || last === undefined ? undefined : last.ts;
  for (const w of part) {
    if (!cache.storable(w)) continue;
    // Entries strictly nearer than the last one are all in the answer.
    if (cut !== undefined && (backward ? w.start <= cut : w.end > cut)) continue;
    cache.store(
      w,
      entries.filter((e) => e.ts >= w.start && e.ts < w.end),
    );
  }
}

/**
 * The windows of a cached log query, in direction order: aligned windows of `interval`; the ones
 * that cannot be kept whole (the partial ones at the range's ends, the one still growing) are cut
 * into aligned windows of a twelfth of it, so that a sliding range also reuses the settled parts
 * of its edge windows and asks again only for the last few minutes.
 */
function cacheWindows(q: LogWindowQuery, interval: bigint, cache: LogWindowCache): TimeWindow[] {
  return cacheWindowGroups(q, interval, cache).flat();
}

/** cacheWindows grouped by the interval window they belong to. */
function cacheWindowGroups(q: LogWindowQuery, interval: bigint, cache: LogWindowCache): TimeWindow[][] {
  const fine = interval / BigInt(PIECES_PER_WINDOW);
  const groups: TimeWindow[][] = [];
  const backward = q.direction === "backward";
  for (const w of q.split(q.range, interval, backward)) {
    if (fine <= 0n || cache.storable(w)) {
      groups.push([w]);
      continue;
    }
    // Adjacent pieces that cannot be kept either are asked for together.
    const out: TimeWindow[] = [];
    let run: TimeWindow | undefined;
    for (const piece of q.split(w, fine, backward)) {
      if (cache.storable(piece)) {
        if (run) out.push(run);
        run = undefined;
        out.push(piece);
      } else {
        run = run ? { start: min(run.start, piece.start), end: max(run.end, piece.end) } : piece;
      }
    }
    if (run) out.push(run);
    groups.push(out);
  }
  return groups;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/** At most this many cacheable windows per query: long ranges get wider (still aligned) windows. */
const MAX_CACHE_WINDOWS = 24n;

/** The split interval, or a multiple of it when the range would otherwise need more than `most` windows. */
function cacheInterval(split: bigint, range: TimeWindow, most: bigint): bigint {
  if (split <= 0n) return split;
  const needed = (range.end - range.start) / (most * split);
  return split * (needed + 1n);
}

/**
 * Executes a LogQL log query: the origin selects and filters rows window by window (newest window
 * first for backward, oldest first for forward), the Worker runs the remaining pipeline stages and
 * keeps the `limit` entries Loki would return. It stops as soon as later windows cannot contribute.
 *
 * When every stage runs in the origin, each request is cut to `limit` there and windows go one at a
 * time from the edge (nearEdgeFirst); otherwise aligned windows run with bounded concurrency.
 */
import type { LogSelectorExpr } from "../logql/ast";
import type { Direction, LogEntry } from "../engine/types";
import { compileLogPipeline } from "../engine/pipeline";
import { planLogQuery } from "../plan/logquery";
import type { OriginClient } from "../origin/client";
import type { TimeWindow } from "../core/time-window";
import { EntryTextBudget, EntryTopK } from "./topk";
import { lineLength } from "../engine/literal-row";
import { runWindows, splitWindows } from "./windows";
import { astKey } from "../logql/ast-key";
import { type LogWindowCache, logWindowCache, PIECES_PER_WINDOW } from "../cache/log-windows";
import { levelsCanWait } from "../plan/derived-use";
import { addDetectedLevelFromRow, derivedNames } from "../engine/derived-fields";

export interface LogQueryOptions {
  window: TimeWindow;
  limit: number;
  direction: Direction;
  splitInterval: bigint;
  maxConcurrency: number;
  signal?: AbortSignal;
  /** Label-filter prefilters in the origin (on unless false; PUSHDOWN=off turns them off). */
  prefilter?: boolean;
  /** The query's share of the isolate's memory admission, grown with the text its entries hold. */
  memory?: { cover(chars: number): void };
}

export interface LogQueryResult {
  entries: LogEntry[];
  stats: ScanStats;
}

export interface ScanStats {
  rowsScanned: number;
  bytesScanned: number;
  subqueries: number;
}

export async function executeLogQuery(
  client: OriginClient,
  expr: LogSelectorExpr,
  opts: LogQueryOptions,
): Promise<LogQueryResult> {
  const plan = planLogQuery(expr, { prefilter: opts.prefilter, derived: client.derivedFields });
  const pipeline = compileLogPipeline(plan.local);
  // detected_level is read from each row only when a stage may see it; otherwise it is added, from
  // the row as read, to the entries the pipeline keeps, the few out of all the rows read.
  const lateLevels =
    client.derivedFields?.discoverLogLevels === true && levelsCanWait(plan.local, derivedNames(client.derivedFields));
  const backward = opts.direction === "backward";
  // Every heap of the query charges one budget: windows read at once cannot each hold all of it.
  const budget = new EntryTextBudget(opts.limit, opts.memory);
  const top = new EntryTopK(opts.limit, opts.direction, budget);
  const stats: ScanStats = { rowsScanned: 0, bytesScanned: 0, subqueries: 0 };

  /**
   * One origin request over adjacent windows `ws` (direction order): each window's best `limit`
   * entries, exactly as a request of its own would give them, and what the request scanned.
   */
  const fetchWindows = async (logsql: string, ws: readonly TimeWindow[], signal: AbortSignal | undefined) => {
    const tops = ws.map(() => new EntryTopK(opts.limit, opts.direction, budget));
    let rows = 0;
    let bytes = 0;
    let at = 0;
    const scoped = signal ? client.withSignal(signal) : client;
    for await (const batch of scoped.logRows(logsql, spanOf(ws), { levels: !lateLevels })) {
      rows += batch.length;
      for (const row of batch) {
        bytes += lineLength(row);
        // Rows come in runs of nearby times: the previous row's window is tried first.
        if (row.ts < ws[at]!.start || row.ts >= ws[at]!.end) {
          at = ws.findIndex((w) => row.ts >= w.start && row.ts < w.end);
          if (at < 0) {
            // Outside the span asked for: no window of this request may keep it.
            at = 0;
            continue;
          }
        }
        const top = tops[at]!;
        if (!top.admits(row.ts)) continue;
        const entry = pipeline.process(row);
        if (!entry) continue;
        if (lateLevels) addDetectedLevelFromRow(entry, row);
        top.push(entry);
      }
    }
    // The entries stay charged until the query's heap takes them over (consume).
    const charged = tops.reduce((n, top) => n + top.heldChars, 0);
    return { perWindow: tops.map((top) => top.sorted()), rows, bytes, charged };
  };
  /** One origin request over `w`: its best `limit` entries, and what it scanned. */
  const fetchWindow = async (logsql: string, w: TimeWindow, signal: AbortSignal | undefined) => {
    const { perWindow, rows, bytes, charged } = await fetchWindows(logsql, [w], signal);
    return { entries: perWindow[0]!, rows, bytes, subqueries: 1, charged };
  };
  const consume = (result: Awaited<ReturnType<typeof fetchWindow>>): boolean => {
    stats.subqueries += result.subqueries;
    stats.rowsScanned += result.rows;
    stats.bytesScanned += result.bytes;
    budget.release(result.charged);
    for (const e of result.entries) top.push(e);
    // Windows come in direction order and do not overlap: once full, later ones cannot win.
    return !top.full;
  };

  // No local stage can drop rows: the origin sorts and cuts each request to `limit` itself.
  const logsql = plan.localKeepsEveryRow
    ? `${plan.logsql} | sort by (_time${backward ? " desc" : ""}) | limit ${opts.limit}`
    : plan.logsql;
  // The cached windows cost at most one request each, plus up to a piece each in the two edge
  // windows kept in pieces: they must fit the request's origin budget, or the range is planned
  // without the cache (below, where windows are widened to fit).
  const cacheWindowCount = Math.min(Number(MAX_CACHE_WINDOWS), client.budget.originLeft - 2 * PIECES_PER_WINDOW);
  const interval = cacheInterval(opts.splitInterval, opts.window, BigInt(Math.max(1, cacheWindowCount)));
  // A range shorter than one cache window would be cut into pieces, each a lookup and an origin
  // request of its own, to cache parts that cost a single small request: it is asked for directly.
  const cache =
    cacheWindowCount >= 1 && opts.window.end - opts.window.start >= interval
      ? logWindowCache(client, JSON.stringify([logsql, astKey(plan.local), opts.direction, opts.limit]), interval)
      : undefined;

  if (cache && plan.localKeepsEveryRow) {
    await readCutWindows(cacheWindows(opts.window, interval, backward, cache), cache, {
      limit: opts.limit,
      backward,
      fetch: (w) => fetchWindow(logsql, w, opts.signal),
      consume,
    });
  } else if (cache) {
    // Aligned windows, so that historical ones are the same from one refresh to the next: each is
    // read from the cache when it can be, else asked for and kept. The pieces of one interval go
    // together, so that a range nothing is cached for costs a request per interval, not per piece.
    const maxRun = Math.max(1, Math.min(PIECES_PER_WINDOW, Math.floor(RUN_ENTRIES / opts.limit)));
    await runWindows(
      cacheWindowGroups(opts.window, interval, backward, cache),
      opts.maxConcurrency,
      opts.signal,
      (pieces, signal) =>
        readGroup(pieces, cache, {
          limit: opts.limit,
          maxRun,
          fetch: (ws) => fetchWindows(logsql, ws, signal),
        }),
      consume,
    );
  } else if (plan.localKeepsEveryRow) {
    // At most three requests; with fewer left, the whole range is asked for in one.
    const edgeInterval = client.budget.originLeft >= 3 ? opts.splitInterval : 0n;
    for (const w of nearEdgeFirst(opts.window, edgeInterval, backward, opts.limit)) {
      const result = await fetchWindow(logsql, w.window, opts.signal);
      if (!consume(result)) break;
      w.observe(result.entries.length);
    }
  } else {
    await runWindows(
      splitWindows(opts.window, opts.splitInterval, backward, client.budget.windowShare()),
      opts.maxConcurrency,
      opts.signal,
      (w, signal) => fetchWindow(plan.logsql, w, signal),
      consume,
    );
  }
  return { entries: top.sorted(), stats };
}

interface WindowAnswer {
  entries: LogEntry[];
  rows: number;
  bytes: number;
  subqueries: number;
  /** Entry text the heaps that read these entries charged to the query's budget. */
  charged: number;
}

/**
 * The cached windows of a query the origin cuts to `limit`, in direction order. Windows found in
 * the cache are used as they are; a window not found is asked for alone (it is the edge of what is
 * missing), and when it held some entries but fewer than `limit`, the next request covers twice as
 * many of the following missing windows as its density says the missing entries need — all of
 * them when it held none. A sparse query (a rare substring over days) so costs two requests
 * instead of one per window, as nearEdgeFirst does for uncached ranges.
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

function spanOf(ws: readonly TimeWindow[]): TimeWindow {
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
function cacheWindows(range: TimeWindow, interval: bigint, backward: boolean, cache: LogWindowCache): TimeWindow[] {
  return cacheWindowGroups(range, interval, backward, cache).flat();
}

/** cacheWindows grouped by the interval window they belong to. */
function cacheWindowGroups(
  range: TimeWindow,
  interval: bigint,
  backward: boolean,
  cache: LogWindowCache,
): TimeWindow[][] {
  const fine = interval / BigInt(PIECES_PER_WINDOW);
  const groups: TimeWindow[][] = [];
  for (const w of splitWindows(range, interval, backward)) {
    if (fine <= 0n || cache.storable(w)) {
      groups.push([w]);
      continue;
    }
    // Adjacent pieces that cannot be kept either are asked for together.
    const out: TimeWindow[] = [];
    let run: TimeWindow | undefined;
    for (const piece of splitWindows(w, fine, backward)) {
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

/**
 * The windows of a query the origin cuts to `limit`, nearest the result's edge (the end for
 * backward) first. One request answers any range, but the origin then reads all of it; the answer
 * usually lies near the edge. So: one interval at the edge; if it holds fewer than `limit`
 * entries, a second window sized from the density it showed (twice the span the missing entries
 * should need); then everything left in one request. At most three requests, one when the range
 * is short, and each skipped whenever the entries already found are certain to be the answer.
 */
export function* nearEdgeFirst(
  range: TimeWindow,
  interval: bigint,
  backward: boolean,
  limit: number,
): Generator<{ window: TimeWindow; observe: (entries: number) => void }> {
  const length = range.end - range.start;
  let found = 0;
  const observe = (n: number) => {
    found += n;
  };
  if (interval <= 0n || length <= 2n * interval) {
    yield { window: range, observe };
    return;
  }
  const take = (from: bigint, span: bigint): TimeWindow =>
    backward
      ? { start: range.end - from - span, end: range.end - from }
      : { start: range.start + from, end: range.start + from + span };
  yield { window: take(0n, interval), observe };
  let covered = interval;
  if (found > 0) {
    // Twice the span that, at the edge's density, holds the entries still missing.
    const span = (interval * BigInt(limit - found) * 2n) / BigInt(found);
    if (span > 0n && span < (length - covered) / 2n) {
      yield { window: take(covered, span), observe };
      covered += span;
    }
  }
  yield { window: take(covered, length - covered), observe };
}

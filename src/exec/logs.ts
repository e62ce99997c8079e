/**
 * Executes a LogQL log query: the origin selects and filters rows window by window (newest window
 * first for backward, oldest first for forward), the Worker runs the remaining pipeline stages and
 * keeps the `limit` entries Loki would return. It stops as soon as later windows cannot contribute.
 *
 * When every stage runs in the origin, or the origin keeps only rows the parsed fields' filters
 * may keep (plan/parsed-filter.ts), the origin sorts each request and cuts it to the entries still
 * missing (readCut; pages when the Worker drops some of the rows sent). Uncached, the range goes
 * from the edge: the edge interval and, beside it, when only the stream selector reaches the origin,
 * the span a count of the range says holds the missing entries; otherwise (line filters, parsed
 * fields' filters: a count would cost the origin the filters themselves) a window sized from the
 * edge's density, then the rest (nearEdgeFirst). Any other query reads aligned windows with
 * bounded concurrency.
 * Which windows the results cache serves, and which answers it keeps, is the cache's plan
 * (cache/log-window-plan.ts): this module only runs the requests it leaves to the origin.
 */
import type { LogSelectorExpr } from "../logql/ast";
import type { Direction, LogEntry } from "../engine/types";
import { compileLogPipeline } from "../engine/pipeline";
import { planLogRows } from "../plan/parsed-filter";
import type { TimeWindow } from "../core/time-window";
import { EntryTextBudget, EntryTopK, entryTextLength } from "./topk";
import { lineLength } from "../engine/literal-row";
import { runWindows, splitWindows } from "./windows";
import { astKey } from "../logql/ast-key";
import { spanOf } from "../cache/log-window-plan";
import type { CachedOrigin } from "../cache/cached-origin";
import { levelsCanWait } from "../plan/derived-use";
import { addDetectedLevelFromRow, derivedNames } from "../engine/derived-fields";
import type { LocalRows } from "./local-rows";
import { printExpr } from "../logql/printer";
import { parseVLTime } from "../origin/timefmt";

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
  /**
   * The rows the request may read (MAX_LOCAL_ROWS), counted as they arrive: a log query stops once it
   * holds `limit` entries, so the rows its range holds would refuse queries that read few of them.
   */
  localRows?: LocalRows;
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
  client: CachedOrigin,
  expr: LogSelectorExpr,
  opts: LogQueryOptions,
): Promise<LogQueryResult> {
  const plan = planLogRows(expr, { prefilter: opts.prefilter, derived: client.derivedFields });
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
  const shape = opts.localRows ? printExpr(expr) : "";

  /**
   * One origin request over adjacent windows `ws` (direction order): each window's best `limit`
   * entries, exactly as a request of its own would give them, and what the request scanned.
   */
  const fetchWindows = async (
    logsql: string,
    ws: readonly TimeWindow[],
    signal: AbortSignal | undefined,
    keep = opts.limit,
  ) => {
    const tops = ws.map(() => new EntryTopK(keep, opts.direction, budget));
    let rows = 0;
    let bytes = 0;
    let at = 0;
    // The first and last row as sent: a sorted answer's ends, where a cut one may continue.
    let firstTs: bigint | undefined;
    let lastTs: bigint | undefined;
    const scoped = signal ? client.withSignal(signal) : client;
    for await (const batch of scoped.logRows(logsql, spanOf(ws), { levels: !lateLevels })) {
      rows += batch.length;
      opts.localRows?.count(batch.length, shape);
      if (batch.length > 0) {
        firstTs ??= batch[0]!.ts;
        lastTs = batch[batch.length - 1]!.ts;
      }
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
    return { perWindow: tops.map((top) => top.sorted()), rows, bytes, charged, firstTs, lastTs };
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

  /** The origin sorts the rows in direction order and sends the first `n`. */
  const cutQuery = (n: number) => `${plan.logsql} | sort by (_time${backward ? " desc" : ""}) | limit ${n}`;
  // No local stage can drop rows: the origin sorts and cuts each request to `limit` itself.
  const logsql = plan.localKeepsEveryRow ? cutQuery(opts.limit) : plan.logsql;
  // The origin keeps (almost) only rows the answer holds: read as a cut query, page by page.
  const cut = plan.localKeepsEveryRow || plan.parsedFilter;
  // Only the stream selector reaches the origin, and every row it selects is an entry: counting
  // them reads no line.
  const countable = plan.localKeepsEveryRow && expr.pipeline.every((s) => s.kind !== "LineFilter");
  const long = (w: TimeWindow) => w.end - w.start > 2n * opts.splitInterval && opts.splitInterval > 0n;

  /**
   * The best `need` entries of `w`, from requests the origin sorts and cuts. When no Worker stage
   * drops rows, one request of `need` rows. Otherwise the origin's rows are a superset of what the
   * Worker keeps: while a full answer (as many rows as asked) leaves entries missing, the next
   * request covers the rest of `w` past its last row, asking for as many more rows as the kept
   * share says the missing entries need. The rows at the last row's very nanosecond may have been
   * cut among themselves: they are left out and read again with the rest.
   */
  const readCut = async (w: TimeWindow, need: number, signal: AbortSignal | undefined) => {
    const out = { entries: [] as LogEntry[], rows: 0, bytes: 0, subqueries: 0, charged: 0 };
    let rest: TimeWindow | undefined = w;
    let ask = need;
    while (rest && out.entries.length < need) {
      const missing = need - out.entries.length;
      // With one request left, the rest of the window whole: the Worker's heap keeps what it needs.
      const whole = !plan.localKeepsEveryRow && client.budget.originLeft < 2;
      const page = await fetchWindows(whole ? plan.logsql : cutQuery(ask), [rest], signal, missing);
      out.rows += page.rows;
      out.bytes += page.bytes;
      out.subqueries++;
      let entries = page.perWindow[0]!;
      let charged = page.charged;
      const full = !whole && page.rows >= ask && page.lastTs !== undefined;
      const last = page.lastTs!;
      if (!full || entries.length >= missing) {
        rest = undefined;
      } else if (page.firstTs === last) {
        // Every row at one nanosecond: that nanosecond whole, then what lies past it.
        for (const e of entries) budget.release(entryTextLength(e));
        const tie = await fetchWindows(plan.logsql, [{ start: last, end: last + 1n }], signal, missing);
        out.rows += tie.rows;
        out.bytes += tie.bytes;
        out.subqueries++;
        entries = tie.perWindow[0]!;
        charged = tie.charged;
        rest = backward ? { start: rest.start, end: last } : { start: last + 1n, end: rest.end };
      } else {
        const kept = entries.filter((e) => e.ts !== last);
        for (const e of entries) if (e.ts === last) charged -= release(e);
        entries = kept;
        rest = backward ? { start: rest.start, end: last + 1n } : { start: last, end: rest.end };
      }
      for (const e of entries) out.entries.push(e);
      out.charged += charged;
      if (rest) {
        const stillMissing = need - out.entries.length;
        // Rows per kept entry in this page, twice over, within ten times the limit.
        const perEntry = entries.length > 0 ? page.rows / entries.length : 10;
        ask = Math.max(stillMissing, Math.min(10 * opts.limit, Math.ceil(2 * stillMissing * perEntry)));
      }
    }
    return out;
  };
  const release = (e: LogEntry): number => {
    const chars = entryTextLength(e);
    budget.release(chars);
    return chars;
  };

  /** `range` in aligned windows, several in flight, in direction order. */
  const readSplit = (range: TimeWindow) =>
    runWindows(
      splitWindows(range, opts.splitInterval, backward, client.budget.windowShare()),
      opts.maxConcurrency,
      opts.signal,
      (w, signal) => fetchWindow(plan.logsql, w, signal),
      consume,
    );
  const windows = client.logWindows({
    identity: JSON.stringify([logsql, astKey(plan.local), opts.direction, opts.limit]),
    range: opts.window,
    splitInterval: opts.splitInterval,
    direction: opts.direction,
    limit: opts.limit,
    split: splitWindows,
  });

  if (windows && cut) {
    await windows.readCut((w) => readCut(w, opts.limit, opts.signal), consume);
  } else if (windows) {
    await runWindows(
      windows.groups(),
      opts.maxConcurrency,
      opts.signal,
      (pieces, signal) => windows.readGroup(pieces, (ws) => fetchWindows(logsql, ws, signal)),
      consume,
    );
  } else if (cut && countable && client.budget.originLeft >= 4 && long(opts.window)) {
    // Counting the selector's rows costs the origin little (timestamps only). Asked for beside the
    // edge interval, the count usually comes back long before the edge's rows: when it says the
    // edge cannot fill `limit`, the span past it that holds the missing entries is read at once,
    // alongside the edge, so the answer takes about one request's time instead of two.
    const { edge, rest } = edgeAndRest(opts.window, opts.splitInterval, backward);
    const step = countStep(opts.window, opts.splitInterval);
    const counting = new AbortController();
    const ahead = new AbortController();
    const stopAhead = () => ahead.abort(opts.signal?.reason);
    opts.signal?.addEventListener("abort", stopAhead);
    const counts = client
      .withSignal(counting.signal)
      .hits(plan.logsql, opts.window, { step: `${step / SECOND_NS}s` }, true)
      .then((answer) => bucketCounts(answer.hits))
      // Without the count, the rest is asked for whole once the edge is read: the same answer.
      .catch(() => undefined);
    const edgeRead = readCut(edge, opts.limit, opts.signal);
    edgeRead.catch(() => {});
    try {
      const known = await counts;
      let span = rest;
      let spanRead: ReturnType<typeof readCut> | undefined;
      const inEdge = known ? rowsWithin(known, step, edge) : opts.limit;
      if (known && inEdge < opts.limit) {
        // The edge holds at least `inEdge` rows (whole buckets only): the span is asked for what
        // that leaves, never less than what the edge will actually leave.
        span = spanHolding(known, step, rest, opts.limit - inEdge, backward);
        spanRead = readCut(span, opts.limit - inEdge, ahead.signal);
        spanRead.catch(() => {});
      }
      if (consume(await edgeRead)) {
        spanRead ??= readCut(rest, opts.limit - top.size, opts.signal);
        if (consume(await spanRead) && span !== rest) {
          // Rows the count did not see yet (arrived since): what is left of the rest.
          const left = backward ? { start: rest.start, end: span.start } : { start: span.end, end: rest.end };
          if (left.end > left.start) consume(await readCut(left, opts.limit - top.size, opts.signal));
        }
      }
    } finally {
      counting.abort();
      ahead.abort();
      opts.signal?.removeEventListener("abort", stopAhead);
    }
  } else if (cut) {
    // At most three windows; with fewer requests left, the whole range is asked for in one. Each
    // asks only for the entries still missing.
    const edgeInterval = client.budget.originLeft >= 3 ? opts.splitInterval : 0n;
    for (const w of nearEdgeFirst(opts.window, edgeInterval, backward, opts.limit)) {
      const result = await readCut(w.window, opts.limit - top.size, opts.signal);
      if (!consume(result)) break;
      w.observe(result.entries.length);
    }
  } else {
    await readSplit(opts.window);
  }
  return { entries: top.sorted(), stats };
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

const SECOND_NS = 1_000_000_000n;
/** At most this many count buckets per request. */
const MAX_COUNT_BUCKETS = 1000n;

/** The interval at the result's edge of `range` (its end for backward) and what lies before it. */
export function edgeAndRest(
  range: TimeWindow,
  interval: bigint,
  backward: boolean,
): { edge: TimeWindow; rest: TimeWindow } {
  return backward
    ? { edge: { start: range.end - interval, end: range.end }, rest: { start: range.start, end: range.end - interval } }
    : {
        edge: { start: range.start, end: range.start + interval },
        rest: { start: range.start + interval, end: range.end },
      };
}

/**
 * Count buckets for `range`: a twelfth of the interval in whole seconds, or a multiple of it when
 * that would make more than MAX_COUNT_BUCKETS (so buckets still tile the edge interval).
 */
export function countStep(range: TimeWindow, interval: bigint): bigint {
  const fine = ((interval / 12n + SECOND_NS - 1n) / SECOND_NS) * SECOND_NS;
  const coarse = (range.end - range.start + MAX_COUNT_BUCKETS - 1n) / MAX_COUNT_BUCKETS;
  return fine * ((coarse + fine - 1n) / fine);
}

/** The origin's `hits` answer as rows per bucket start (all series added). */
export function bucketCounts(series: readonly { timestamps: string[]; values: number[] }[]): Map<bigint, number> {
  const counts = new Map<bigint, number>();
  for (const s of series) {
    s.timestamps.forEach((t, k) => {
      const n = s.values[k] ?? 0;
      if (n > 0) {
        const start = parseVLTime(t);
        counts.set(start, (counts.get(start) ?? 0) + n);
      }
    });
  }
  return counts;
}

/** The rows `counts` (rows per bucket of `step`) puts wholly inside `w`. */
export function rowsWithin(counts: ReadonlyMap<bigint, number>, step: bigint, w: TimeWindow): number {
  let n = 0;
  for (const [b, rows] of counts) if (b >= w.start && b + step <= w.end) n += rows;
  return n;
}

/**
 * The part of `rest` next to the result's edge (its end for backward) that holds at least `need`
 * rows by `counts` (rows per bucket of `step`, by bucket start), or `rest` itself when the counts
 * do not reach `need`. Only buckets wholly inside `rest` count: one straddling its edge may hold
 * rows that belong to the window before it.
 */
export function spanHolding(
  counts: ReadonlyMap<bigint, number>,
  step: bigint,
  rest: TimeWindow,
  need: number,
  backward: boolean,
): TimeWindow {
  const starts = [...counts.keys()]
    .filter((b) => (backward ? b + step <= rest.end : b >= rest.start))
    .sort((a, b) => (backward ? (a > b ? -1 : a < b ? 1 : 0) : a < b ? -1 : a > b ? 1 : 0));
  let held = 0;
  for (const b of starts) {
    held += counts.get(b)!;
    if (held < need) continue;
    if (backward) return b > rest.start ? { start: b, end: rest.end } : rest;
    return b + step < rest.end ? { start: rest.start, end: b + step } : rest;
  }
  return rest;
}

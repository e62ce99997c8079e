/**
 * Executes a LogQL log query: the origin selects and filters rows window by window (newest window
 * first for backward, oldest first for forward), the Worker runs the remaining pipeline stages and
 * keeps the `limit` entries Loki would return. It stops as soon as later windows cannot contribute.
 *
 * When every stage runs in the origin, each request is cut to `limit` there and windows go one at a
 * time from the edge (nearEdgeFirst); when the origin keeps only rows the parsed fields' filters
 * may keep (plan/parsed-filter.ts), the first two edge windows are read whole, then the rest as
 * below; otherwise aligned windows run with bounded concurrency.
 * Which windows the results cache serves, and which answers it keeps, is the cache's plan
 * (cache/log-window-plan.ts): this module only runs the requests it leaves to the origin.
 */
import type { LogSelectorExpr } from "../logql/ast";
import type { Direction, LogEntry } from "../engine/types";
import { compileLogPipeline } from "../engine/pipeline";
import { planLogRows } from "../plan/parsed-filter";
import type { TimeWindow } from "../core/time-window";
import { EntryTextBudget, EntryTopK } from "./topk";
import { lineLength } from "../engine/literal-row";
import { runWindows, splitWindows } from "./windows";
import { astKey } from "../logql/ast-key";
import { spanOf } from "../cache/log-window-plan";
import type { CachedOrigin } from "../cache/cached-origin";
import { levelsCanWait } from "../plan/derived-use";
import { addDetectedLevelFromRow, derivedNames } from "../engine/derived-fields";
import type { LocalRows } from "./local-rows";
import { printExpr } from "../logql/printer";

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
  const fetchWindows = async (logsql: string, ws: readonly TimeWindow[], signal: AbortSignal | undefined) => {
    const tops = ws.map(() => new EntryTopK(opts.limit, opts.direction, budget));
    let rows = 0;
    let bytes = 0;
    let at = 0;
    const scoped = signal ? client.withSignal(signal) : client;
    for await (const batch of scoped.logRows(logsql, spanOf(ws), { levels: !lateLevels })) {
      rows += batch.length;
      opts.localRows?.count(batch.length, shape);
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

  if (windows && plan.localKeepsEveryRow) {
    await windows.readCut((w) => fetchWindow(logsql, w, opts.signal), consume);
  } else if (windows) {
    await runWindows(
      windows.groups(),
      opts.maxConcurrency,
      opts.signal,
      (pieces, signal) => windows.readGroup(pieces, (ws) => fetchWindows(logsql, ws, signal)),
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
  } else if (plan.parsedFilter) {
    // The origin sends little besides the rows the answer needs: windows from the edge as for a
    // query it cuts (the edge interval, then one sized from the density found there), each read
    // whole; what is left goes in aligned windows as below, so a dense remainder still stops early.
    const edgeInterval = client.budget.originLeft >= 3 ? opts.splitInterval : 0n;
    for (const w of nearEdgeFirst(opts.window, edgeInterval, backward, opts.limit)) {
      const rest = backward ? w.window.start === opts.window.start : w.window.end === opts.window.end;
      const whole = w.window.start === opts.window.start && w.window.end === opts.window.end;
      if (rest && !whole) {
        await readSplit(w.window);
        break;
      }
      const result = await fetchWindow(logsql, w.window, opts.signal);
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

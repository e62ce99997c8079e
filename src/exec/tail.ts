/**
 * Live tail that follows ingestion rather than timestamps. VictoriaLogs records no ingestion order:
 * a row becomes searchable about a second after it arrives (a new stream only after its stream
 * index is flushed, and an empty answer may stay cached for seconds), and it carries the timestamp
 * its shipper gave it, possibly well in the past. A window that only moves forward in time, which
 * is also how VictoriaLogs' own `/select/logsql/tail` works (it slides a 5 s window and skips rows
 * at or before the last timestamp sent per stream), loses such rows.
 *
 * So each poll asks the origin how many rows the look-back window [now − lookBack, now − delay)
 * holds per time bucket (one small `hits` answer), and reads only the buckets whose count changed
 * since they were last read: a row that becomes visible raises its bucket's count, wherever its
 * timestamp falls in the window. Rows read are compared with the bucket's keys (SeenEntries, by
 * labels, metadata, timestamp and line) and only unseen ones are sent. A quiet tail costs one
 * count request a second, not a re-read of the window; a poll reads at most `maxReadPerPoll`
 * counted rows (whole buckets, oldest first), and changed buckets beyond wait for the next poll.
 *
 * Every row that becomes visible while the tail is open is sent exactly once if its timestamp is
 * inside the look-back window at that moment. A failed poll loses nothing either: its buckets keep
 * their old counts and are read again. Only when the origin stays unreachable longer than the
 * look-back can rows be missed, and then the tail fails loudly instead.
 */
import type { LogSelectorExpr } from "../logql/ast";
import type { DroppedEntry, LogEntry, TailBatch } from "../engine/types";
import type { OriginClient } from "../origin/client";
import type { TimeWindow } from "../core/time-window";
import type { CachedOrigin } from "../cache/cached-origin";
import { OriginError, RequestError, TooManyOutstandingRequests } from "../core/errors";
import { parseVLTime } from "../origin/timefmt";
import { planLogQuery } from "../plan/logquery";
import { executeLogQuery, type LogQueryResult } from "./logs";
import { logQueryAdmission, logQueryReservation } from "./admission";
import { entryKey, SeenBuckets } from "./tail-seen";

/** Loki's tailer sends at most this many entries per frame. */
export const MAX_ENTRIES_PER_FRAME = 100;
/** Loki's tailer reports at most this many dropped entries in one frame. */
export const MAX_DROPPED_PER_FRAME = 1000;
/** Rows read from the origin per request while reading changed buckets. */
const PAGE_ROWS = 5000;
/** Buckets one count request may return: the look-back is cut into at most this many. */
const MAX_BUCKETS = 300;
const SECOND_NS = 1_000_000_000n;

export interface TailOptions {
  startNs: bigint;
  limit: number;
  delayNs: bigint;
  pollMs: number;
  /** How far back in time each poll looks: the oldest timestamp a newly visible row may carry. */
  lookBackNs: bigint;
  /** Keys SeenEntries may hold: bounds memory when the look-back window holds very many rows. */
  maxSeen: number;
  /** New entries sent per poll; beyond, they are reported as dropped, as Loki does for a slow client. */
  maxSentPerPoll: number;
  /** Counted rows one poll reads (whole buckets; at least one); the other changed buckets wait. */
  maxReadPerPoll: number;
  splitInterval: bigint;
  now: () => bigint;
}

/** Runs until `signal` aborts; `send` gets each batch. Errors propagate to the caller (close 1011). */
export async function runTail(
  client: CachedOrigin,
  expr: LogSelectorExpr,
  o: TailOptions,
  send: (batch: TailBatch) => void,
  signal: AbortSignal,
): Promise<void> {
  const logsql = planLogQuery(expr, { derived: client.derivedFields }).logsql;
  const seen = new SeenBuckets(bucketStep(o.lookBackNs), o.maxSeen);
  const edge = o.now() - o.delayNs;
  const lookBackFrom = (end: bigint): bigint => {
    const from = seen.bucketOf(end - o.lookBackNs);
    return from > seen.floor ? from : seen.floor;
  };

  // Whatever is visible in the look-back window now existed before the tail opened: not new.
  try {
    await catchUp(client, expr, logsql, { start: lookBackFrom(edge), end: edge }, seen, o, Infinity, signal, () => {});
  } catch (err) {
    if (signal.aborted) return;
    throw err;
  }
  // Loki's first frame replays the newest `limit` entries since `start`.
  if (edge > o.startNs) {
    const { entries } = await admitted(
      expr,
      o.limit,
      signal,
      () =>
        executeLogQuery(client, expr, {
          window: { start: o.startNs, end: edge },
          limit: o.limit,
          direction: "backward",
          splitInterval: o.splitInterval,
          maxConcurrency: 1,
          signal,
        }),
      (result) => result,
    );
    // Rows that became visible after the look-back was read: seen now, and read again later.
    const keys = new Map<bigint, number[]>();
    for (const e of entries) push(keys, seen.bucketOf(e.ts), entryKey(e));
    for (const [start, ks] of keys) seen.addKeys(start, ks);
    if (entries.length > 0) send({ entries: byTime(entries), dropped: [] });
  }
  seen.prune(lookBackFrom(edge));

  let lastSuccess = o.now();
  let dropped: DroppedEntry[] = [];
  while (!signal.aborted) {
    await sleep(o.pollMs, signal);
    if (signal.aborted) return;
    const end = o.now() - o.delayNs;
    const from = lookBackFrom(end);
    seen.prune(from);
    let sent = 0;
    const fresh: LogEntry[] = [];
    const flush = (): void => {
      for (let i = 0; i < fresh.length; i += MAX_ENTRIES_PER_FRAME) {
        send({ entries: fresh.slice(i, i + MAX_ENTRIES_PER_FRAME), dropped });
        dropped = [];
      }
      fresh.length = 0;
    };
    try {
      await catchUp(client, expr, logsql, { start: from, end }, seen, o, o.maxReadPerPoll, signal, (e) => {
        if (sent++ < o.maxSentPerPoll) fresh.push(e);
        else dropped = noteDropped(dropped, e);
        if (fresh.length >= MAX_ENTRIES_PER_FRAME) flush();
      });
    } catch (err) {
      flush();
      if (signal.aborted) return;
      // Buckets not read in full keep their old counts: an outage shorter than the look-back loses nothing.
      if (transient(err) && o.now() - lastSuccess < o.lookBackNs - 2n * BigInt(o.pollMs) * 1_000_000n) continue;
      throw err;
    }
    flush();
    lastSuccess = o.now();
  }
}

/** Buckets of whole seconds, wider when the look-back would otherwise need more than MAX_BUCKETS. */
function bucketStep(lookBackNs: bigint): bigint {
  const seconds = (lookBackNs + SECOND_NS * BigInt(MAX_BUCKETS) - 1n) / (SECOND_NS * BigInt(MAX_BUCKETS));
  return (seconds > 1n ? seconds : 1n) * SECOND_NS;
}

/**
 * Counts the rows of `window` per bucket, then reads the buckets whose count differs from the one
 * recorded when they were last read (oldest first, up to `budget` counted rows, at least one
 * bucket), hands each unseen entry to `fresh` in time order, and records the buckets read.
 */
async function catchUp(
  client: CachedOrigin,
  expr: LogSelectorExpr,
  logsql: string,
  window: TimeWindow,
  seen: SeenBuckets,
  o: TailOptions,
  budget: number,
  signal: AbortSignal,
  fresh: (e: LogEntry) => void,
): Promise<void> {
  if (window.start >= window.end) return;
  const counts = await countRows(client, logsql, window, seen.stepNs);
  // A bucket the origin no longer counts rows in (deleted data) has nothing left to de-duplicate.
  for (const start of [...seen.starts()]) {
    if (start >= window.start && start < window.end && !counts.has(start)) seen.forget(start);
  }
  const changed = [...counts]
    .filter(([start, hits]) => seen.hitsOf(start) !== hits)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let planned = 0;
  let i = 0;
  while (i < changed.length && (i === 0 || planned + changed[i]![1] <= budget)) {
    // Adjacent changed buckets are read in one go.
    let j = i;
    planned += changed[j]![1];
    while (
      j + 1 < changed.length &&
      changed[j + 1]![0] === changed[j]![0] + seen.stepNs &&
      planned + changed[j + 1]![1] <= budget
    ) {
      planned += changed[++j]![1];
    }
    const first = changed[i]![0];
    const last = changed[j]![0] + seen.stepNs;
    const range = { start: first, end: last < window.end ? last : window.end };
    const keys = new Map<bigint, number[]>();
    try {
      await readRange(client, expr, range, o, signal, (e) => {
        const bucket = seen.bucketOf(e.ts);
        const key = entryKey(e);
        push(keys, bucket, key);
        if (!seen.has(e.ts, key)) fresh(e);
      });
    } catch (err) {
      // What was handed on stays seen; the buckets keep their old counts, so they are read again.
      for (const [start, ks] of keys) seen.addKeys(start, ks);
      throw err;
    }
    for (let k = i; k <= j; k++) {
      const [start, hits] = changed[k]!;
      seen.replace(start, hits, keys.get(start) ?? []);
    }
    i = j + 1;
  }
}

/** Rows of `logsql` per bucket of `window` (bucket start → count), from the origin's `hits`. */
async function countRows(
  client: OriginClient,
  logsql: string,
  window: TimeWindow,
  stepNs: bigint,
): Promise<Map<bigint, number>> {
  // Never from a cache: the count must be the origin's current state.
  const answer = await client.hits(logsql, window, { step: `${stepNs / SECOND_NS}s` }, true);
  const counts = new Map<bigint, number>();
  for (const series of answer.hits) {
    series.timestamps.forEach((t, k) => {
      const n = series.values[k] ?? 0;
      if (n <= 0) return;
      const start = parseVLTime(t);
      counts.set(start, (counts.get(start) ?? 0) + n);
    });
  }
  return counts;
}

function push<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * An origin failure (502/504), a connection lost while reading an answer, or an isolate too busy to
 * admit a page yet: worth another poll. Other HTTP errors (a query the origin rejects) would fail
 * the same way every time.
 */
function transient(err: unknown): boolean {
  return err instanceof OriginError || err instanceof TooManyOutstandingRequests || !(err instanceof RequestError);
}

/**
 * Runs `read` (a query of `limit` entries) and `use` of its answer within the isolate's log-query
 * memory admission, as a log query's answer is held: all tails and queries of an isolate share it.
 */
async function admitted<T>(
  expr: LogSelectorExpr,
  limit: number,
  signal: AbortSignal,
  read: () => Promise<LogQueryResult>,
  use: (result: LogQueryResult) => T,
): Promise<T> {
  const release = await logQueryAdmission.acquire(logQueryReservation(expr, limit), signal);
  try {
    return use(await read());
  } finally {
    release();
  }
}

/** Loki keeps at most MAX_DROPPED_PER_FRAME dropped entries until a frame carries them. */
function noteDropped(dropped: DroppedEntry[], e: LogEntry): DroppedEntry[] {
  if (dropped.length < MAX_DROPPED_PER_FRAME) dropped.push({ ts: e.ts, stream: e.stream });
  return dropped;
}

/**
 * Every entry of `window`, oldest first, page by page, each handed to `each` once: only one page
 * is held at a time. The split interval is set above the window's length so no sub-window is ever
 * a whole cacheable interval: the tail must read the origin's current state, never a stored answer.
 */
async function readRange(
  client: CachedOrigin,
  expr: LogSelectorExpr,
  window: TimeWindow,
  o: TailOptions,
  signal: AbortSignal,
  each: (e: LogEntry) => void,
): Promise<void> {
  let start = window.start;
  // Keys of the previous page's last timestamp: the next page starts there again.
  let boundary = new Set<number>();
  let boundaryTs = -1n;
  while (start < window.end) {
    // The page is held from its first row until its entries are handed on.
    const { count, first, last, nextBoundary } = await admitted(
      expr,
      PAGE_ROWS,
      signal,
      () =>
        executeLogQuery(client, expr, {
          window: { start, end: window.end },
          limit: PAGE_ROWS,
          direction: "forward",
          splitInterval: 2n * (window.end - window.start) + 1n,
          maxConcurrency: 1,
          signal,
        }),
      ({ entries: page }) => {
        const last = page.length > 0 ? page[page.length - 1]!.ts : -1n;
        const nextBoundary = new Set<number>();
        for (const e of page) {
          if (e.ts === boundaryTs && boundary.has(entryKey(e))) continue;
          if (e.ts === last) nextBoundary.add(entryKey(e));
          each(e);
        }
        return { count: page.length, first: page[0]?.ts ?? -1n, last, nextBoundary };
      },
    );
    if (count < PAGE_ROWS) break;
    // Resume at the last timestamp (its other rows may be cut off; repeats are skipped above),
    // or past it when a whole page shares one timestamp, so the read always advances.
    start = last > first ? last : last + 1n;
    boundary = last === boundaryTs ? new Set([...boundary, ...nextBoundary]) : nextBoundary;
    boundaryTs = last;
  }
}

function byTime(entries: LogEntry[]): LogEntry[] {
  return [...entries].sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(t);
      resolve();
    };
    // Removed once the sleep ends: an hour of polls must not pile up listeners on the signal.
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

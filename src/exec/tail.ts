/**
 * Live tail that follows ingestion rather than timestamps. VictoriaLogs records no ingestion order:
 * a row becomes searchable about a second after it arrives (a new stream only after its stream
 * index is flushed, and an empty answer may stay cached for seconds), and it carries the timestamp
 * its shipper gave it, possibly well in the past. A window that only moves forward in time, which
 * is also how VictoriaLogs' own `/select/logsql/tail` works (it slides a 5 s window and skips rows
 * at or before the last timestamp sent per stream), loses such rows.
 *
 * So each poll re-reads the whole look-back window [now − lookBack, now − delay) and sends the rows
 * it has not seen (SeenEntries, by labels, timestamp and line). Every row that becomes visible while
 * the tail is open is sent exactly once if its timestamp is inside the look-back window at that
 * moment. A failed poll loses nothing either: the next one re-reads the same window. Only when
 * the origin stays unreachable longer than the look-back can rows be missed, and then the tail
 * fails loudly instead.
 */
import type { LogSelectorExpr } from "../logql/ast";
import type { LogEntry } from "../engine/types";
import type { OriginClient, TimeWindow } from "../origin/client";
import { HttpError, OriginError } from "../http/errors";
import { executeLogQuery } from "./logs";
import { SeenEntries } from "./tail-seen";

/** Loki's tailer sends at most this many entries per frame. */
export const MAX_ENTRIES_PER_FRAME = 100;
/** Loki's tailer reports at most this many dropped entries in one frame. */
export const MAX_DROPPED_PER_FRAME = 1000;
/** Rows read from the origin per request while re-reading the look-back window. */
const PAGE_ROWS = 5000;

export interface TailOptions {
  startNs: bigint;
  limit: number;
  delayNs: bigint;
  pollMs: number;
  /** How far back in time each poll re-reads: the oldest timestamp a newly visible row may carry. */
  lookBackNs: bigint;
  /** Keys SeenEntries may hold: bounds memory when the look-back window holds very many rows. */
  maxSeen: number;
  /** New entries sent per poll; beyond, they are reported as dropped, as Loki does for a slow client. */
  maxSentPerPoll: number;
  splitInterval: bigint;
  now: () => bigint;
}

/** An entry the tail could not send, reported to the client as Loki's `dropped_entries`. */
export interface DroppedEntry {
  ts: bigint;
  stream: LogEntry["stream"];
}

/** One tail frame's content; the route encodes it (v1 or legacy shape). */
export interface TailBatch {
  entries: LogEntry[];
  dropped: DroppedEntry[];
}

/** Runs until `signal` aborts; `send` gets each batch. Errors propagate to the caller (close 1011). */
export async function runTail(
  client: OriginClient,
  expr: LogSelectorExpr,
  o: TailOptions,
  send: (batch: TailBatch) => void,
  signal: AbortSignal,
): Promise<void> {
  const seen = new SeenEntries(o.maxSeen);
  const edge = o.now() - o.delayNs;

  // Whatever is visible in the look-back window now existed before the tail opened: not new.
  for (const e of await readWindow(client, expr, { start: edge - o.lookBackNs, end: edge }, o, signal)) seen.add(e);
  // Loki's first frame replays the newest `limit` entries since `start`.
  if (edge > o.startNs) {
    const { entries } = await executeLogQuery(client, expr, {
      window: { start: o.startNs, end: edge },
      limit: o.limit,
      direction: "backward",
      splitInterval: o.splitInterval,
      maxConcurrency: 1,
      signal,
    });
    for (const e of entries) seen.add(e);
    if (entries.length > 0) send({ entries: byTime(entries), dropped: [] });
  }
  seen.prune(edge - o.lookBackNs);

  let lastSuccess = o.now();
  let dropped: DroppedEntry[] = [];
  while (!signal.aborted) {
    await sleep(o.pollMs, signal);
    if (signal.aborted) return;
    const end = o.now() - o.delayNs;
    const lookBackStart = end - o.lookBackNs;
    const start = lookBackStart > seen.floor ? lookBackStart : seen.floor;
    let rows: LogEntry[];
    try {
      rows = await readWindow(client, expr, { start, end }, o, signal);
    } catch (err) {
      if (signal.aborted) return;
      // The next poll re-reads this window: an outage shorter than the look-back loses nothing.
      if (transient(err) && o.now() - lastSuccess < o.lookBackNs - 2n * BigInt(o.pollMs) * 1_000_000n) continue;
      throw err;
    }
    lastSuccess = o.now();
    const fresh = byTime(rows.filter((e) => seen.add(e)));
    seen.prune(lookBackStart);

    const sendable = fresh.length > o.maxSentPerPoll ? fresh.slice(0, o.maxSentPerPoll) : fresh;
    for (const e of fresh.slice(sendable.length)) dropped = noteDropped(dropped, e);
    for (let i = 0; i < sendable.length; i += MAX_ENTRIES_PER_FRAME) {
      send({ entries: sendable.slice(i, i + MAX_ENTRIES_PER_FRAME), dropped });
      dropped = [];
    }
  }
}

/**
 * An origin failure (502/504) or a connection lost while reading an answer: worth another poll.
 * Other HTTP errors (a query the origin rejects) would fail the same way every time.
 */
function transient(err: unknown): boolean {
  return err instanceof OriginError || !(err instanceof HttpError);
}

/** Loki keeps at most MAX_DROPPED_PER_FRAME dropped entries until a frame carries them. */
function noteDropped(dropped: DroppedEntry[], e: LogEntry): DroppedEntry[] {
  if (dropped.length < MAX_DROPPED_PER_FRAME) dropped.push({ ts: e.ts, stream: e.stream });
  return dropped;
}

/**
 * Every entry of `window`, oldest first, page by page. The split interval is set above the
 * window's length so no sub-window is ever a whole cacheable interval: the look-back must read
 * the origin's current state, never a stored answer.
 */
async function readWindow(
  client: OriginClient,
  expr: LogSelectorExpr,
  window: TimeWindow,
  o: TailOptions,
  signal: AbortSignal,
): Promise<LogEntry[]> {
  const out: LogEntry[] = [];
  let start = window.start;
  while (start < window.end && out.length < o.maxSeen) {
    const { entries } = await executeLogQuery(client, expr, {
      window: { start, end: window.end },
      limit: PAGE_ROWS,
      direction: "forward",
      splitInterval: 2n * (window.end - window.start) + 1n,
      maxConcurrency: 1,
      signal,
    });
    out.push(...entries);
    if (entries.length < PAGE_ROWS) break;
    const first = entries[0]!.ts;
    const last = entries[entries.length - 1]!.ts;
    // Resume at the last timestamp (its other rows may be cut off; repeats are de-duplicated),
    // or past it when a whole page shares one timestamp, so the read always advances.
    start = last > first ? last : last + 1n;
  }
  return out;
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

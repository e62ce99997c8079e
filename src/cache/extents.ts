/**
 * Time-bucketed results in epoch-aligned chunks (extents). A stats query grouped by `_time` buckets
 * (pushed-down metrics, volumes, index stats) is answered chunk by chunk: chunks whose window ended
 * before the freshness horizon cannot change any more, so their rows are kept (chunk-store.ts) and a
 * dashboard refresh asks the origin only for the chunks it has not seen — each run of contiguous
 * missing chunks in one request — then assembles the rows of cached and fresh chunks.
 *
 * The chunk grid is the bucket grid (chunk boundaries are bucket boundaries), and it depends only on
 * the bucket width, its offset and the span of the query: the same for every refresh of a panel,
 * and shared by panels with the same selector and step.
 *
 * Exactness: a bucket lies wholly inside one chunk, so a chunk's rows are the same whether they come
 * from a request for that chunk alone or for a run of chunks. When rows outside the query window
 * must not count (`clip`), the chunks that straddle its edges are asked for only their part inside
 * the window and never stored; otherwise (metric plans, whose evaluation ignores buckets outside its
 * windows) whole chunks are asked for, so the edge chunks are reusable too.
 */
import type { OriginClient } from "../origin/client";
import type { TimeWindow } from "../core/time-window";
import type { VLRow } from "../origin/rows";
import { StatsTable } from "../origin/stats-table";
import { parseVLTime } from "../origin/timefmt";
import type { ResultCache } from "./result-cache";
import type { CacheSection } from "./stats";
import { floorDiv } from "../core/go/intdiv";
import { PointLimitError } from "../engine/metric/errors";

export interface ExtentQuery {
  /** LogsQL ending in a stats pipe whose first grouping is `_time:<width> offset <shift>` (no time filter). */
  logsql: string;
  /** The window whose rows are needed, [start, end). */
  window: TimeWindow;
  /** Bucket width, ns. */
  width: bigint;
  /** Bucket starts are `shift + k·width`. */
  shift: bigint;
  /** Rows of buckets outside `window` must not be returned (they would change the answer). */
  clip: boolean;
  section: CacheSection;
  /** The stats results the rows hold as numbers; every other field but `_time` is a group's text. */
  values: readonly string[];
  /** The stats results the rows hold as texts of their own (StatsTable.texts), none by default. */
  texts?: readonly string[];
  /**
   * The `MAX_METRIC_POINTS` budget, each row counting `perRow` points: each origin request asks for
   * one row more than fit (a `limit` pipe, so a larger answer is never read), and more rows is
   * PointLimitError before any chunk is stored.
   */
  budget?: { points: number; perRow: number };
  /**
   * A query whose rows each origin request appends to its buckets (`| union (after)`), run by the
   * origin over the request's window once its buckets are counted, so it sees every row they
   * counted: its rows (which hold no `_time`) are returned apart, and never stored. Chunks read
   * from the store have none: their rows were counted before this request began.
   */
  after?: string;
}

/** Rows of a time-bucketed query, and the `after` query's rows from each origin request made. */
export interface BucketsAndAfter {
  table: StatsTable;
  after: VLRow[];
}

/**
 * What a stats row held in a StatsTable costs in `MAX_METRIC_POINTS` points, set from the worst case
 * it admits: a Drilldown breakdown at a one-minute step, one answer point per row, 330,000 rows of
 * which (answer text, table, series and their encoding, the chunks stored) fit an 80 MB heap with
 * ~26–35 MB of buffers besides (test/unit/memory/breakdown.test.ts): within an isolate's 128 MB.
 */
export const POINTS_PER_STATS_ROW = 1.5;

/**
 * What a row costs whose results include a text of its own (a quantile bucket's values, a text
 * column): its text and what is read from it, about four window accumulators' heap.
 */
export const POINTS_PER_TEXT_ROW = 4;

/** At most this many chunks per query: each one is a cache lookup. */
const MAX_CHUNKS = 48n;
const MINUTE_NS = 60_000_000_000n;
/** The smallest chunk: a refresh re-reads at most the horizon plus one chunk. */
const MIN_CHUNK_NS = 5n * MINUTE_NS;

/** Chunk length for a query of `spanNs` on buckets of `width`: a multiple of the width. */
export function chunkLength(width: bigint, spanNs: bigint): bigint {
  const perChunk = spanNs / MAX_CHUNKS;
  const target = perChunk > MIN_CHUNK_NS ? perChunk : MIN_CHUNK_NS;
  const buckets = (target + width - 1n) / width;
  return (buckets > 0n ? buckets : 1n) * width;
}

export interface PlannedChunk {
  /** The aligned chunk. */
  chunk: TimeWindow;
  /** What to ask the origin for it (the chunk, or its part inside the window when clipped). */
  request: TimeWindow;
  /** Historical and whole: may be read from and written to the store. */
  storable: boolean;
}

/** The aligned chunks covering `q.window`, oldest first. */
export function planChunks(q: ExtentQuery, nowNs: bigint, horizonNs: bigint): PlannedChunk[] {
  const { window } = q;
  if (window.end <= window.start) return [];
  const length = chunkLength(q.width, window.end - window.start);
  const settled = nowNs - horizonNs;
  const out: PlannedChunk[] = [];
  for (let k = floorDiv(window.start - q.shift, length); ; k++) {
    const chunk = { start: q.shift + k * length, end: q.shift + (k + 1n) * length };
    if (chunk.start >= window.end) break;
    const whole = chunk.start >= window.start && chunk.end <= window.end;
    const request = q.clip && !whole ? intersect(chunk, window) : chunk;
    out.push({ chunk, request, storable: chunk.end <= settled && (whole || !q.clip) });
  }
  return out;
}

/**
 * Time-bucketed stats rows, for pushed-down metrics, volumes and index stats: what to use for any
 * stats query grouped by `_time` buckets whose rows do not depend on when they are asked.
 */
export interface TimeBucketCache {
  /** Rows of `q` over its window, from cached chunks where possible. Without a cache: one plain request. */
  rows(q: ExtentQuery): Promise<StatsTable>;
  /** The same, with the rows of `q.after` from the origin requests made. */
  rowsAndAfter(q: ExtentQuery): Promise<BucketsAndAfter>;
}

/** What the time-bucket cache asks of the origin client: its stats rows, within the request's budget. */
export type StatsOrigin = Pick<OriginClient, "readStatsRows" | "budget">;

/** The time-bucket cache of one request for one tenant (`cache` undefined: caching is off). */
export function timeBucketCache(client: StatsOrigin, cache: ResultCache | undefined): TimeBucketCache {
  return {
    rows: async (q) => (await extentRows(client, cache, q)).table,
    rowsAndAfter: (q) => extentRows(client, cache, q),
  };
}

async function extentRows(
  client: StatsOrigin,
  cache: ResultCache | undefined,
  q: ExtentQuery,
): Promise<BucketsAndAfter> {
  const maxRows = q.budget ? Math.floor(q.budget.points / q.budget.perRow) : Infinity;
  const limited = q.budget ? `${q.logsql} | limit ${maxRows + 1}` : q.logsql;
  const logsql = q.after === undefined ? limited : `${limited} | union (${q.after})`;
  const after: VLRow[] = [];
  // Rows held from every answer and cached chunk together: one past the budget ends the decoding,
  // before any chunk is stored.
  let held = 0;
  const fetch = async (window: TimeWindow): Promise<StatsTable> => {
    const table = new StatsTable(q.values, q.texts);
    const beforeRow = () => {
      if (++held > maxRows) throw new PointLimitError(q.budget!.points);
    };
    await client.readStatsRows(logsql, window, table, beforeRow, q.after === undefined ? undefined : after);
    return table;
  };
  if (!cache) return { table: await fetch(q.window), after };
  const planned = planChunks(q, cache.nowNs(), cache.horizonNs);
  const settled = cache.nowNs() - cache.horizonNs;
  for (const p of planned) if (!p.storable) cache.stats.notLookedUp(p.chunk.end > settled);
  // A chunk's key, digested once whether its lookup, its write after the answer, or both need it.
  const keys: Promise<string>[] = [];
  const keyAt = (i: number) => (keys[i] ??= cache.keyOf(q.logsql, planned[i]!.chunk));
  const found = await Promise.all(
    planned.map(async (p, i) => (p.storable ? lookup(cache, q.section, await keyAt(i), p.chunk, q) : undefined)),
  );

  // Runs of adjacent chunks not found: one origin request each, split back into chunks. More runs
  // than the request's share of origin requests (cached and missing chunks alternating) become one
  // request from the first missing chunk to the last: the chunks found between them are asked for
  // again, which gives the same rows.
  let runs = missingRuns(found);
  const refetched = new Set<number>();
  if (runs.length > 1 && BigInt(runs.length) > client.budget.windowShare()) {
    const [first, last] = [runs[0]![0]!, runs[runs.length - 1]!.at(-1)!];
    for (let i = first; i <= last; i++) {
      if (found[i]) refetched.add(i);
      found[i] = undefined;
    }
    runs = missingRuns(found);
  }

  const rows = new StatsTable(q.values, q.texts);
  for (const cached of found) if (cached) rows.append(cached);
  held = rows.length;
  if (held > maxRows) throw new PointLimitError(q.budget!.points);

  const fetched = await Promise.all(
    runs.map((run) =>
      fetch({ start: planned[run[0]!]!.request.start, end: planned[run[run.length - 1]!]!.request.end }),
    ),
  );
  const length = planned.length > 0 ? planned[0]!.chunk.end - planned[0]!.chunk.start : 1n;
  runs.forEach((run, r) => {
    const runRows = fetched[r]!;
    rows.append(runRows);
    // A chunk asked for again is in the store already.
    const storable = run.filter((i) => planned[i]!.storable && !refetched.has(i));
    if (storable.length === 0) return;
    const byChunk = new Map<number, number[]>(storable.map((i) => [i, []]));
    const first = floorDiv(planned[0]!.chunk.start - q.shift, length);
    // Rows share a few hundred bucket times: each is parsed once.
    const chunkOfTime = runRows.times.map((time) => Number(floorDiv(parseVLTime(time) - q.shift, length) - first));
    for (let i = 0; i < runRows.length; i++) byChunk.get(chunkOfTime[runRows.timeIndex(i)]!)?.push(i);
    for (const [i, chunkRows] of byChunk) {
      const body = encodeChunk(runRows, chunkRows);
      cache.stats.stored(q.section, body);
      // The writes wait until the answer is out: the client need not share the isolate with them.
      cache.later(() => cache.defer(keyAt(i).then((key) => cache.store.put(key, body, planned[i]!.chunk))));
    }
  });
  return { table: rows, after };
}

/** The runs of adjacent indices whose chunk was not found, in order. */
function missingRuns(found: readonly (StatsTable | undefined)[]): number[][] {
  const runs: number[][] = [];
  found.forEach((rows, i) => {
    if (rows) return;
    const last = runs[runs.length - 1];
    if (last && last[last.length - 1] === i - 1) last.push(i);
    else runs.push([i]);
  });
  return runs;
}

async function lookup(
  cache: ResultCache,
  section: CacheSection,
  key: string,
  chunk: TimeWindow,
  q: Pick<ExtentQuery, "values" | "texts">,
): Promise<StatsTable | undefined> {
  const started = Date.now();
  const body = await cache.store.get(key, chunk);
  const rows = body === undefined ? undefined : decodeChunk(body, q.values, q.texts);
  cache.stats.lookedUp(section, rows ? body : undefined, Date.now() - started, chunk.end - chunk.start);
  return rows;
}

/**
 * A stored chunk, as compact as its table: `{"v":2,"values":[…],"times":[…],"groups":[…],"rows":[…]}`,
 * each distinct time and group once and each row its time's and group's indexes then its results,
 * flat (a number that is not finite as its text). About a fifth of the rows' JSON objects: the
 * bodies wait in the isolate for their writes until the answer is out. A table with text columns
 * is stored as `{"v":3,"values":[…],"texts":[…],…}`, each row's texts after its results (null for
 * none): a version of its own, so that an entry stored with the texts as groups is a miss.
 */
export function encodeChunk(table: StatsTable, indexes: readonly number[]): string {
  const timeAt = new Map<number, number>();
  const groupAt = new Map<number, number>();
  const times: string[] = [];
  const groups: VLRow[] = [];
  const cells: (number | string | null)[] = [];
  for (const i of indexes) {
    const t = table.timeIndex(i);
    let ct = timeAt.get(t);
    if (ct === undefined) timeAt.set(t, (ct = times.push(table.times[t]!) - 1));
    const g = table.groupIndex(i);
    let cg = groupAt.get(g);
    if (cg === undefined) groupAt.set(g, (cg = groups.push(table.groups[g]!) - 1));
    cells.push(ct, cg);
    for (let c = 0; c < table.values.length; c++) {
      const v = table.value(i, c);
      cells.push(Number.isFinite(v) ? v : String(v));
    }
    for (let c = 0; c < table.texts.length; c++) cells.push(table.text(i, c) ?? null);
  }
  if (table.texts.length === 0) return JSON.stringify({ v: 2, values: table.values, times, groups, rows: cells });
  return JSON.stringify({ v: 3, values: table.values, texts: table.texts, times, groups, rows: cells });
}

/**
 * A stored chunk's rows with `values` read as numbers and `texts` as texts, or undefined when the
 * entry is not one (a corrupt entry, or one whose results are named otherwise, is a miss). Entries
 * of rows as the origin's JSON objects (`{"rows":[{…}]}`), as earlier versions stored them, are
 * read too.
 */
export function decodeChunk(
  body: string,
  values: readonly string[],
  texts: readonly string[] = [],
): StatsTable | undefined {
  let parsed: {
    v?: unknown;
    values?: unknown;
    texts?: unknown;
    times?: unknown;
    groups?: unknown;
    rows?: unknown;
  };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== "object" || !Array.isArray(parsed.rows)) return undefined;
  const table = new StatsTable(values, texts);
  if (parsed.v === undefined) {
    for (const row of parsed.rows) {
      if (row === null || typeof row !== "object" || typeof (row as VLRow)._time !== "string") return undefined;
    }
    for (const row of parsed.rows as VLRow[]) table.add(row);
    return table;
  }
  const { times, groups, rows } = parsed;
  if (parsed.v !== (texts.length === 0 ? 2 : 3) || JSON.stringify(parsed.values) !== JSON.stringify(values)) {
    return undefined;
  }
  if (texts.length > 0 && JSON.stringify(parsed.texts) !== JSON.stringify(texts)) return undefined;
  if (!Array.isArray(times) || !times.every((t) => typeof t === "string")) return undefined;
  if (!Array.isArray(groups) || !groups.every((g) => g !== null && typeof g === "object" && !Array.isArray(g))) {
    return undefined;
  }
  const width = 2 + values.length + texts.length;
  if (rows.length % width !== 0) return undefined;
  const cells = new Float64Array(values.length);
  const textCells: (string | undefined)[] = texts.map(() => undefined);
  // Each group's key is made once, not once per row.
  const keys = (groups as VLRow[]).map((group) => table.groupKey(group));
  for (let at = 0; at < rows.length; at += width) {
    const time = times[rows[at] as number] as string | undefined;
    const group = groups[rows[at + 1] as number] as VLRow | undefined;
    if (time === undefined || group === undefined) return undefined;
    for (let c = 0; c < values.length; c++) {
      const v: unknown = rows[at + 2 + c];
      if (typeof v !== "number" && !(typeof v === "string" && NON_FINITE.has(v))) return undefined;
      cells[c] = Number(v);
    }
    for (let c = 0; c < texts.length; c++) {
      const text: unknown = rows[at + 2 + values.length + c];
      if (text !== null && typeof text !== "string") return undefined;
      textCells[c] = text ?? undefined;
    }
    table.addIds(
      table.timeId(time),
      table.groupIdOf(keys[rows[at + 1] as number]!, () => group),
      cells,
      textCells,
    );
  }
  return table;
}

/** How a result that is not a finite number is stored (JSON has no such numbers). */
const NON_FINITE = new Set(["NaN", "Infinity", "-Infinity"]);

function intersect(a: TimeWindow, b: TimeWindow): TimeWindow {
  return { start: a.start > b.start ? a.start : b.start, end: a.end < b.end ? a.end : b.end };
}

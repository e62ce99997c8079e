/**
 * Results of range metric queries in step-aligned chunks, for every metric query the Worker
 * evaluates (with parsers, unwrap, quantiles, binary operations...). A value at t depends only on
 * the log lines in (t − offset − range, t − offset], so the evaluation times can be cut into chunks
 * evaluated separately: a chunk whose times are all before the freshness horizon has a fixed answer.
 * A refresh evaluates only the chunks it has not seen (each run of missing chunks as one evaluation,
 * so a cold query costs what it did), then joins the series of every chunk.
 *
 * Chunks hold whole chunks of times, also at the query's edges (the extra times are evaluated and
 * then left out of the answer), so the edge chunks of a sliding range are reusable too.
 *
 * A chunk holds every series of its times (`evaluate` must refuse past the series limit, not cut):
 * a partial answer (Logs Drilldown past `max_query_series`) is cut only when the chunks are joined,
 * so no stored chunk is ever partial and every request, tagged or not, reads the same chunks.
 */
import type { Labels, Point, Series } from "../engine/types";
import { compareLabels, labelsKey } from "../engine/metric/labels";
import type { MetricQuery } from "../engine/metric";
import type { SeriesLimit } from "../engine/metric/series-limit";
import type { TimeWindow } from "../core/time-window";
import type { SubrequestBudget } from "../origin/subrequest-budget";
import { chunkLength } from "./extents";
import type { ResultCache } from "./result-cache";
import { floorDiv } from "../core/go/intdiv";

/** Serialized chunks larger than this are not kept. */
const MAX_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Range metric results in step-aligned chunks: what to use for a range query the Worker evaluates
 * itself (the origin's own bucketed answers go through the time-bucket cache instead).
 */
export interface MetricChunkCache {
  /**
   * The matrix of a range query aligned to its step (`q.start`, `q.end` multiples of `q.step`), from
   * cached chunks where possible; `evaluate` computes the series of a sub-range of the grid.
   * Undefined when there is no results cache or the query cannot be cut into chunks (instant).
   */
  matrix(
    queryKey: string,
    q: MetricQuery,
    limit: SeriesLimit,
    evaluate: (sub: MetricQuery) => Promise<Series[]>,
  ): Promise<Series[] | undefined>;
}

/**
 * The metric chunk cache of one request for one tenant (`cache` undefined: caching is off). The
 * budget is the request's: it bounds how many evaluations a cold range may be cut into.
 */
export function metricChunkCache(budget: SubrequestBudget, cache: ResultCache | undefined): MetricChunkCache {
  return { matrix: (queryKey, q, limit, evaluate) => cachedMatrix(budget, cache, queryKey, q, limit, evaluate) };
}

async function cachedMatrix(
  budget: SubrequestBudget,
  cache: ResultCache | undefined,
  /** The query's exact key text (logql/ast-key.ts): with the step and the chunk, it names the chunk's answer. */
  queryKey: string,
  q: MetricQuery,
  /** The answer's series limit: strict (Loki's 400), or partial (`limit.reached` tells whether it cut). */
  limit: SeriesLimit,
  evaluate: (sub: MetricQuery) => Promise<Series[]>,
): Promise<Series[] | undefined> {
  if (!cache || q.instant || q.step <= 0n || q.end < q.start) return undefined;
  const length = chunkLength(q.step, q.end - q.start + q.step);
  const settled = cache.nowNs() - cache.horizonNs;
  const material = JSON.stringify(["matrix", queryKey, String(q.step)]);
  const chunks: { times: TimeWindow; storable: boolean; series?: Series[] }[] = [];
  for (let c = floorDiv(q.start, length); c * length <= q.end; c++) {
    // The chunk's evaluation times: grid points in [c·length, (c+1)·length).
    const times = { start: c * length, end: (c + 1n) * length };
    chunks.push({ times, storable: times.end <= settled });
    if (times.end > settled) cache.stats.notLookedUp(true);
  }
  // A chunk's key, digested once whether its lookup, its write after the answer, or both need it.
  const keys: Promise<string>[] = [];
  const keyAt = (i: number) => (keys[i] ??= cache.keyOf(material, chunks[i]!.times));
  await Promise.all(
    chunks.map(async (chunk, i) => {
      if (!chunk.storable) return;
      const started = Date.now();
      const body = await cache.store.get(await keyAt(i), dataOf(chunk.times));
      chunk.series = body === undefined ? undefined : decodeSeries(body);
      cache.stats.lookedUp("result", chunk.series ? body : undefined, Date.now() - started, length);
    }),
  );

  // Runs of adjacent missing chunks, each evaluated once over all its times, each at least one
  // origin request. More runs than the request's share of origin requests become one evaluation
  // from the first missing chunk to the last: the chunks found between them are evaluated again,
  // to the same series, and not stored again.
  const refetched = new Set<number>();
  const missing = chunks.flatMap((c, k) => (c.series ? [] : [k]));
  let runCount = 0;
  missing.forEach((k, n) => {
    if (n === 0 || missing[n - 1] !== k - 1) runCount++;
  });
  if (runCount > 1 && BigInt(runCount) > budget.windowShare()) {
    for (let k = missing[0]!; k <= missing[missing.length - 1]!; k++) {
      if (chunks[k]!.series) refetched.add(k);
      chunks[k]!.series = undefined;
    }
  }
  let i = 0;
  while (i < chunks.length) {
    if (chunks[i]!.series) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < chunks.length && !chunks[j + 1]!.series) j++;
    const sub: MetricQuery = {
      start: ceilTo(chunks[i]!.times.start, q.step),
      end: chunks[j]!.times.end - q.step,
      step: q.step,
      instant: false,
    };
    const evaluated = await evaluate(sub);
    for (let k = i; k <= j; k++) {
      const chunk = chunks[k]!;
      chunk.series = pointsWithin(evaluated, chunk.times);
      if (!chunk.storable || refetched.has(k)) continue;
      const body = encodeSeries(chunk.series);
      if (body.length > MAX_CHUNK_BYTES) continue;
      cache.stats.stored("result", body);
      // Written once the answer is out, as extents.ts does.
      cache.later(() => cache.defer(keyAt(k).then((key) => cache.store.put(key, body, dataOf(chunk.times)))));
    }
    i = j + 1;
  }

  const merged = new Map<string, Series>();
  for (const chunk of chunks) {
    for (const s of pointsWithin(chunk.series!, { start: q.start, end: q.end + 1n })) {
      const key = labelsKey(s.labels);
      const into = merged.get(key);
      if (into) into.points.push(...s.points);
      // A series past the limit is Loki's error, or left out whole: the series kept have every point.
      else if (merged.size < limit.max || limit.refuse()) merged.set(key, { labels: s.labels, points: [...s.points] });
    }
  }
  return [...merged.values()].sort((a, b) => compareLabels(a.labels, b.labels));
}

/**
 * The time a chunk's values are computed from, for its lifetime and for purges: it ends with the
 * chunk's last evaluation time, and may reach back by any range and offset in the query, so its start
 * is taken as the epoch (a purge voids every chunk evaluated at or after the purged range's start).
 */
function dataOf(times: TimeWindow): TimeWindow {
  return { start: 0n, end: times.end };
}

/** The series' points with t in [w.start, w.end); series left without points are dropped. */
function pointsWithin(series: readonly Series[], w: TimeWindow): Series[] {
  const out: Series[] = [];
  for (const s of series) {
    const points = s.points.filter((p) => p.t >= w.start && p.t < w.end);
    if (points.length > 0) out.push({ labels: s.labels, points });
  }
  return out;
}

/** Values as text: JSON has no NaN or infinities, and Number() reads String()'s output back exactly. */
export function encodeSeries(series: readonly Series[]): string {
  return JSON.stringify({
    series: series.map((s) => [s.labels, s.points.map((p) => [String(p.t), String(p.v)])]),
  });
}

/** The stored series, or undefined when the body is not a stored chunk (a corrupt entry is a miss). */
export function decodeSeries(body: string): Series[] | undefined {
  try {
    const parsed = JSON.parse(body) as { series?: unknown };
    if (!Array.isArray(parsed?.series)) return undefined;
    const out: Series[] = [];
    for (const item of parsed.series as unknown[]) {
      if (!Array.isArray(item) || item.length !== 2 || !Array.isArray(item[1])) return undefined;
      const labels = item[0] as Labels;
      if (labels === null || typeof labels !== "object") return undefined;
      for (const v of Object.values(labels)) if (typeof v !== "string") return undefined;
      const points: Point[] = [];
      for (const p of item[1] as unknown[]) {
        if (!Array.isArray(p) || typeof p[0] !== "string" || typeof p[1] !== "string" || !/^-?\d+$/.test(p[0])) {
          return undefined;
        }
        points.push({ t: BigInt(p[0]), v: Number(p[1]) });
      }
      out.push({ labels, points });
    }
    return out;
  } catch {
    return undefined;
  }
}

function ceilTo(t: bigint, m: bigint): bigint {
  const f = floorDiv(t, m) * m;
  return f === t ? t : f + m;
}

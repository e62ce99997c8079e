/**
 * Samples of a projected unwrap aggregation (src/plan/unwrap-projection.ts): the projected rows of
 * each sub-window stream while the guard runs beside them over the whole range. The samples are
 * Loki's only if the guard finds nothing; once it finds a row, the sub-windows stop reading, and
 * the evaluation reads the guard to void what they gave (exec/metric.ts).
 */
import type { ExtractedSample, Labels } from "../engine/types";
import type { OriginClient } from "../origin/client";
import type { TimeWindow } from "../core/time-window";
import { VLTimeReader } from "../origin/timefmt";
import type { UnwrapProjection } from "../plan/unwrap-projection";
import type { ScanStats } from "./logs";
import { mergeConcurrent } from "./merge";
import { splitWindows } from "./windows";
import { unwrapConverter } from "../engine/pipeline/extractor";
import { labelNames } from "./meta";

/** Whether some row of a projected range may read differently in Loki. */
export interface ProjectionGuard {
  readonly found: Promise<boolean>;
  /** Whether `found` has resolved true: the range's projected samples are void. */
  readonly refused: boolean;
  /** Settles once the stream index has said whether projected rows may be read at all. */
  readonly indexed: Promise<void>;
}

/**
 * The guard of `window`: one request for the whole range of a query rather than one per
 * sub-window, as the guard's regexes cost the origin more than the rows.
 *
 * A grouped label that no selected stream has (the stream index says so, cached) can only come
 * from the lines, and the guard counts every row whose line gives it: the guard is then refused
 * before any projected row is read, so that the rows are read once, as lines. A label in no line
 * either would have let the projection stand: refusing is still exact, only dearer.
 */
export function projectionGuard(
  client: OriginClient,
  projection: UnwrapProjection,
  window: TimeWindow,
): ProjectionGuard {
  const lineOnly =
    projection.groupBy.length === 0
      ? Promise.resolve(false)
      : labelNames(client, window, projection.streams).then(
          (names) => projection.groupBy.some((label) => !names.includes(label)),
          // Without the index's answer, the guard's own answer decides.
          () => false,
        );
  const found = lineOnly.then((refused) => refused || firstRow(client, projection.guard, window));
  let refused = false;
  // Settled here so that an evaluation ending early leaves no unhandled rejection behind.
  found.then(
    (row) => (refused = row),
    () => {},
  );
  return {
    found,
    get refused() {
      return refused;
    },
    indexed: lineOnly.then((lines) => {
      if (lines) refused = true;
    }),
  };
}

/** The split interval of projected unwrap samples (see projectedRangeSamples). */
const PROJECTED_SPLIT = 24n * 3_600_000_000_000n;

/**
 * Samples with ts in (from, to] from projected rows (the origin window is [from + 1ns, to + 1ns)),
 * and the guard that decides whether they are Loki's.
 */
export function projectedRangeSamples(
  client: OriginClient,
  projection: UnwrapProjection,
  from: bigint,
  to: bigint,
  opts: { splitInterval: bigint; maxConcurrency: number },
  stats: ScanStats,
): { samples: AsyncIterable<readonly ExtractedSample[]>; guard: ProjectionGuard } {
  const range = { start: from + 1n, end: to + 1n };
  stats.subqueries++;
  const guard = projectionGuard(client, projection, range);
  // Projected rows are a few fields each: a day per request costs the origin less than one request
  // per split interval (a 6 h quantile: 107 → 73 ms median locally), and still bounds each request.
  const split = opts.splitInterval > PROJECTED_SPLIT ? opts.splitInterval : PROJECTED_SPLIT;
  const perWindow = splitWindows(range, split, false, client.budget.windowShare()).map(
    (w) => (signal: AbortSignal) => projectedSamples(client.withSignal(signal), projection, w, stats, guard),
  );
  return { samples: mergeConcurrent(perWindow, opts.maxConcurrency), guard };
}

/** The samples of one sub-window of `guard`'s range; none once the guard has found a row. */
export async function* projectedSamples(
  client: OriginClient,
  projection: UnwrapProjection,
  window: TimeWindow,
  stats: ScanStats,
  guard: ProjectionGuard,
): AsyncGenerator<ExtractedSample[]> {
  await guard.indexed;
  if (guard.refused) return;
  stats.subqueries++;
  const { groupBy, valueField } = projection;
  // The guard admits values of the conversion's shape only, each of which converts.
  const convert = projection.conversion ? unwrapConverter(projection.conversion) : undefined;
  // Per row: its time, its value, then its group labels.
  const width = 2 + groupBy.length;
  const times = new VLTimeReader();
  // One labels object per distinct group, shared by its samples.
  const labelsByKey = new Map<string, Labels>();
  for await (const values of client.queryPicked(projection.rows, window, ["_time", valueField, ...groupBy])) {
    // Void samples are not worth reading: leaving the loop ends the request.
    if (guard.refused) return;
    const count = values.length / width;
    const samples = new Array<ExtractedSample>(count);
    for (let r = 0, at = 0; r < count; r++, at += width) {
      const value = values[at + 1]!;
      stats.rowsScanned++;
      stats.bytesScanned += value.length;
      // One group label (the common case) is its own key: no string is built per row.
      let key = width > 2 ? values[at + 2]! : "";
      for (let k = 3; k < width; k++) key += "\u0000" + values[at + k];
      let labels = labelsByKey.get(key);
      if (!labels) {
        labels = {};
        for (let k = 2; k < width; k++) if (values[at + k]) labels[groupBy[k - 2]!] = values[at + k]!;
        labelsByKey.set(key, labels);
      }
      const converted = convert?.(value);
      const v = converted ? (converted.ok ? converted.value : NaN) : Number(value);
      samples[r] = { ts: times.read(values[at]!), value: v, labels };
    }
    if (count > 0) yield samples;
  }
  // The sub-window holds its reading slot until the guard has answered: no further sub-window of a
  // range the guard may yet refuse is read meanwhile.
  await guard.found;
}

async function firstRow(client: OriginClient, logsql: string, window: TimeWindow): Promise<boolean> {
  for await (const batch of client.queryBatches(logsql, window)) if (batch.length > 0) return true;
  return false;
}

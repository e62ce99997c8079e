/**
 * Samples of a projected unwrap aggregation (src/plan/unwrap-projection.ts): the projected rows of
 * each sub-window stream while the guard runs beside them over the whole range; a sub-window's
 * samples are complete only once the guard has found nothing. A guard that finds a row ends the evaluation with
 * ProjectionRefused, and the caller evaluates the query again from whole lines.
 */
import type { ExtractedSample, Labels } from "../engine/types";
import type { OriginClient } from "../origin/client";
import type { TimeWindow } from "../core/time-window";
import { VLTimeReader } from "../origin/timefmt";
import type { UnwrapProjection } from "../plan/unwrap-projection";
import type { ScanStats } from "./logs";

export class ProjectionRefused extends Error {
  constructor() {
    super("a row may read differently in Loki; evaluating from whole lines");
  }
}

/**
 * Whether the guard finds a row anywhere in `window`: one request for the whole range of a query
 * rather than one per sub-window, as the guard's regexes cost the origin more than the rows.
 */
export function projectionGuard(
  client: OriginClient,
  projection: UnwrapProjection,
  window: TimeWindow,
): Promise<boolean> {
  const found = firstRow(client, projection.guard, window);
  // Settled here so that a consumer stopping early leaves no unhandled rejection behind.
  found.catch(() => {});
  return found;
}

/** The samples of one sub-window; ends with ProjectionRefused when `guard` (its range's) finds a row. */
export async function* projectedSamples(
  client: OriginClient,
  projection: UnwrapProjection,
  window: TimeWindow,
  stats: ScanStats,
  guard: Promise<boolean>,
): AsyncGenerator<ExtractedSample[]> {
  const { groupBy, valueField } = projection;
  // Per row: its time, its value, then its group labels.
  const width = 2 + groupBy.length;
  const times = new VLTimeReader();
  // One labels object per distinct group, shared by its samples.
  const labelsByKey = new Map<string, Labels>();
  for await (const values of client.queryPicked(projection.rows, window, ["_time", valueField, ...groupBy])) {
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
      samples[r] = { ts: times.read(values[at]!), value: Number(value), labels };
    }
    if (count > 0) yield samples;
  }
  if (await guard) throw new ProjectionRefused();
}

async function firstRow(client: OriginClient, logsql: string, window: TimeWindow): Promise<boolean> {
  for await (const batch of client.queryBatches(logsql, window)) if (batch.length > 0) return true;
  return false;
}

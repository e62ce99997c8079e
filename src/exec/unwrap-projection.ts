/**
 * Samples of a projected unwrap aggregation (src/plan/unwrap-projection.ts): the projected rows of
 * each sub-window stream while the guard runs beside them over the whole range; a sub-window's
 * samples are complete only once the guard has found nothing. A guard that finds a row ends the evaluation with
 * ProjectionRefused, and the caller evaluates the query again from whole lines.
 */
import type { ExtractedSample, Labels } from "../engine/types";
import type { OriginClient, TimeWindow } from "../origin/client";
import { parseVLTime } from "../origin/timefmt";
import type { UnwrapProjection } from "../plan/unwrap-projection";
import type { ScanStats } from "./logs";
import { groupLabelsOf } from "./metric-pushdown";

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
  // One labels object per distinct group, shared by its samples.
  const labelsByKey = new Map<string, Labels>();
  for await (const batch of client.queryBatches(projection.rows, window)) {
    const samples = new Array<ExtractedSample>(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const row = batch[i]!;
      const value = row[valueField] ?? "";
      stats.rowsScanned++;
      stats.bytesScanned += value.length;
      let key = "";
      for (const name of groupBy) key += (row[name] ?? "") + "\u0000";
      let labels = labelsByKey.get(key);
      if (!labels) labelsByKey.set(key, (labels = groupLabelsOf(row, groupBy)));
      samples[i] = { ts: parseVLTime(row._time ?? ""), value: Number(value), labels };
    }
    if (samples.length > 0) yield samples;
  }
  if (await guard) throw new ProjectionRefused();
}

async function firstRow(client: OriginClient, logsql: string, window: TimeWindow): Promise<boolean> {
  for await (const batch of client.queryBatches(logsql, window)) if (batch.length > 0) return true;
  return false;
}

/**
 * Runs a pushed-down counting metric over a parser (src/plan/parser-pushdown.ts): VictoriaLogs
 * returns per (bucket, group) how many rows passed the label filters (and their bytes), and how
 * many rows anywhere it could not prove Loki reads the same way (its guard's): the Worker counts
 * those itself and adds them in (exec/guarded-rows.ts), or, for a plan that cannot tell them
 * apart, evaluates the query locally ("guarded").
 */
import { PointLimitError } from "../engine/metric/errors";
import type { CachedOrigin } from "../cache/cached-origin";
import type { MetricGrid } from "../plan/metric-pushdown";
import type { ParserBucketPlan } from "../plan/parser-pushdown";
import type { ScanStats } from "./logs";
import { bucketRows, groupLabelsOf, type GroupBuckets } from "./metric-pushdown";
import type { GuardedCounts } from "./guarded-rows";

export async function runParserPlan(
  client: CachedOrigin,
  plan: ParserBucketPlan,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints?: number,
): Promise<GuardedCounts | "guarded"> {
  const values = plan.value === "count" ? ["__c", "__bad"] : ["__c", "__bad", "__v"];
  let rows;
  try {
    rows = await bucketRows(client, plan, grid, stats, maxPoints, values);
  } catch (err) {
    // A stats row holds more than the point it stands for: an answer whose groups × buckets pass
    // the points budget as rows may still fit as series, as Loki (which has no such limit) would
    // answer it. The Worker's evaluation bounds its own points.
    if (err instanceof PointLimitError) return "guarded";
    throw err;
  }
  const { table, ranks, rankEnds, keys, labels } = rows;
  const value = plan.value === "count" ? 0 : 2;
  const byGroup: (GroupBuckets | undefined)[] = [];
  const groups = new Map<string, GroupBuckets>();
  let guardedRows = 0;
  for (let i = 0; i < table.length; i++) {
    const bad = table.value(i, 1);
    if (bad !== 0 && !plan.guarded) return "guarded";
    guardedRows += bad;
    // The stats pipe also makes groups of rows the filters refused: Loki has no sample for them.
    if (table.value(i, 0) === 0) continue;
    const gi = table.groupIndex(i);
    let g = byGroup[gi];
    if (!g) {
      g = groups.get(keys[gi]!);
      if (!g)
        groups.set(
          keys[gi]!,
          (g = { labels: groupLabelsOf(labels[gi]!, plan.groupBy, plan.labels, plan.setEmpty), ranks: [], values: [] }),
        );
      byGroup[gi] = g;
    }
    g.ranks.push(ranks[table.timeIndex(i)]!);
    g.values.push(table.value(i, value));
  }
  return { groups: [...groups.values()], rankEnds, guardedRows };
}

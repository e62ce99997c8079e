/**
 * A pushed-down breakdown (`sum by (x) (count_over_time(...))`) for Logs Drilldown, which Loki
 * answers partially past `max_query_series`: which series a partial answer keeps is Loki's
 * iteration order, so any `max` of them with exact values are as right. VictoriaLogs names the
 * groups first (one row per group, at most `max + 1` of them read), and past the limit the bucket
 * query is restricted to the first `max` groups by name: the Worker reads bucket rows only for the
 * groups it answers, however many distinct values the field has.
 */
import type { OriginClient } from "../origin/client";
import type { BucketPlan } from "../plan/metric-pushdown";
import { fieldName, quote } from "../plan/logsql";
import type { ScanStats } from "./logs";

/** The plan restricted to `max` of its groups when it has more; undefined when it has at most `max`. */
export async function restrictToGroups(
  client: OriginClient,
  plan: BucketPlan,
  max: number,
  stats: ScanStats,
): Promise<BucketPlan | undefined> {
  if (plan.groupBy.length === 0) return undefined;
  const fields = plan.groupBy.map(fieldName).join(", ");
  stats.subqueries++;
  const rows = await client.statsRows(
    `${plan.rows} | stats by (${fields}) count() as __c | sort by (${fields}) | limit ${max + 1}`,
    plan.window,
  );
  if (rows.length <= max) return undefined;
  // VictoriaLogs reads a missing field as "", and `field:=""` matches it so.
  const groups = rows
    .slice(0, max)
    .map((row) => plan.groupBy.map((name) => `${fieldName(name)}:=${quote(row[name] ?? "")}`).join(" "));
  const only = groups.map((g) => `(${g})`).join(" or ");
  return { ...plan, logsql: `${plan.rows} | filter ${only}${plan.logsql.slice(plan.rows.length)}` };
}

/**
 * A pushed-down breakdown (`sum by (x) (count_over_time(...))`, and the other pushed kinds) for
 * Logs Drilldown, which Loki answers partially past `max_query_series`: which series a partial
 * answer keeps is Loki's iteration order, so any `max` of them with exact values are as right.
 * VictoriaLogs names the groups first (one row per group, at most `max + 1` of them read), and past
 * the limit the bucket query is restricted to the first `max` groups by name: the Worker reads
 * bucket rows only for the groups it answers, however many distinct values the field has.
 *
 * A plan with a guard (the parser and unwrap push-downs) is exact only when no row anywhere may
 * read differently in Loki: such a row may belong, in Loki's reading, to a kept group whatever
 * group VictoriaLogs gives it. So the group query counts the guard's rows over all groups, and the
 * restricted bucket query lets them through beside the kept groups' rows, so that its own guard
 * count, in the same request as its buckets, still sees every one of them.
 */
import type { OriginClient } from "../origin/client";
import type { BucketGrid, GroupSource } from "../plan/metric-pushdown";
import { fieldName, quote } from "../plan/logsql";
import type { ScanStats } from "./logs";

/**
 * What the group query found: at most `max` groups (the plan stays whole), a row the guard voids
 * the answer for, or the plan restricted to `max` of its groups.
 */
export type Restriction<P> = { kind: "whole" } | { kind: "guarded" } | { kind: "cut"; plan: P };

export async function restrictToGroups<P extends BucketGrid>(
  client: OriginClient,
  plan: P,
  max: number,
  stats: ScanStats,
): Promise<Restriction<P>> {
  const source = plan.groups;
  if (!source || source.fields.length === 0) return { kind: "whole" };
  stats.subqueries++;
  const rows = await client.statsRows(groupQuery(source, max), plan.window);
  // Rows the guard counts sort first: the first row says whether there is any.
  if (rows.some((row) => Number(row.__bad ?? "0") > 0)) return { kind: "guarded" };
  if (rows.length <= max) return { kind: "whole" };
  // VictoriaLogs reads a missing field as "", and `field:=""` matches it so.
  const groups = rows
    .slice(0, max)
    .map((row) => source.fields.map((name) => `${fieldName(name)}:=${quote(row[name] ?? "")}`).join(" "));
  let only = groups.map((g) => `(${g})`).join(" or ");
  if (source.bad !== undefined) only = `${only} or (${source.bad})`;
  return {
    kind: "cut",
    plan: { ...plan, logsql: `${source.rows} | filter ${only}${plan.logsql.slice(source.rows.length)}` },
  };
}

/** The first `max + 1` groups with a sample, by name; with a guard, the groups of its rows before them. */
function groupQuery(source: GroupSource, max: number): string {
  const fields = source.fields.map(fieldName).join(", ");
  if (source.bad === undefined) {
    const counted = source.counted === undefined ? "" : ` | filter ${source.counted}`;
    return `${source.rows}${counted} | stats by (${fields}) count() as __c | sort by (${fields}) | limit ${max + 1}`;
  }
  const counted = source.counted === undefined ? "" : ` if (${source.counted})`;
  return (
    `${source.rows} | stats by (${fields}) count()${counted} as __c, count() if (${source.bad}) as __bad` +
    ` | filter __c:>0 or __bad:>0 | sort by (__bad desc, ${fields}) | limit ${max + 1}`
  );
}

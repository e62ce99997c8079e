/**
 * Runs a level push-down (src/plan/level-pushdown.ts): VictoriaLogs counts rows per (bucket, raw
 * inputs of Loki's level rules); each group's `detected_level` is derived once, by the rules rows go
 * through, and groups with the same labels add up. The rows of a group whose inputs do not settle
 * the level, and the rows a parser's guard counts, are read back and counted by the Worker
 * (exec/guarded-rows.ts); past MAX_READ_BACK_GROUPS such groups, or where the plan cannot read a
 * group's rows back, the whole answer is declined ("declined") and evaluated from rows.
 */
import type { Labels } from "../engine/types";
import type { CachedOrigin } from "../cache/cached-origin";
import type { MetricGrid } from "../plan/metric-pushdown";
import { INPUT, LEVEL_LABEL_INPUTS, type LevelBucketPlan } from "../plan/level-pushdown";
import { GUARD_ROW_FILTER } from "../plan/parser-pushdown";
import type { VLRow } from "../origin/rows";
import {
  DETECTED_LEVEL,
  SEVERITY_NUMBER,
  detectLevelWith,
  levelOfLineParts,
  levelOfWord,
} from "../engine/derived-fields";
import { PointLimitError } from "../engine/metric/errors";
import type { ScanStats } from "./logs";
import type { LabelFilterExpr } from "../logql/ast";
import { bucketRows, groupLabelsOf, type GroupBuckets } from "./metric-pushdown";
import { answerLabeller, compileStringFilter } from "./parser-pushdown";
import { groupFilter, MAX_READ_BACK_GROUPS, type ReadBackCounts } from "./guarded-rows";

export async function runLevelPlan(
  client: CachedOrigin,
  plan: LevelBucketPlan,
  grid: MetricGrid,
  stats: ScanStats,
  maxPoints?: number,
): Promise<ReadBackCounts | "declined"> {
  // `__c`: a group's rows (the value itself for an unguarded count).
  const values = plan.guarded ? ["__v", "__bad", "__c"] : plan.value === "bytes" ? ["__v", "__c"] : ["__v"];
  const rowsColumn = values.length - 1;
  let rows;
  try {
    rows = await bucketRows(client, plan, grid, stats, maxPoints, values);
  } catch (err) {
    // More groups of inputs than the answer may hold points: local evaluation holds only its own.
    if (err instanceof PointLimitError) return "declined";
    throw err;
  }
  const keeps = plan.levelFilters.map(levelPredicate);
  // With templates, the groups' labels are what they read: rendered, filtered, then the answer's kept.
  const render = plan.seriesLabels && answerLabeller(plan, plan.seriesLabels);
  const answerLabels = (labels: Labels): Labels | null => (render ? render(labels) : labels);
  const { table, ranks, rankEnds } = rows;
  // Each group of inputs is read once: its series (undefined: filtered out; "read back": its rows
  // are read back), or "declined".
  const byGroup: (GroupBuckets | null | "read back" | undefined)[] = [];
  const groups = new Map<string, GroupBuckets>();
  const labelFields = plan.labelFields ?? plan.labels;
  // A `keep` may have removed the level (plan/level-pushdown.ts): the groups then hold no input of it.
  const readsLevel = plan.byLevel || plan.levelFilters.length > 0;
  // Rows the origin may read otherwise than Loki, and the groups whose inputs do not settle the
  // level: read back and counted by the Worker.
  let readRows = 0;
  let guardRows = 0;
  const unsettled: string[] = [];
  for (let i = 0; i < table.length; i++) {
    if (plan.guarded) {
      guardRows += table.value(i, 1);
      // The stats pipe also makes groups of rows the parsed filters refused: Loki has no sample for them.
      if (table.value(i, 2) === 0) continue;
    }
    const gi = table.groupIndex(i);
    let g = byGroup[gi];
    if (g === undefined) {
      const row = table.groups[gi]!;
      const level = readsLevel ? levelOfGroup(row) : "";
      if (level === undefined) {
        if (!plan.readBack.groups || unsettled.length === MAX_READ_BACK_GROUPS) return "declined";
        unsettled.push(groupFilter(row, plan.groupBy));
        g = "read back";
      } else if (keeps.every((keep) => keep(level))) {
        const labels = answerLabels(groupLabelsOf(row, labelFields, plan.labels, plan.setEmpty));
        if (labels) {
          if (plan.byLevel) labels[DETECTED_LEVEL] = level;
          const id = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
          g = groups.get(id);
          if (!g) groups.set(id, (g = { labels, ranks: [], values: [] }));
        } else g = null;
      } else g = null;
      byGroup[gi] = g;
    }
    if (g === null) continue;
    if (g === "read back") {
      readRows += table.value(i, rowsColumn);
      continue;
    }
    g.ranks.push(ranks[table.timeIndex(i)]!);
    g.values.push(table.value(i, 0));
  }
  const filter = [...(guardRows > 0 ? [GUARD_ROW_FILTER] : []), ...unsettled].join(" or ");
  return { groups: [...groups.values()], rankEnds, guardedRows: guardRows + readRows, filter };
}

/**
 * The `detected_level` of every row of a group, from the group's inputs (see
 * plan/level-pushdown.ts), or undefined when they do not settle it.
 */
export function levelOfGroup(row: VLRow): string | undefined {
  const metadata: Labels = {};
  let levelFields = 0;
  for (const name of LEVEL_LABEL_INPUTS) {
    const v = row[name];
    if (!v) continue;
    metadata[name] = v;
    if (name !== DETECTED_LEVEL && name !== SEVERITY_NUMBER) levelFields++;
  }
  // A level-like stream label: which fields are the stream's matters when there is a choice.
  const choice = levelFields > 1 || metadata[DETECTED_LEVEL] !== undefined || metadata[SEVERITY_NUMBER] !== undefined;
  if (row[INPUT.stream] && choice) return undefined;
  let settled = true;
  const level = detectLevelWith({}, metadata, () => {
    const line = lineLevel(row);
    if (line === undefined) settled = false;
    return line ?? "unknown";
  });
  return settled ? level : undefined;
}

/** The line's part of a group's level, from its reduced inputs; undefined when they do not settle it. */
export function lineLevel(row: VLRow): string | undefined {
  const word = row[INPUT.word];
  const words = () => (word ? levelOfWord(word) : "unknown");
  if (row[INPUT.head] && row[INPUT.tail]) {
    const member = row[INPUT.json];
    if (member) return levelOfLineParts(member.slice(1, -1), words);
    return row[INPUT.flat] ? levelOfLineParts(undefined, words) : undefined;
  }
  const pair = row[INPUT.logfmt];
  if (pair) {
    // A bare `level` key is a pair with an empty value.
    const value = pair.includes("=") ? pair.slice(pair.indexOf("=") + 1) : "";
    return levelOfLineParts(value.startsWith('"') ? value.slice(1, -1) : value, words);
  }
  return row[INPUT.equals] ? undefined : words();
}

/** A filter on `detected_level` alone (plan/level-pushdown.ts) as a test of a level, by Loki's matchers. */
function levelPredicate(f: LabelFilterExpr): (level: string) => boolean {
  const keeps = compileStringFilter(f);
  return (level) => keeps({ [DETECTED_LEVEL]: level });
}

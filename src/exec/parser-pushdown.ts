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
import { isRename, type LabelTemplate, type ParserBucketPlan } from "../plan/parser-pushdown";
import { SERVICE_NAME, withServiceName } from "../engine/derived-fields";
import { parseStreamLabels } from "../origin/rows";
import { keepLabels, labelsKey } from "../engine/metric/labels";
import { compileTemplate } from "../engine/template";
import { stringMatcher } from "../engine/pipeline/labelfilter";
import type { LabelFilterExpr } from "../logql/ast";
import type { Labels } from "../engine/types";
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
  const render = plan.seriesLabels && answerLabeller(plan, plan.seriesLabels);
  const value = plan.value === "count" ? 0 : 2;
  // null: a group the template filters refuse.
  const byGroup: (GroupBuckets | null | undefined)[] = [];
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
    if (g === null) continue;
    if (!g) {
      let groupLabels = groupLabelsOf(labels[gi]!, plan.groupBy, plan.labels, plan.setEmpty);
      let key = keys[gi]!;
      if (render) {
        const rendered = render(groupLabels);
        if (!rendered) {
          byGroup[gi] = null;
          continue;
        }
        groupLabels = rendered;
        key = labelsKey(groupLabels);
      }
      g = groups.get(key);
      // Groups rendering alike hold rows of one series: their buckets add up (bucketTotals).
      if (!g) groups.set(key, (g = { labels: groupLabels, ranks: [], values: [] }));
      byGroup[gi] = g;
    }
    g.ranks.push(ranks[table.timeIndex(i)]!);
    g.values.push(table.value(i, value));
  }
  return { groups: [...groups.values()], rankEnds, guardedRows };
}

/**
 * A group's answer labels from its values of what the origin grouped by in their place: each
 * template rendered as Loki's `label_format` does (over the labels, a missing one reading as ""),
 * null where a filter on the rendered labels refuses them, `service_name` derived from the group's
 * stream as Loki's distributor does, then the answer's labels kept (a label set to "" too, as the
 * local pipeline keeps it).
 */
export function answerLabeller(
  plan: Pick<ParserBucketPlan, "templates" | "templateFilters" | "streamService">,
  seriesLabels: readonly string[],
): (inputs: Labels) => Labels | null {
  const rendered = templateRenderer(plan.templates ?? [], plan.templateFilters ?? []);
  const serviceLabels = plan.streamService;
  return (inputs) => {
    const all = rendered(inputs);
    if (!all) return null;
    if (serviceLabels) {
      const stream = withServiceName(parseStreamLabels(inputs[STREAM] ?? "{}"), serviceLabels);
      const service = stream[SERVICE_NAME];
      if (service !== undefined) all[SERVICE_NAME] = service;
    }
    return keepLabels(all, seriesLabels);
  };
}

const STREAM = "_stream";

/**
 * A group's labels with each template's label rendered from them as Loki's `label_format` does (a
 * missing label reading as ""), each rename applied where its source is present (moved, then
 * removed), or null where a filter on the rendered labels refuses them. Renames and templates
 * read none of each other's labels (plan/parser-pushdown.ts), so their order is the group's own.
 */
function templateRenderer(
  templates: readonly LabelTemplate[],
  filters: readonly LabelFilterExpr[],
): (inputs: Labels) => Labels | null {
  const renames = templates.filter(isRename);
  const compiled = templates.flatMap((t) =>
    isRename(t) ? [] : [{ label: t.label, tmpl: compileTemplate(t.template, "label") }],
  );
  const keeps = filters.map(compileStringFilter);
  return (inputs) => {
    const all: Labels = { ...inputs };
    for (const { label, tmpl } of compiled) all[label] = tmpl.execute({ labels: inputs, line: "", ts: 0n });
    for (const { label, rename } of renames) {
      if (!Object.hasOwn(inputs, rename)) continue;
      all[label] = inputs[rename]!;
      delete all[rename];
    }
    return keeps.every((keep) => keep(all)) ? all : null;
  };
}

/** A filter of string filters (ParsedCounting.templateFilters) over a group's labels, a missing one reading as "". */
export function compileStringFilter(f: LabelFilterExpr): (labels: Labels) => boolean {
  switch (f.type) {
    case "string": {
      const matches = stringMatcher(f.op, f.value);
      return (labels) => matches(labels[f.name] ?? "");
    }
    case "paren":
      return compileStringFilter(f.expr);
    case "binary": {
      const [left, right] = [compileStringFilter(f.left), compileStringFilter(f.right)];
      return f.op === "or" ? (l) => left(l) || right(l) : (l) => left(l) && right(l);
    }
    default:
      throw new Error(`not a string filter: ${f.type}`);
  }
}

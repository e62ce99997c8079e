/**
 * Loki's parser hints: in a metric query, the labels its parsers are told to extract. Loki builds
 * them from the labels the stages read, the grouping the samples are extracted with and the
 * unwrapped label; a parser skips keys they do not name. Only `| logfmt name="key"` changes an
 * answer by it: it reads a key that is not one of its labels only where the hints name that key,
 * so `sum by (lvl) (count_over_time({…} | logfmt lvl="level" [5m]))` leaves `lvl` empty on every
 * row (the hints name `lvl`, not `level`), while `count_over_time` alone, which needs every label,
 * reads it. Other parsers skip only keys nothing reads; that they also stop reading once every
 * hinted label is set, which leaves a `--strict` error later in the line unmarked, is not modelled.
 */
import type { Grouping, LabelFilterExpr, PipelineStage, RangeAggregationExpr, SampleExpr } from "../../logql/ast";
import { walk } from "../../logql/walk";
import { templateFieldNames } from "../template";
import { DUPLICATE_SUFFIX } from "./labels";

export interface ParserHints {
  /** The labels parsers extract; undefined for every label. */
  readonly required?: ReadonlySet<string>;
  /** No label is needed at all (`sum(count_over_time(…))` without filters): parsers read nothing. */
  readonly none: boolean;
}

/** Log queries, and metric queries Loki cannot hint: every label is extracted. */
export const EXTRACT_ALL: ParserHints = { none: false };

/**
 * Range functions whose samples Loki extracts with an enclosing `sum`'s grouping when they have
 * none of their own (canInjectVectorGrouping): only a sum of them is the same over fewer labels.
 */
const GROUPING_INJECTED = new Set(["bytes_over_time", "bytes_rate", "sum_over_time", "rate", "count_over_time"]);

/**
 * The grouping Loki's sample extractor of `range` uses: the range aggregation's own, else that of
 * `parent` when it is a `sum` directly around it that Loki injects.
 */
export function extractionGrouping(range: RangeAggregationExpr, parent?: SampleExpr): Grouping | undefined {
  if (range.grouping) return range.grouping;
  if (parent?.kind !== "VectorAggregation" || parent.op !== "sum" || parent.expr !== range) return undefined;
  if (!GROUPING_INJECTED.has(range.op)) return undefined;
  return parent.grouping ?? { without: false, labels: [] };
}

/** The hints of the sample extractor of `range`, grouped by `grouping` (extractionGrouping). */
export function parserHints(range: RangeAggregationExpr, grouping: Grouping | undefined): ParserHints {
  const unwrap = range.range.unwrap;
  let groups = grouping?.labels ?? [];
  let without = grouping?.without ?? false;
  // A grouping `by ()` keeps no label; absent_over_time keeps none either.
  const noLabels = (grouping !== undefined && !without && groups.length === 0) || range.op === "absent_over_time";
  const read = range.range.selector.pipeline.flatMap(stageLabelNames);
  if (unwrap) {
    // An unwrapped aggregation without grouping keeps every label but the unwrapped one.
    if (groups.length === 0 || without) {
      without = true;
      groups = [...groups, unwrap.label];
    }
    read.push(...unwrap.postFilters.flatMap(filterLabelNames));
  }
  const hints = new Set<string>();
  for (const name of [...read, ...groups, ...(unwrap ? [unwrap.label] : [])]) {
    if (name === "") continue;
    hints.add(name);
    // A parsed key named like a stream label becomes `…_extracted` only after the hint is read.
    if (name.endsWith(DUPLICATE_SUFFIX)) {
      const key = name.slice(0, -DUPLICATE_SUFFIX.length);
      if (key !== "") hints.add(key);
    }
  }
  if (noLabels) return hints.size > 0 ? { required: hints, none: false } : { none: true };
  if (without || groups.length === 0) return EXTRACT_ALL;
  return { required: hints, none: false };
}

/** The labels a stage reads, as Loki's `RequiredLabelNames` lists them. */
function stageLabelNames(stage: PipelineStage): string[] {
  switch (stage.kind) {
    case "LabelFilter":
      return filterLabelNames(stage.filter);
    case "LineFormat":
      return templateFieldNames(stage.template);
    case "LabelFormat":
      return stage.ops.flatMap((op) => (op.isTemplate ? templateFieldNames(op.src) : [op.src]));
    default:
      return [];
  }
}

function filterLabelNames(f: LabelFilterExpr): string[] {
  const names: string[] = [];
  walk(f, {
    LabelFilterExpr: (node) => {
      if (node.type !== "binary" && node.type !== "paren") names.push(node.name);
    },
  });
  return names;
}

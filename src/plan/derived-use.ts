/**
 * Whether a metric query's answer can depend on the fields the Worker derives (`detected_level`,
 * `service_name`; engine/derived-fields.ts). Deriving them costs work on every row; a query whose
 * every range aggregation ends up grouped by other labels, and whose stages never read them,
 * gets the same answer without it.
 */
import type { LabelFilterExpr, PipelineStage, SampleExpr } from "../logql/ast";
import { vectorAggregation } from "../logql/functions";

export function metricNeedsDerived(expr: SampleExpr, derived: ReadonlySet<string>): boolean {
  if (derived.size === 0) return false;
  return needs(expr, false, derived);
}

/** `covered`: an enclosing aggregation keeps only labels that are not derived. */
function needs(e: SampleExpr, covered: boolean, derived: ReadonlySet<string>): boolean {
  switch (e.kind) {
    case "RangeAggregation": {
      const g = e.grouping;
      if (g && (g.without || g.labels.some((l) => derived.has(l)))) return true;
      if (!covered && !g) return true;
      const range = e.range;
      if (range.unwrap && (derived.has(range.unwrap.label) || range.unwrap.postFilters.some((f) => reads(f, derived))))
        return true;
      return range.selector.pipeline.some((stage) => stageReads(stage, derived));
    }
    case "VectorAggregation": {
      const g = e.grouping;
      // Ranking keeps each series' full label set, whatever its grouping.
      if (vectorAggregation(e.op).result === "series") return needs(e.expr, covered, derived);
      if (!g) return needs(e.expr, true, derived);
      if (g.without || g.labels.some((l) => derived.has(l))) return true;
      return needs(e.expr, true, derived);
    }
    case "LabelReplace":
      // It reads the inner series' labels: derived ones only if those series still carry them.
      return needs(e.expr, covered, derived);
    case "BinaryOp":
      // Each side's labels are its own aggregation's: matching sees derived ones only if they keep them.
      return needs(e.lhs, covered, derived) || needs(e.rhs, covered, derived);
    default:
      return false;
  }
}

function stageReads(stage: PipelineStage, derived: ReadonlySet<string>): boolean {
  switch (stage.kind) {
    case "LabelFilter":
      return reads(stage.filter, derived);
    // Templates can read any label; drop/keep and label_format name them.
    case "LineFormat":
    case "LabelFormat":
      return true;
    case "Drop":
    case "Keep":
      return stage.items.some((item) => derived.has(item.name));
    default:
      return false;
  }
}

/**
 * Whether a log query's `detected_level` can wait until the pipeline has kept an entry, computed
 * then from the row as read: no stage may read it (label filters and drops naming it, templates)
 * or remove it (`keep`). Parsers, line filters and decolorize neither read nor remove it.
 */
export function levelsCanWait(local: readonly PipelineStage[], derived: ReadonlySet<string>): boolean {
  return local.every((s) => {
    switch (s.kind) {
      case "LineFilter":
      case "Decolorize":
      case "JsonParser":
      case "LogfmtParser":
      case "RegexpParser":
      case "PatternParser":
      case "UnpackParser":
        return true;
      case "LabelFilter":
        return !reads(s.filter, derived);
      case "Drop":
        return !s.items.some((item) => derived.has(item.name));
      default:
        return false;
    }
  });
}

function reads(f: LabelFilterExpr, derived: ReadonlySet<string>): boolean {
  switch (f.type) {
    case "binary":
      return reads(f.left, derived) || reads(f.right, derived);
    case "paren":
      return reads(f.expr, derived);
    default:
      return derived.has(f.name);
  }
}

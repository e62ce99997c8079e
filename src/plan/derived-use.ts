/**
 * Whether a metric query's answer can depend on the fields the Worker derives (`detected_level`,
 * `service_name`; engine/derived-fields.ts). Deriving them costs work on every row; a query whose
 * every range aggregation ends up grouped by other labels, and whose stages never read them,
 * gets the same answer without it.
 */
import type { LabelFilterExpr, PatternParserStage, PipelineStage, RegexpParserStage, SampleExpr } from "../logql/ast";
import { isKind, some, type SyntaxNode } from "../logql/walk";
import { vectorAggregation } from "../logql/functions";
import { goRegexGroupNames } from "../logql/regex";
import { compilePattern } from "../engine/pipeline/pattern";
import { DUPLICATE_SUFFIX } from "../engine/pipeline/labels";
import { DETECTED_LEVEL } from "../engine/derived-fields";

export function metricNeedsDerived(expr: SampleExpr, derivedNames: ReadonlySet<string>): boolean {
  if (derivedNames.size === 0) return false;
  // A parser names a key `detected_level` (`service_name`) `…_extracted` only beside the derived
  // label: a query naming that name depends on it too.
  const derived = withExtracted(derivedNames);
  return some(expr, (node, ancestors) => {
    if (isKind(node, "RangeAggregation")) {
      const g = node.grouping;
      if (g && (g.without || g.labels.some((l) => derived.has(l)))) return true;
      // Without grouping its series keep every label, derived ones too, unless an enclosing
      // aggregation keeps only labels that are not derived. `detected_level` is structured
      // metadata, so it also splits the series: only a `sum` right around them adds the parts of
      // a split series back into one (an `avg`, `max`, `count` or `topk` of them differs).
      // `service_name` is the stream's, so it splits nothing.
      if (
        !g &&
        !(derivedNames.has(DETECTED_LEVEL) ? sumsRightAround(ancestors) : ancestors.some(keepsOnlyItsGrouping))
      ) {
        return true;
      }
      return node.range.unwrap !== undefined && derived.has(node.range.unwrap.label);
    }
    if (isKind(node, "VectorAggregation")) {
      const g = node.grouping;
      return keepsOnlyItsGrouping(node) && g !== undefined && (g.without || g.labels.some((l) => derived.has(l)));
    }
    // Below a range aggregation: its stages and its unwrap's filters. Templates can read any label.
    if (isKind(node, "LineFormat") || isKind(node, "LabelFormat")) return true;
    return namesDerived(node, derived);
  });
}

/**
 * A vector aggregation that keeps only its grouping labels (not topk, bottomk or sort, which keep
 * each series' full label set whatever their grouping). Other nodes (label_replace, binary
 * operations) pass their inner series' labels through: each side's labels are its own aggregation's.
 */
function keepsOnlyItsGrouping(node: SyntaxNode): boolean {
  return isKind(node, "VectorAggregation") && vectorAggregation(node.op).result !== "series";
}

/** Whether the node's parent is a `sum` keeping only its grouping (see keepsOnlyItsGrouping). */
function sumsRightAround(ancestors: readonly SyntaxNode[]): boolean {
  const parent = ancestors[ancestors.length - 1];
  return (
    parent !== undefined && keepsOnlyItsGrouping(parent) && isKind(parent, "VectorAggregation") && parent.op === "sum"
  );
}

/** A label filter, `drop` or `keep` naming a derived field. */
function namesDerived(node: SyntaxNode, derived: ReadonlySet<string>): boolean {
  if (isKind(node, "Drop") || isKind(node, "Keep")) return node.items.some((item) => derived.has(item.name));
  if (!isKind(node, "LabelFilterExpr")) return false;
  return node.type !== "binary" && node.type !== "paren" && derived.has(node.name);
}

/**
 * Whether a log query's `detected_level` can wait until the pipeline has kept an entry, computed
 * then from the row as read: no stage may read it (label filters and drops naming it, templates)
 * or remove it (`keep`), and no parser may extract a key of that name, which Loki names
 * `detected_level_extracted` because the entry already carries the level as structured metadata.
 * Line filters and decolorize neither read nor remove it.
 */
export function levelsCanWait(local: readonly PipelineStage[], derived: ReadonlySet<string>): boolean {
  return local.every((s) => {
    switch (s.kind) {
      case "LineFilter":
      case "Decolorize":
        return true;
      case "JsonParser":
      case "LogfmtParser":
        // Without parameters, any key of the line may be extracted.
        return s.params.length > 0 && !s.params.some((p) => derived.has(p.label));
      case "RegexpParser":
      case "PatternParser":
        return !captureNames(s).some((name) => derived.has(name));
      case "UnpackParser":
        return false;
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
  return some(f, (node) => namesDerived(node, derived));
}

/**
 * The labels a `regexp` or `pattern` stage may set: its named groups or captures (none for a
 * pattern Loki refuses, which fails before any row is read).
 */
export function captureNames(stage: RegexpParserStage | PatternParserStage): string[] {
  if (stage.kind === "RegexpParser") return goRegexGroupNames(stage.regex);
  try {
    return compilePattern(stage.pattern, false).names;
  } catch {
    return [];
  }
}

/** The names, and each with the suffix a parser gives a key named like it. */
function withExtracted(names: ReadonlySet<string>): ReadonlySet<string> {
  return new Set([...names].flatMap((name) => [name, `${name}${DUPLICATE_SUFFIX}`]));
}

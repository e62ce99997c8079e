/**
 * What Loki refuses when it builds a pipeline, before reading any line: an unparsable json or
 * logfmt expression, an `ip()` filter with a bad pattern or a non-equality operator. Loki answers
 * each with a 400 naming the stage (`parse error : stage '| json a="b["' : cannot parse
 * expression [b[]: ...`); without these checks the Worker failed with a 500 when it compiled the
 * stage.
 */
import type { LabelFilterExpr, PipelineStage } from "./ast";
import { semanticError } from "./errors";
import { logfmtExpressionError, parseJsonExpression } from "./extraction-expr";
import { printStage } from "./printer";
import { ipPatternError } from "../engine/pipeline/ip";

/** Throws Loki's stage error when `stage` cannot be built. */
export function checkStageBuilds(stage: PipelineStage): void {
  const detail = stageBuildError(stage);
  if (detail !== undefined) throw semanticError(`stage '${printStage(stage)}' : ${detail}`);
}

function stageBuildError(stage: PipelineStage): string | undefined {
  switch (stage.kind) {
    case "JsonParser":
      for (const p of stage.params) {
        const expr = p.expression ?? p.label;
        const parsed = parseJsonExpression(expr);
        if (!parsed.ok) return `cannot parse expression [${expr}]: ${parsed.error}`;
      }
      return undefined;
    case "LogfmtParser":
      for (const p of stage.params) {
        const expr = p.expression ?? p.label;
        const err = logfmtExpressionError(expr);
        if (err !== undefined) return `cannot parse expression [${expr}]: ${err}`;
      }
      return undefined;
    case "LineFilter":
      for (const v of stage.values) {
        if (v.type !== "ip") continue;
        if (stage.op !== "|=" && stage.op !== "!=") return "ip: invalid operation";
        const err = ipPatternError(v.cidr);
        if (err !== undefined) return err;
      }
      return undefined;
    case "LabelFilter":
      return labelFilterBuildError(stage.filter);
    default:
      return undefined;
  }
}

/**
 * Only an `ip()` filter that is the whole label filter (parentheses aside) fails the query; inside `and`/`or` Loki
 * keeps it, and it matches nothing (engine/pipeline/labelfilter.ts).
 */
function labelFilterBuildError(f: LabelFilterExpr): string | undefined {
  if (f.type === "paren") return labelFilterBuildError(f.expr);
  return f.type === "ip" ? ipPatternError(f.cidr) : undefined;
}

/**
 * What Loki refuses when it builds a pipeline, before reading any line: an unparsable json or
 * logfmt expression, an `ip()` filter with a bad pattern or a non-equality operator, a line
 * filter's invalid regex. Loki answers
 * each with a 400 naming the stage (`parse error : stage '| json a="b["' : cannot parse
 * expression [b[]: ...`); without these checks the Worker failed with a 500 when it compiled the
 * stage.
 */
import type { LabelFilterExpr, LineFilterStage, PipelineStage } from "./ast";
import { semanticError } from "./errors";
import { logfmtExpressionError, parseJsonExpression } from "./extraction-expr";
import { printStage } from "./printer";
import { goRegexError } from "./regex";
import { ipPatternError } from "../util/ip";

/**
 * Throws Loki's stage error for the first stage of `stages` it could not build, in Loki's order:
 * its pipeline moves the line filters of each stretch (up to a label filter, a `line_format` or
 * an `unpack`) ahead of the stretch's other stages as one combined stage, named by all of them
 * and built from the last filter back.
 */
export function checkPipelineBuilds(stages: readonly PipelineStage[]): void {
  let filters: LineFilterStage[] = [];
  let others: PipelineStage[] = [];
  const flush = (): void => {
    for (let i = filters.length - 1; i >= 0; i--) {
      const detail = stageBuildError(filters[i]!);
      if (detail !== undefined) throw semanticError(`stage '${filters.map(printStage).join(" ")}' : ${detail}`);
    }
    for (const stage of others) {
      const detail = stageBuildError(stage);
      if (detail !== undefined) throw semanticError(`stage '${printStage(stage)}' : ${detail}`);
    }
    filters = [];
    others = [];
  };
  for (const stage of stages) {
    if (stage.kind === "LineFilter") filters.push(stage);
    else if (stage.kind === "LabelFilter") {
      flush();
      others.push(stage);
      flush();
    } else {
      others.push(stage);
      if (stage.kind === "LineFormat" || stage.kind === "UnpackParser") flush();
    }
  }
  flush();
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
        if (v.type === "string") {
          if (stage.op === "|~" || stage.op === "!~") {
            const err = goRegexError(v.value);
            if (err !== undefined) return err;
          }
          continue;
        }
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

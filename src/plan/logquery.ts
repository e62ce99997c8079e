/**
 * Plans a log query: the LogsQL VictoriaLogs runs (stream selector, every line filter it can
 * evaluate exactly, and the necessary conditions of label filters) and the pipeline stages left for
 * the Worker.
 *
 * Loki evaluates line filters on the original line wherever they appear before the first
 * `line_format` (it moves them ahead of parsers), so all of those are candidates for push-down.
 * Stages that change the line (`line_format`, `decolorize`) end the candidate region. Pattern
 * filters (`|>`, `!>`) become pipes after the filters (pattern-filter.ts), the query ending in a
 * `filter` pipe then.
 */
import type { LogSelectorExpr, PipelineStage } from "../logql/ast";
import { printStage } from "../logql/printer";
import { checkPipelineBuilds } from "../logql/stage-build";
import { BadRequestError } from "../core/errors";
import { lineFilterToLogsQL } from "./linefilter";
import { ANSI_LINES } from "./lenient-lines";
import { patternFilterPipes } from "./pattern-filter";
import { compileTemplate, TemplateParseError } from "../engine/template";
import { labelFilterPrefilters } from "./prefilter";
import { streamFilter } from "./selector";
import { derivedNames, type DerivedFieldRules } from "../engine/derived-fields";

export interface LogQueryPlan {
  /** LogsQL filters (no time filter: the origin client adds the window). */
  logsql: string;
  /** Stages the Worker still runs, in Loki's order. */
  local: PipelineStage[];
  /** True when no local stage can drop a row, so the origin may apply `limit` itself. */
  localKeepsEveryRow: boolean;
}

export interface PlanOptions {
  /** Send label filters' necessary conditions to the origin (prefilter.ts); on unless turned off. */
  prefilter?: boolean;
  /** Fields the Worker derives (engine/derived-fields.ts): no origin filter may look for them. */
  derived?: DerivedFieldRules;
}

export function planLogQuery(expr: LogSelectorExpr, { prefilter = true, derived }: PlanOptions = {}): LogQueryPlan {
  const filters = [streamFilter(expr.matchers, derived?.serviceNameLabels)];
  // Pattern filters read the line with `extract` (pattern-filter.ts): pipes after every filter.
  const pipes: string[] = [];
  let patternFilters = 0;
  const local: PipelineStage[] = [];
  let lineUnchanged = true;
  // Only `decolorize` changed the line so far: the stored line is the one it reads, except where
  // it holds an escape to remove (ANSI_LINES).
  let decolorizedOnly = false;
  // Before anything reaches the origin, so a pushed-down filter fails the same way as a local one.
  checkPipelineBuilds(expr.pipeline);
  for (const stage of expr.pipeline) {
    checkTemplates(stage);
    // `| unpack` makes a packed line's `_entry` the line: a later filter reads that, not the stored one.
    const rewrites = stage.kind === "LineFormat" || stage.kind === "UnpackParser";
    if (stage.kind === "Decolorize") decolorizedOnly ||= lineUnchanged;
    if (rewrites) decolorizedOnly = false;
    if (rewrites || stage.kind === "Decolorize") lineUnchanged = false;
    if (stage.kind === "LineFilter" && decolorizedOnly) {
      // A superset for the origin: the rows it keeps, and those decolorize may change; the Worker
      // still filters the decolorized line.
      const pushed = lineFilterToLogsQL(stage);
      if (pushed !== undefined) filters.push(`(${pushed} or ${ANSI_LINES})`);
    }
    if (stage.kind === "LineFilter" && lineUnchanged) {
      const pushed = lineFilterToLogsQL(stage);
      if (pushed !== undefined) {
        filters.push(pushed);
        continue;
      }
      const patternPipes = patternFilterPipes(stage, patternFilters);
      if (patternPipes !== undefined) {
        pipes.push(...patternPipes);
        patternFilters++;
        continue;
      }
    }
    local.push(stage);
  }
  if (prefilter) filters.push(...labelFilterPrefilters(expr.pipeline, derivedNames(derived)));
  return {
    // Ends with a filter (or a `filter` pipe): filters appended with a space still join it.
    logsql: filters.join(" ") + pipes.map((pipe) => ` | ${pipe}`).join(""),
    local,
    localKeepsEveryRow: local.every((s) => s.kind !== "LineFilter" && s.kind !== "LabelFilter"),
  };
}

/**
 * Loki parses `line_format` and `label_format` templates when it builds the pipeline and answers a
 * template its parser rejects (an undefined function, a syntax error) with a 400 naming the stage,
 * before reading anything.
 */
function checkTemplates(stage: PipelineStage): void {
  const fail = (detail: string) => {
    throw new BadRequestError(`parse error : stage '${printStage(stage)}' : ${detail}`);
  };
  try {
    if (stage.kind === "LineFormat") compileTemplate(stage.template, "line");
  } catch (e) {
    if (e instanceof TemplateParseError) fail(`invalid line template: ${e.message}`);
    throw e;
  }
  if (stage.kind !== "LabelFormat") return;
  for (const op of stage.ops) {
    if (!op.isTemplate) continue;
    try {
      compileTemplate(op.src, "label");
    } catch (e) {
      if (e instanceof TemplateParseError) fail(`invalid template for label '${op.dst}': ${e.message}`);
      throw e;
    }
  }
}

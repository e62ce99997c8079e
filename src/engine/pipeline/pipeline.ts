/** Compiles a LogQL pipeline once per query and runs it per row. */
import type { PipelineStage } from "../../logql/ast";
import type { LogEntry, LogRow } from "../types";
import { LiteralRow } from "../literal-row";
import { labelFormatStage, lineFormatStage } from "./format";
import { jsonExpressionStage, jsonParserStage } from "./json";
import { compileLabelFilter } from "./labelfilter";
import { ERROR_DETAILS_LABEL, ERROR_LABEL, LabelsBuilder } from "./labels";
import { lineFilterPredicate } from "./linefilter";
import { logfmtExpressionStage, logfmtParserStage } from "./logfmt";
import { EXTRACT_ALL, type ParserHints } from "./parser-hints";
import { patternParserStage, regexpParserStage, unpackParserStage } from "./parsers";
import { reorderLineFilters } from "./reorder";
import { decolorizeStage, dropStage, keepStage } from "./shaping";
import type { Stage } from "./stage";
import { checkPipelineBuilds } from "../../logql/stage-build";

export function compileStage(s: PipelineStage, hints: ParserHints = EXTRACT_ALL): Stage {
  switch (s.kind) {
    case "LineFilter": {
      const pass = lineFilterPredicate(s);
      return (_ts, line) => (pass(line) ? line : null);
    }
    case "JsonParser":
      return s.params.length === 0 ? jsonParserStage() : jsonExpressionStage(s.params);
    case "LogfmtParser":
      return s.params.length === 0
        ? logfmtParserStage(s.strict, s.keepEmpty)
        : logfmtExpressionStage(s.params, s.strict, hints);
    case "RegexpParser":
      return regexpParserStage(s.regex);
    case "PatternParser":
      return patternParserStage(s.pattern);
    case "UnpackParser":
      return unpackParserStage();
    case "LabelFilter": {
      const pass = compileLabelFilter(s.filter);
      return (_ts, line, b) => (pass(b) ? line : null);
    }
    case "LineFormat":
      return lineFormatStage(s.template);
    case "LabelFormat":
      return labelFormatStage(s.ops);
    case "Decolorize":
      return decolorizeStage();
    case "Drop":
      return dropStage(s.items);
    case "Keep":
      return keepStage(s.items);
  }
}

/** Stages in Loki's execution order, compiled; the builder the row's labels live in while they run. */
export class StageRunner {
  readonly builder = new LabelsBuilder();
  private readonly stages: Stage[];

  /** `hints`: a metric query's parser hints (parser-hints.ts); log queries extract every label. */
  constructor(stages: PipelineStage[], hints: ParserHints = EXTRACT_ALL) {
    // Every route runs its stages here, planned or not: one Loki cannot build is its 400, not a crash.
    checkPipelineBuilds(stages);
    this.stages = reorderLineFilters(stages).map((s) => compileStage(s, hints));
  }

  /** The final line, or null when a stage dropped the row. Labels are left in `builder`. */
  run(row: LogRow): string | null {
    const b = this.builder;
    b.reset(row.stream);
    b.addMetadata(row.metadata);
    let line: string | null = row.line;
    const ts = row.ts;
    for (const stage of this.stages) {
      line = stage(ts, line, b);
      if (line === null) return null;
    }
    return line;
  }
}

export interface LogPipeline {
  /** The entry Loki would return for this row, or null when the pipeline drops it. */
  process(row: LogRow): LogEntry | null;
}

export function compileLogPipeline(stages: PipelineStage[]): LogPipeline {
  const runner = new StageRunner(stages);
  if (stages.length === 0) return passThrough(runner);
  return {
    process(row) {
      const line = runner.run(row);
      if (line === null) return null;
      // The origin's literal stays valid only while the line is the one it sent.
      return runner.builder.toEntry(row.ts, line, line === row.line ? row.rawLine : undefined);
    },
  };
}

/**
 * The pipeline of a query whose stages all ran in the origin: most rows come out exactly as they
 * went in, so they skip the labels builder. Rows whose metadata the label model renames (a name
 * shared with a stream label, or an error label) still take the general path.
 */
function passThrough(runner: StageRunner): LogPipeline {
  return {
    process(row) {
      const { stream, metadata } = row;
      for (const key in metadata) {
        if (key === ERROR_LABEL || key === ERROR_DETAILS_LABEL || Object.hasOwn(stream, key)) {
          const line = runner.run(row)!;
          return runner.builder.toEntry(row.ts, line, row.rawLine);
        }
      }
      // Its line stays undecoded: the entry is the row itself.
      if (row instanceof LiteralRow) return row;
      return { ts: row.ts, line: row.line, rawLine: row.rawLine, stream, metadata, parsed: {} };
    },
  };
}

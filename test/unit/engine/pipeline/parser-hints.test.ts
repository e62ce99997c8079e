import { describe, expect, it } from "vitest";
import type { PipelineStage, RangeAggregationExpr, SampleExpr } from "../../../../src/logql/ast";
import { parseExpr } from "../../../../src/logql/parser";
import type { LogRow } from "../../../../src/engine/types";
import { compileLogPipeline, compileSampleExtractor } from "../../../../src/engine/pipeline";
import { extractionGrouping, parserHints } from "../../../../src/engine/pipeline/parser-hints";

/** The range aggregation of `query` and the hints Loki extracts its samples with. */
function hintsOf(query: string) {
  const expr = parseExpr(query) as SampleExpr;
  const range = (expr.kind === "RangeAggregation" ? expr : (expr as { expr: SampleExpr }).expr) as RangeAggregationExpr;
  const hints = parserHints(range, extractionGrouping(range, expr));
  return { range, hints, required: hints.required ? [...hints.required].sort() : undefined };
}

const row = (line: string, stream: Record<string, string> = { app: "a" }): LogRow => ({
  ts: 1000n,
  line,
  stream,
  metadata: {},
});

/** The sample labels of `query` (its range aggregation's extractor, under its hints) for one line. */
function labelsOf(query: string, line: string, stream?: Record<string, string>) {
  const { range, hints } = hintsOf(query);
  return compileSampleExtractor(range.range, range.op, undefined, hints).process(row(line, stream))?.labels;
}

describe("parser hints (Loki's NewParserHint)", () => {
  it("a sum's grouping, the stages' labels and the unwrapped label", () => {
    expect(hintsOf('sum by (lvl) (count_over_time({app="a"} | logfmt lvl="level" [5m]))').required).toEqual(["lvl"]);
    expect(
      hintsOf('sum by (a) (rate({app="a"} | logfmt x="y" | b="1" or c>2 | line_format "{{.d.e}}" [5m]))').required,
    ).toEqual(["a", "b", "c", "d", "e"]);
    // The `_extracted` name is hinted with and without its suffix.
    expect(hintsOf('sum by (app_extracted) (count_over_time({app="a"} | logfmt [5m]))').required).toEqual([
      "app",
      "app_extracted",
    ]);
    expect(hintsOf('sum by (p) (sum_over_time({app="a"} | logfmt t="took" | unwrap t [5m]))').required).toEqual([
      "p",
      "t",
    ]);
  });
  it("every label without a grouping, with `without`, or where Loki does not inject the sum's", () => {
    for (const q of [
      'count_over_time({app="a"} | logfmt lvl="level" [5m])',
      'sum without (app) (count_over_time({app="a"} | logfmt lvl="level" [5m]))',
      'max by (lvl) (count_over_time({app="a"} | logfmt lvl="level" [5m]))',
      'sum by (lvl) (max_over_time({app="a"} | logfmt lvl="level" | unwrap x [5m]))',
      'sum_over_time({app="a"} | logfmt t="took" | unwrap t [5m])',
    ]) {
      expect(hintsOf(q).hints, q).toEqual({ none: false });
    }
  });
  it("nothing for a sum of everything, unless a stage or the unwrap reads a label", () => {
    expect(hintsOf('sum(count_over_time({app="a"} | logfmt lvl="level" [5m]))').hints).toEqual({ none: true });
    expect(hintsOf('sum(count_over_time({app="a"} | logfmt lvl="level" | lvl="x" [5m]))').required).toEqual(["lvl"]);
    expect(hintsOf('sum(sum_over_time({app="a"} | logfmt t="took" | unwrap t [5m]))').required).toEqual(["t"]);
  });
});

describe('| logfmt name="key" under hints', () => {
  it("reads a renamed key only where the hints name it", () => {
    const q = 'sum by (lvl) (count_over_time({app="a"} | logfmt lvl="level" [5m]))';
    expect(labelsOf(q, "level=info")).toEqual({ app: "a", lvl: "" });
    expect(labelsOf('count_over_time({app="a"} | logfmt lvl="level" [5m])', "level=info")).toEqual({
      app: "a",
      lvl: "info",
    });
  });
  it("an unwrapped renamed key is not read under a grouping: no sample", () => {
    const q = 'sum by (app) (sum_over_time({app="a"} | logfmt t="took" | unwrap t [5m]))';
    expect(labelsOf(q, "took=3")).toBeUndefined();
    expect(labelsOf('sum_over_time({app="a"} | logfmt t="took" | unwrap t [5m])', "took=3")).toEqual({ app: "a" });
  });
  it("stops at a label held by the row that the hints do not name as `…_extracted`", () => {
    // `app` is a stream label: the key becomes app_extracted, not hinted, and reading stops there.
    const q = 'sum by (b) (count_over_time({app="a"} | logfmt app, b [5m]))';
    expect(labelsOf(q, "app=x b=y")).toEqual({ app: "a", b: "" });
    expect(labelsOf(q, "b=y app=x")).toEqual({ app: "a", b: "y" });
  });
});

describe('| logfmt name="key" after another parser (log queries too)', () => {
  const logfmt: PipelineStage = { kind: "LogfmtParser", strict: false, keepEmpty: false, params: [] };
  const renamed: PipelineStage = {
    kind: "LogfmtParser",
    strict: false,
    keepEmpty: false,
    params: [{ label: "lvl", expression: "level" }],
  };
  it("skips a key a stage before already extracted as a label of its name", () => {
    const e = compileLogPipeline([logfmt, renamed]).process(row("level=info"))!;
    expect(e.parsed).toEqual({ level: "info", lvl: "" });
  });
});

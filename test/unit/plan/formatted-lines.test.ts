/**
 * Line filters after `line_format`, read as label filters (plan/formatted-lines.ts). That the
 * push-downs answering them agree with the Worker's own evaluation is tested against the real
 * VictoriaLogs in test/worker/parser-stages-pushdown.test.ts; here, the stages they are given.
 */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { LogSelectorExpr, PipelineStage } from "../../../src/logql/ast";
import { formattedLineFilters } from "../../../src/plan/formatted-lines";

const stagesOf = (pipeline: string): PipelineStage[] =>
  (parseExpr(`{app="x"} | logfmt ${pipeline}`) as LogSelectorExpr).pipeline.slice(1);

describe("formattedLineFilters", () => {
  it("reads a line of one label as that label's value", () => {
    expect(formattedLineFilters(stagesOf('| line_format "{{.msg}}" |= "a.b" != "c"'))?.slice(1)).toEqual([
      { kind: "LabelFilter", filter: { type: "string", name: "msg", op: "=~", value: "(?s:.*)(?:a\\.b)(?s:.*)" } },
      { kind: "LabelFilter", filter: { type: "string", name: "msg", op: "!~", value: "(?s:.*)(?:c)(?s:.*)" } },
    ]);
  });

  it("writes a line of several labels as a label of its own, which the filters read anywhere", () => {
    const stages = formattedLineFilters(stagesOf('| line_format "{{.a}} {{.b}}" |~ "x|^y" or "z" !~ "w" |= "."'))!;
    expect(stages[0]).toEqual({
      kind: "LabelFormat",
      ops: [{ dst: "__formatted_line_0", src: "{{.a}} {{.b}}", isTemplate: true }],
    });
    expect(stages[1]).toEqual({ kind: "LineFormat", template: "{{.a}} {{.b}}" });
    expect(stages.slice(2).map((s) => s.kind === "LabelFilter" && s.filter)).toEqual([
      { type: "string", name: "__formatted_line_0", op: "=~", value: "(?s:.*)(?:(?:x|^y)|(?:z))(?s:.*)" },
      { type: "string", name: "__formatted_line_0", op: "!~", value: "(?s:.*)(?:(?:w))(?s:.*)" },
      { type: "string", name: "__formatted_line_0", op: "=~", value: "(?s:.*)(?:(?:\\.))(?s:.*)" },
    ]);
  });

  it("renders a line of one label too where the label may have changed, or for a regex", () => {
    const stages = formattedLineFilters(stagesOf('| line_format "{{.msg}}" |= "a" | label_format msg=b |~ "c"'))!;
    expect(stages.map((s) => s.kind)).toEqual([
      "LabelFormat",
      "LineFormat",
      "LabelFilter",
      "LabelFormat",
      "LabelFilter",
    ]);
    expect(stages[2]).toEqual({
      kind: "LabelFilter",
      filter: { type: "string", name: "msg", op: "=~", value: "(?s:.*)(?:a)(?s:.*)" },
    });
    expect(stages[4]).toEqual({
      kind: "LabelFilter",
      filter: { type: "string", name: "__formatted_line_0", op: "=~", value: "(?s:.*)(?:(?:c))(?s:.*)" },
    });
  });

  it("keeps line filters it cannot read as labels out", () => {
    for (const pipeline of [
      '| decolorize |= "a"',
      '| line_format "{{.msg}}" | decolorize |= "a"',
      '| line_format "{{.a}} {{.b}}" |> "<_> x"',
      '| line_format "{{.a}} {{.b}}" |= ip("10.0.0.1")',
      // A label of the name it would write, read by the query itself.
      '| line_format "{{.a}} {{.b}}" |= "x" | __formatted_line_0="y"',
    ]) {
      expect(formattedLineFilters(stagesOf(pipeline)), pipeline).toBeUndefined();
    }
  });
});

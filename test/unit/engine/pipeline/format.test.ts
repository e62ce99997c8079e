/**
 * line_format / label_format through the Go-template engine (src/engine/template).
 */
import { describe, expect, it } from "vitest";
import type { Matcher, PipelineStage } from "../../../../src/logql/ast";
import type { LogRow } from "../../../../src/engine/types";
import { loadCases, loadGolden, renderGolden, runLogQuery, toNs } from "./golden-support";

const load = async () => {
  const pipeline = await import("../../../../src/engine/pipeline");
  const regex = await import("../../../../src/logql/regex");
  return { compileLogPipeline: pipeline.compileLogPipeline, compileGoRegex: regex.compileGoRegex };
};

const row = (line: string): LogRow => ({ ts: 1769914800123456789n, line, stream: { app: "a" }, metadata: {} });
const logfmt: PipelineStage = { kind: "LogfmtParser", strict: false, keepEmpty: false, params: [] };

describe("line_format and label_format", () => {
  it("line_format renders labels into the line", async () => {
    const { compileLogPipeline } = await load();
    const p = compileLogPipeline([logfmt, { kind: "LineFormat", template: "{{.level}} took {{.d}}" }]);
    expect(p.process(row("level=info d=5ms"))!.line).toBe("info took 5ms");
  });
  it("a missing label renders empty: Loki runs templates with missingkey=zero over a string map", async () => {
    const { compileLogPipeline } = await load();
    const p = compileLogPipeline([{ kind: "LineFormat", template: "[{{.nope}}]" }]);
    expect(p.process(row("x"))!.line).toBe("[]");
  });
  it("label_format templates set parsed labels from a snapshot taken at the stage's first template", async () => {
    const { compileLogPipeline } = await load();
    const p = compileLogPipeline([
      logfmt,
      {
        kind: "LabelFormat",
        ops: [
          { dst: "s", src: "{{.job}}/{{.ok}}", isTemplate: true },
          { dst: "t", src: "{{.s}}", isTemplate: true },
        ],
      },
    ]);
    expect(p.process(row("job=sync ok=true"))!.parsed).toEqual({ job: "sync", ok: "true", s: "sync/true", t: "" });
  });
});

const goldenIds: Record<string, [Matcher[], PipelineStage[]]> = {
  "log-line-format": [
    [
      { name: "app", op: "=", value: "api-gateway" },
      { name: "namespace", op: "=", value: "prod" },
    ],
    [
      { kind: "JsonParser", params: [] },
      { kind: "LineFormat", template: "{{.level}} {{.method}} {{.path}} took {{.latency_ms}}ms" },
    ],
  ],
  "log-line-format-line": [
    [
      { name: "app", op: "=", value: "nginx" },
      { name: "namespace", op: "=", value: "prod" },
    ],
    [{ kind: "LineFormat", template: "{{ __line__ | trunc 20 }}" }],
  ],
  "log-line-filter-after-format": [
    [{ name: "app", op: "=", value: "payments" }],
    [
      { kind: "JsonParser", params: [] },
      { kind: "LineFormat", template: "{{.status}} {{.path}}" },
      { kind: "LineFilter", op: "|=", values: [{ type: "string", value: "503" }] },
    ],
  ],
  "log-label-format-template": [
    [{ name: "app", op: "=", value: "worker" }],
    [
      logfmt,
      { kind: "LabelFormat", ops: [{ dst: "summary", src: "{{.job}}/{{.ok}}", isTemplate: true }] },
      { kind: "Keep", items: [{ name: "summary" }] },
    ],
  ],
};

describe("golden format cases (hand-built trees)", () => {
  for (const [id, [matchers, pipeline]] of Object.entries(goldenIds)) {
    it(id, async () => {
      const { compileGoRegex } = await load();
      const c = loadCases().find((x) => x.id === id)!;
      const p = (k: string) => String(c.params[k] ?? "");
      const ours = runLogQuery(
        {
          matchers,
          pipeline,
          startNs: toNs(p("start")),
          endNs: toNs(p("end")),
          limit: Number(p("limit")),
          direction: p("direction") === "forward" ? "forward" : "backward",
          categorize: false,
        },
        (src) => compileGoRegex(src, { anchored: true }),
      );
      expect(ours).toEqual(renderGolden(loadGolden(id), false));
    });
  }
});

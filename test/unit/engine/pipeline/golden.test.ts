/**
 * The pipeline against real Loki: every pure log query among the compat cases, evaluated over
 * the compat dataset and compared with Loki's recorded answer as a multiset of entries.
 */
import { describe, expect, it } from "vitest";
import type { LabelFilterExpr, Matcher, PipelineStage } from "../../../../src/logql/ast";
import { compileGoRegex } from "../../../../src/logql/regex";
import { parseExpr } from "../../../../src/logql/parser";
import { loadCases, loadGolden, renderGolden, runLogQuery, toNs, type CompatCase } from "./golden-support";

const anchored = (src: string) => compileGoRegex(src, { anchored: true });

function param(c: CompatCase, k: string): string {
  const v = c.params[k];
  return Array.isArray(v) ? v[0]! : (v ?? "");
}

function runCase(c: CompatCase, matchers: Matcher[], pipeline: PipelineStage[]) {
  const categorize = (c.headers["X-Loki-Response-Encoding-Flags"] ?? "").includes("categorize-labels");
  const ours = runLogQuery(
    {
      matchers,
      pipeline,
      startNs: toNs(param(c, "start")),
      endNs: toNs(param(c, "end")),
      limit: Number(param(c, "limit") || "100"),
      direction: param(c, "direction") === "forward" ? "forward" : "backward",
      categorize,
    },
    anchored,
  );
  return { ours, theirs: renderGolden(loadGolden(c.id), categorize) };
}

const logCases = loadCases().filter(
  (c) => c.id.startsWith("log-") && c.compare === "streams" && loadGolden(c.id).status === 200,
);

describe("golden log cases (parsed queries)", () => {
  const results: string[] = [];
  for (const c of logCases) {
    it(c.id, () => {
      const expr = parseExpr(param(c, "query"));
      if (expr.kind !== "LogSelector") expect.fail(`${c.id} is not a log query`);
      const { ours, theirs } = runCase(c, expr.matchers, expr.pipeline);
      results.push(c.id);
      expect(ours).toEqual(theirs);
    });
  }
});

// The same comparison for queries whose trees are written out here, so the pipeline is checked
// against Loki independently of the parser.
const eq = (name: string, value: string): Matcher => ({ name, op: "=", value });
const str = (name: string, op: "=" | "!=" | "=~" | "!~", value: string): LabelFilterExpr => ({
  type: "string",
  name,
  op,
  value,
});
const num = (name: string, op: ">" | ">=" | "<" | "=", value: number): LabelFilterExpr => ({
  type: "number",
  name,
  op,
  value,
  text: String(value),
});
const and = (left: LabelFilterExpr, right: LabelFilterExpr): LabelFilterExpr => ({
  type: "binary",
  op: "and",
  left,
  right,
});
const or = (left: LabelFilterExpr, right: LabelFilterExpr): LabelFilterExpr => ({
  type: "binary",
  op: "or",
  left,
  right,
});
const json: PipelineStage = { kind: "JsonParser", params: [] };
const logfmt: PipelineStage = { kind: "LogfmtParser", strict: false, keepEmpty: false, params: [] };
const lf = (filter: LabelFilterExpr): PipelineStage => ({ kind: "LabelFilter", filter });

const handBuilt: Record<string, [Matcher[], PipelineStage[]]> = {
  "log-sel-eq": [[eq("app", "auth"), eq("namespace", "prod")], []],
  "log-contains": [
    [eq("app", "payments")],
    [{ kind: "LineFilter", op: "|=", values: [{ type: "string", value: "deadlock" }] }],
  ],
  "log-or-filter": [
    [eq("app", "checkout")],
    [
      {
        kind: "LineFilter",
        op: "|=",
        values: [
          { type: "string", value: "refused" },
          { type: "string", value: "invalid token" },
        ],
      },
    ],
  ],
  "log-pattern-filter-neg": [
    [eq("app", "auth"), eq("namespace", "prod")],
    [{ kind: "LineFilter", op: "!>", values: [{ type: "string", value: "<_> ok=true <_>" }] }],
  ],
  "log-ip-filter": [
    [eq("app", "nginx"), eq("namespace", "prod")],
    [{ kind: "LineFilter", op: "|=", values: [{ type: "ip", cidr: "10.0.0.0/16" }] }],
  ],
  "log-ip-filter-neg": [
    [eq("app", "nginx"), eq("namespace", "staging")],
    [{ kind: "LineFilter", op: "!=", values: [{ type: "ip", cidr: "10.0.0.0-10.1.255.255" }] }],
  ],
  "log-json": [[eq("app", "checkout"), eq("namespace", "prod"), eq("cluster", "eu-west-1")], [json]],
  "log-json-filter-num": [
    [eq("app", "payments")],
    [json, lf(and(num("status", ">=", 500), num("latency_ms", ">", 100)))],
  ],
  "log-json-error": [
    [eq("app", "nginx"), eq("namespace", "prod"), eq("cluster", "eu-west-1")],
    [json, lf(str("__error__", "!=", ""))],
  ],
  "log-json-drop-error": [
    [eq("app", "nginx"), eq("namespace", "prod"), eq("cluster", "eu-west-1")],
    [json, { kind: "Drop", items: [{ name: "__error__" }, { name: "__error_details__" }] }],
  ],
  "log-json-params": [
    [eq("app", "payments"), eq("namespace", "prod")],
    [
      {
        kind: "JsonParser",
        params: [
          { label: "lvl", expression: "level" },
          { label: "p", expression: "path" },
        ],
      },
      lf(str("lvl", "=", "warn")),
    ],
  ],
  "log-json-bracket-param": [
    [eq("app", "api-gateway"), eq("namespace", "prod")],
    [{ kind: "JsonParser", params: [{ label: "h", expression: 'http["host"]' }] }, lf(str("h", "!=", ""))],
  ],
  "log-logfmt-filter-collision": [
    [eq("app", "worker")],
    [logfmt, lf(and(str("job", "=", "invoice"), num("attempt", ">", 3)))],
  ],
  "log-logfmt-filter": [
    [eq("app", "worker")],
    [logfmt, lf(and(str("job_extracted", "=", "invoice"), num("attempt", ">", 3)))],
  ],
  "log-logfmt-duration": [
    [eq("app", "auth")],
    [logfmt, lf({ type: "duration", name: "duration", op: ">=", value: 1e9, text: "1s" })],
  ],
  "log-logfmt-bytes": [
    [eq("app", "worker"), eq("namespace", "prod")],
    [logfmt, lf({ type: "bytes", name: "size", op: "<", value: 10000, text: "10KB" })],
  ],
  "log-logfmt-strict": [
    [eq("app", "worker"), eq("namespace", "prod")],
    [{ kind: "LogfmtParser", strict: true, keepEmpty: false, params: [] }, lf(str("level", "=", "error"))],
  ],
  "log-logfmt-keep-empty": [
    [eq("app", "auth"), eq("namespace", "staging")],
    [{ kind: "LogfmtParser", strict: false, keepEmpty: true, params: [] }],
  ],
  "log-or-label-filter": [[eq("app", "auth")], [logfmt, lf(or(str("level", "=", "error"), str("level", "=", "warn")))]],
  "log-regexp": [
    [eq("app", "auth"), eq("namespace", "prod")],
    [{ kind: "RegexpParser", regex: "caller=(?P<file>[a-z]+)\\.go:(?P<line>\\d+)" }, lf(num("line", ">", 390))],
  ],
  "log-pattern": [
    [eq("app", "nginx"), eq("namespace", "prod")],
    [
      { kind: "PatternParser", pattern: '<ip> - - [<ts>] "<method> <uri> <_>" <code> <bytes> <_>' },
      lf(num("code", ">=", 500)),
    ],
  ],
  "log-pattern-ip": [
    [eq("app", "nginx"), eq("namespace", "prod")],
    [{ kind: "PatternParser", pattern: "<ip> <_>" }, lf({ type: "ip", name: "ip", op: "=", cidr: "10.3.0.0/16" })],
  ],
  "log-unpack": [[eq("app", "payments"), eq("namespace", "staging")], [{ kind: "UnpackParser" }]],
  "log-drop-matcher": [
    [eq("app", "auth"), eq("namespace", "prod")],
    [logfmt, { kind: "Drop", items: [{ name: "level", matcher: { name: "level", op: "=", value: "info" } }] }],
  ],
  "log-keep-labels": [
    [eq("app", "payments")],
    [json, { kind: "Keep", items: [{ name: "app" }, { name: "level" }, { name: "status" }] }],
  ],
  "log-label-format-rename": [
    [eq("app", "auth"), eq("namespace", "prod")],
    [
      logfmt,
      { kind: "LabelFormat", ops: [{ dst: "severity", src: "level", isTemplate: false }] },
      { kind: "Keep", items: [{ name: "severity" }, { name: "pod" }] },
    ],
  ],
  "log-decolorize": [
    [eq("app", "worker"), eq("namespace", "staging")],
    [{ kind: "Decolorize" }, logfmt, lf(str("level", "=", "error"))],
  ],
  "log-struct-meta-filter": [[eq("app", "payments"), eq("namespace", "prod")], [lf(str("span_id", "=~", "^0.*"))]],
  "log-struct-meta-absent": [[eq("app", "worker"), eq("namespace", "prod")], [lf(str("tenant", "=", "acme"))]],
  "log-categorize-json": [
    [eq("app", "payments"), eq("namespace", "prod")],
    [json, lf(num("status", ">=", 500))],
  ],
  "log-categorize-meta": [[eq("app", "api-gateway"), eq("namespace", "staging")], []],
  "log-categorize-logfmt": [[eq("app", "worker"), eq("namespace", "prod")], [logfmt]],
};

describe("golden log cases (hand-built trees)", () => {
  for (const [id, [matchers, pipeline]] of Object.entries(handBuilt)) {
    it(id, () => {
      const c = logCases.find((x) => x.id === id);
      expect(c, `case ${id} present`).toBeDefined();
      const { ours, theirs } = runCase(c!, matchers, pipeline);
      expect(ours).toEqual(theirs);
    });
  }
});

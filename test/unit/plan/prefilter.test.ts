/** Label filters' necessary conditions: which filters get one, where the region ends, and the text. */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { LogSelectorExpr } from "../../../src/logql/ast";
import { labelFilterPrefilters } from "../../../src/plan/prefilter";
import { planLogQuery } from "../../../src/plan/logquery";

const pre = (q: string) => labelFilterPrefilters((parseExpr(q) as LogSelectorExpr).pipeline);
/** A backslash or U+FFFD in the line: extracted values may differ from the line's text. */
const MAY_DIFFER = `_msg:~${JSON.stringify("[\\\\\uFFFD]")}`;
const cond = (name: string, v: string, re = v) =>
  `(_msg:~${JSON.stringify(re)} or ${MAY_DIFFER} or ${name}:=${JSON.stringify(v)})`;

describe("labelFilterPrefilters", () => {
  it("offers line-or-escape-or-field for a non-empty string equality after a parser", () => {
    expect(pre('{app="a"} | json | level="error"')).toEqual([cond("level", "error")]);
    expect(pre('{app="a"} |= "x" | logfmt | level="error" | drop pod')).toEqual([cond("level", "error")]);
    expect(pre('{app="a"} | regexp "(?P<level>\\\\w+)" | level="warn"')).toEqual([cond("level", "warn")]);
    expect(pre('{app="a"} | pattern "<level> <_>" | level="warn"')).toEqual([cond("level", "warn")]);
  });

  it("escapes regex metacharacters in the line condition and quotes the field value", () => {
    expect(pre('{app="a"} | json | path="/api/v1.0 (x)"')).toEqual([
      cond("path", "/api/v1.0 (x)", "/api/v1\\.0 \\(x\\)"),
    ]);
    expect(pre('{app="a"} | json | x="\\" | delete _msg"')).toEqual([
      cond("x", '" | delete _msg', '" \\| delete _msg'),
    ]);
  });

  it("combines and/or: every conjunct, or a disjunction when both sides offer one", () => {
    expect(pre('{app="a"} | json | level="error" and status>=500')).toEqual([cond("level", "error")]);
    expect(pre('{app="a"} | json | level="error", method="GET"')).toEqual([
      `${cond("level", "error")} ${cond("method", "GET")}`,
    ]);
    expect(pre('{app="a"} | json | level="error" or level="fatal"')).toEqual([
      `(${cond("level", "error")} or ${cond("level", "fatal")})`,
    ]);
    expect(pre('{app="a"} | json | level="error" or status>=500')).toEqual([]);
    expect(pre('{app="a"} | json | (level="error" or level="fatal") and method="GET"')).toEqual([
      `(${cond("level", "error")} or ${cond("level", "fatal")}) ${cond("method", "GET")}`,
    ]);
  });

  it("offers nothing for filters an empty, negative, regex, numeric or error-label test could pass without the value", () => {
    for (const f of [
      'level=""',
      'level!="x"',
      'level=~"err.*"',
      "status==500",
      'status="500" or level!="x"',
      '__error__="JSONParserErr"',
    ]) {
      expect(pre(`{app="a"} | json | ${f}`), f).toEqual([]);
    }
  });

  it("ends the region at stages that rewrite the line or labels", () => {
    for (const stage of [
      'line_format "{{.a}}"',
      "label_format level=app",
      "decolorize",
      "unpack",
      'json level="lvl"',
      "logfmt level",
    ]) {
      expect(pre(`{app="a"} | json | ${stage} | level="error"`), stage).toEqual([]);
    }
    // Filters before the end of the region keep theirs.
    expect(pre('{app="a"} | json | level="error" | line_format "{{.a}}" | method="GET"')).toEqual([
      cond("level", "error"),
    ]);
  });
});

describe("planLogQuery with prefilters", () => {
  it("adds them to the origin's filters and keeps the label filter local", () => {
    const plan = planLogQuery(parseExpr('{app="a"} | json | level="error"') as LogSelectorExpr);
    expect(plan.logsql).toBe(`{app="a"} ${cond("level", "error")}`);
    expect(plan.local.map((s) => s.kind)).toEqual(["JsonParser", "LabelFilter"]);
    expect(plan.localKeepsEveryRow).toBe(false);
  });

  it("leaves them out when turned off", () => {
    expect(
      planLogQuery(parseExpr('{app="a"} | json | level="error"') as LogSelectorExpr, { prefilter: false }).logsql,
    ).toBe('{app="a"}');
  });
});

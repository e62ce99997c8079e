/**
 * Loki's json and logfmt expression grammars: the paths they accept, and Loki's exact error for
 * what they refuse (expected texts from Loki's own parsers, pkg/logql/log/jsonexpr and logfmt at
 * 65e30f8, run on the same inputs). And the stage errors Loki answers when it builds a pipeline.
 */
import { describe, expect, it } from "vitest";
import { logfmtExpressionError, parseJsonExpression } from "../../../src/logql/extraction-expr";
import { checkPipelineBuilds } from "../../../src/logql/stage-build";
import { parseExpr } from "../../../src/logql/parser";
import type { LogSelectorExpr } from "../../../src/logql/ast";
import { compileStage } from "../../../src/engine/pipeline/pipeline";
import { Category, LabelsBuilder } from "../../../src/engine/pipeline/labels";

const err = (e: string) => {
  const r = parseJsonExpression(e);
  return r.ok ? undefined : r.error;
};

describe("json expressions", () => {
  it("reads paths as Loki does, spaces and leading brackets included", () => {
    expect(parseJsonExpression('a.b.c[0]["d e"]')).toEqual({ ok: true, steps: ["a", "b", "c", 0, "d e"] });
    expect(parseJsonExpression("a[ 0 ]")).toEqual({ ok: true, steps: ["a", 0] });
    expect(parseJsonExpression("[0].a")).toEqual({ ok: true, steps: [0, "a"] });
    expect(parseJsonExpression('a[ "x" ]')).toEqual({ ok: true, steps: ["a", "x"] });
    // A NUL ends Loki's input.
    expect(parseJsonExpression("a\u0000junk")).toEqual({ ok: true, steps: ["a"] });
  });

  it("refuses with Loki's parser messages", () => {
    const cases: [string, string][] = [
      ["b[", "syntax error: unexpected $end, expecting STRING or INDEX"],
      ["a]", "syntax error: unexpected RSB"],
      ['a"x"', "syntax error: unexpected STRING"],
      ["a 1", "non-integer value: \u0000"],
      ["a[0]b", "syntax error: unexpected FIELD"],
      ["a[1", "syntax error: unexpected $end, expecting STRING or INDEX"],
      ["a[12a]", "syntax error: unexpected $end, expecting STRING or INDEX"],
      ["a[1.2]", "syntax error: unexpected $end, expecting STRING or INDEX"],
      ["a[99999999999999999999]", "syntax error: unexpected $end, expecting STRING or INDEX"],
      ['["a]', "syntax error: unexpected $end, expecting RSB"],
      ["a.[0]", "syntax error: unexpected LSB, expecting FIELD"],
      ["a.", "syntax error: unexpected $end, expecting FIELD"],
      [".a", "syntax error: unexpected DOT, expecting LSB or FIELD"],
      ["]", "syntax error: unexpected RSB, expecting LSB or FIELD"],
      ['"x"', "syntax error: unexpected STRING, expecting LSB or FIELD"],
      ['a[0][1]."x"', "syntax error: unexpected STRING, expecting FIELD"],
      ["a.b-", "unexpected char -"],
      ["a-b", "unexpected char -"],
      ["-a", "syntax error: unexpected $end, expecting LSB or FIELD"],
      ["a.1", "syntax error: unexpected $end, expecting FIELD"],
      ["a\u0001", "unexpected char \u0001"],
      ["é", "syntax error: unexpected $end, expecting LSB or FIELD"],
      ["a é", "unexpected char é"],
      ["", "syntax error: unexpected $end, expecting LSB or FIELD"],
      ["a[-1]", "syntax error: unexpected $end, expecting STRING or INDEX"],
    ];
    for (const [expr, message] of cases) expect(err(expr), expr).toBe(message);
  });
});

describe("logfmt expressions", () => {
  it("accepts a key or quoted keys, and refuses with Loki's messages", () => {
    for (const ok of ["a", '"a"', '"a" "b"', 'a "b"', '"a', 'a "b'])
      expect(logfmtExpressionError(ok), ok).toBeUndefined();
    expect(logfmtExpressionError("")).toBe("syntax error: unexpected $end, expecting STRING or KEY");
    expect(logfmtExpressionError("a b")).toBe("syntax error: unexpected KEY");
    expect(logfmtExpressionError('"a" b')).toBe("syntax error: unexpected KEY");
    expect(logfmtExpressionError("-")).toBe("syntax error: unexpected $end, expecting STRING or KEY");
    expect(logfmtExpressionError("a-")).toBe("unexpected char -");
    expect(logfmtExpressionError("a.b")).toBe("unexpected char .");
  });
});

describe("stage builds", () => {
  const stages = (q: string) => (parseExpr(q) as LogSelectorExpr).pipeline;
  const buildError = (q: string): string | undefined => {
    try {
      checkPipelineBuilds(stages(q));
      return undefined;
    } catch (e) {
      return (e as Error).message;
    }
  };

  it("names the stage Loki could not build", () => {
    expect(buildError('{a="b"} | json a="b["')).toBe(
      `parse error : stage '| json a="b["' : cannot parse expression [b[]: syntax error: unexpected $end, expecting STRING or INDEX`,
    );
    expect(buildError('{a="b"} | logfmt --strict a="b c"')).toBe(
      `parse error : stage '| logfmt --strict a="b c"' : cannot parse expression [b c]: syntax error: unexpected KEY`,
    );
    expect(buildError('{a="b"} |= ip("999.1.1.1")')).toBe(
      `parse error : stage '|= ip("999.1.1.1")' : ip: invalid pattern: "999.1.1.1"`,
    );
    expect(buildError('{a="b"} |~ ip("1.1.1.1")')).toBe(
      `parse error : stage '|~ ip("1.1.1.1")' : ip: invalid operation`,
    );
    expect(buildError('{a="b"} | addr = ip("10.0.0.0/33")')).toBe(
      `parse error : stage '| addr=ip("10.0.0.0/33")' : ip: invalid pattern: "10.0.0.0/33"`,
    );
    expect(buildError('{a="b"} | json a="b.c[0]" | addr = ip("10.0.0.0/8") |= ip("::1")')).toBeUndefined();
  });

  it("names a stretch of line filters as Loki's one combined stage, built from the last back", () => {
    expect(buildError('{a="b"} |= "x" | json |~ "(a{1000}){1000}" | x="1" |= ip("b")')).toBe(
      'parse error : stage \'|= "x" |~ "(a{1000}){1000}"\' : error parsing regexp: invalid repeat count: `{1000}`',
    );
    expect(buildError('{a="b"} |= ip("b") != ip("c")')).toBe(
      `parse error : stage '|= ip("b") != ip("c")' : ip: invalid pattern: "c"`,
    );
    // Line filters run first: their error wins over an earlier json stage's.
    expect(buildError('{a="b"} | json a="[" |= ip("b")')).toBe(
      `parse error : stage '|= ip("b")' : ip: invalid pattern: "b"`,
    );
    expect(buildError('{a="b"} | json a="[" | x="1" |= ip("b")')).toContain("cannot parse expression [[]");
  });

  it("keeps a bad ip() inside and/or, matching nothing, as Loki does", () => {
    const q = '{a="b"} | addr = ip("999.1.1.1") or level="x"';
    expect(buildError(q)).toBeUndefined();
    const stage = compileStage(stages(q)[0]!);
    const b = new LabelsBuilder();
    const run = (labels: Record<string, string>) => {
      b.reset({});
      for (const [k, v] of Object.entries(labels)) b.set(Category.Parsed, k, v);
      return stage(0n, "line", b);
    };
    expect(run({ addr: "999.1.1.1" })).toBeNull();
    expect(run({ addr: "1.2.3.4", level: "x" })).toBe("line");
  });
});

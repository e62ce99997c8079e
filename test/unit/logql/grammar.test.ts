/**
 * Focused checks of each LogQL construct. Expected trees and prints are reasoned from Loki's
 * documented behaviour (LogQL docs, /work/shared/reference/loki-api.md), not captured from this
 * parser.
 */
import { describe, expect, it } from "vitest";
import type { LabelFilterExpr, LogSelectorExpr, RangeAggregationExpr } from "../../../src/logql/ast";
import { LogQLParseError } from "../../../src/logql/errors";
import { parseExpr, parseMatchers, parseUncached } from "../../../src/logql/parser";
import { printExpr } from "../../../src/logql/printer";

const NS = 1e9;
const canon = (q: string): string => printExpr(parseUncached(q));
const errorOf = (q: string): string => {
  try {
    parseUncached(q);
  } catch (e) {
    expect(e).toBeInstanceOf(LogQLParseError);
    return (e as Error).message;
  }
  throw new Error(`expected ${q} to be rejected`);
};
const log = (q: string): LogSelectorExpr => parseUncached(q) as LogSelectorExpr;
const filterOf = (q: string): LabelFilterExpr => {
  const s = log(q).pipeline.at(-1)!;
  if (s.kind !== "LabelFilter") throw new Error("not a label filter");
  return s.filter;
};

describe("stream selectors and strings", () => {
  it("parses matchers of all four kinds", () => {
    expect(log('{app="foo", env!="dev", ns=~"a|b", pod!~"x.*"}').matchers).toEqual([
      { name: "app", op: "=", value: "foo" },
      { name: "env", op: "!=", value: "dev" },
      { name: "ns", op: "=~", value: "a|b" },
      { name: "pod", op: "!~", value: "x.*" },
    ]);
  });

  it("reads Go escapes in double quotes and raw backtick strings", () => {
    expect(log('{a="tab\\there \\u00e9 \\x41 \\101 \\"q\\""}').matchers[0]!.value).toBe('tab\there é A A "q"');
    expect(log("{a=`C:\\dir\\n`}").matchers[0]!.value).toBe("C:\\dir\\n");
  });

  it("reprints strings with Go quoting", () => {
    expect(canon('{a="x\\ty", b=`q"b\\`}')).toBe('{a="x\\ty", b="q\\"b\\\\"}');
  });

  it("rejects bad escapes, single quotes and unterminated strings at the literal", () => {
    expect(errorOf('{a="\\q"}')).toBe("parse error at line 1, col 4: invalid char escape");
    expect(errorOf("{a='bb'}")).toBe("parse error at line 1, col 4: invalid char literal");
    expect(errorOf('{a="b}')).toBe("parse error at line 1, col 4: literal not terminated");
  });

  it("lets function names be label names when no parenthesis follows", () => {
    expect(log('{rate="x", sum="y", bytes="z"}').matchers.map((m) => m.name)).toEqual(["rate", "sum", "bytes"]);
  });

  it("skips comments", () => {
    expect(canon('{a="b"} # all errors\n |= "x" /* block */ // line')).toBe('{a="b"} |= "x"');
  });

  it("needs a matcher that cannot match the empty value", () => {
    const msg =
      'parse error : queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will';
    expect(errorOf('{a=~".*"}')).toBe(msg);
    expect(errorOf('{a=""}')).toBe(msg);
    expect(errorOf("{}")).toBe(msg);
    // != "" cannot match a missing label, so it selects streams.
    expect(log('{a!=""}').matchers).toHaveLength(1);
    expect(log('{a=~".+"}').matchers).toHaveLength(1);
  });
});

describe("line filters", () => {
  it("keeps a positive `or` chain as one filter", () => {
    expect(log('{a="b"} |= "x" or "y" or ip("10.0.0.0/8")').pipeline).toEqual([
      {
        kind: "LineFilter",
        op: "|=",
        values: [
          { type: "string", value: "x" },
          { type: "string", value: "y" },
          { type: "ip", cidr: "10.0.0.0/8" },
        ],
      },
    ]);
  });

  it("splits a negative `or` chain: the line must match none", () => {
    const p = log('{a="b"} != "x" or "y"').pipeline;
    expect(p).toEqual([
      { kind: "LineFilter", op: "!=", values: [{ type: "string", value: "x" }] },
      { kind: "LineFilter", op: "!=", values: [{ type: "string", value: "y" }] },
    ]);
    expect(canon('{a="b"} !> "<_> x" or "y"')).toBe('{a="b"} !> "<_> x" !> "y"');
  });

  it("accepts pattern filters", () => {
    expect(canon('{a="b"} |> "<_> foo <_>"')).toBe('{a="b"} |> "<_> foo <_>"');
  });

  it("expects a string or ip() after a filter operator", () => {
    expect(errorOf('{a="b"} |= 5')).toBe(
      "parse error at line 1, col 12: syntax error: unexpected NUMBER, expecting STRING or ip",
    );
  });
});

describe("parsers and formatting stages", () => {
  it("reads json extraction parameters with escaped quotes", () => {
    expect(log('{a="b"} | json h="http[\\"host\\"]", ua').pipeline).toEqual([
      { kind: "JsonParser", params: [{ label: "h", expression: 'http["host"]' }, { label: "ua" }] },
    ]);
    expect(canon('{a="b"} | json h="http[\\"host\\"]", ua')).toBe('{a="b"} | json h="http[\\"host\\"]",ua="ua"');
  });

  it("reads logfmt flags", () => {
    expect(log('{a="b"} | logfmt --keep-empty --strict').pipeline[0]).toEqual({
      kind: "LogfmtParser",
      strict: true,
      keepEmpty: true,
      params: [],
    });
    expect(canon('{a="b"} | LOGFMT --keep-empty --strict')).toBe('{a="b"} | logfmt --strict --keep-empty');
  });

  it("parses regexp, pattern, unpack, decolorize, drop and keep", () => {
    expect(
      canon('{a="b"} | regexp "(?P<x>\\\\d+)" | pattern "<ip> <_>" | unpack | decolorize | drop x, y="1" | keep z'),
    ).toBe('{a="b"} | regexp "(?P<x>\\\\d+)" | pattern "<ip> <_>" | unpack | decolorize | drop x,y="1" | keep z');
  });

  it("distinguishes label_format renames from templates", () => {
    expect(log('{a="b"} | label_format dst=src, t="{{.x}}"').pipeline[0]).toEqual({
      kind: "LabelFormat",
      ops: [
        { dst: "dst", src: "src", isTemplate: false },
        { dst: "t", src: "{{.x}}", isTemplate: true },
      ],
    });
  });

  it("validates regexp and pattern parsers at parse time", () => {
    expect(errorOf('{a="b"} | regexp "no groups"')).toBe(
      "parse error : invalid regexp parser: at least one named capture must be supplied",
    );
    expect(errorOf('{a="b"} | regexp "(?P<x>"')).toMatch(
      /^parse error : invalid regexp parser: error parsing regexp: missing closing \)/,
    );
  });
});

describe("label filters", () => {
  const s = (name: string, value: string): LabelFilterExpr => ({ type: "string", name, op: "=", value });

  it("binds `and` tighter than `or`", () => {
    const f = filterOf('{a="b"} | x="1" and y="2" or z="3"');
    expect(f).toEqual({
      type: "binary",
      op: "or",
      left: { type: "binary", op: "and", sep: "and", left: s("x", "1"), right: s("y", "2") },
      right: s("z", "3"),
    });
    const g = filterOf('{a="b"} | x="1" or y="2" and z="3"');
    expect(g).toEqual({
      type: "binary",
      op: "or",
      left: s("x", "1"),
      right: { type: "binary", op: "and", sep: "and", left: s("y", "2"), right: s("z", "3") },
    });
  });

  it("lets a comma or juxtaposition take everything to its right", () => {
    expect(filterOf('{a="b"} | x="1", y="2" or z="3"')).toEqual({
      type: "binary",
      op: "and",
      sep: ",",
      left: s("x", "1"),
      right: { type: "binary", op: "or", left: s("y", "2"), right: s("z", "3") },
    });
    expect(canon('{a="b"} | x="1" y="2"')).toBe('{a="b"} | ( x="1" , y="2" )');
  });

  it("reads numbers, durations and byte sizes, printing them the Go way", () => {
    expect(filterOf('{a="b"} | n = 4.50')).toEqual({ type: "number", name: "n", op: "==", value: 4.5, text: "4.50" });
    expect(filterOf('{a="b"} | d > 1h30m')).toEqual({
      type: "duration",
      name: "d",
      op: ">",
      value: 5400 * NS,
      text: "1h30m",
    });
    expect(filterOf('{a="b"} | s <= 1.5KiB')).toEqual({
      type: "bytes",
      name: "s",
      op: "<=",
      value: 1536,
      text: "1.5KiB",
    });
    expect(canon('{a="b"} | n = 4.50 | d > 1h30m | s <= 20MB | m > -1')).toBe(
      '{a="b"} | n==4.5 | d>1h30m0s | s<=20MB | m>-1',
    );
  });

  it("accepts ip() only with = and !=", () => {
    expect(filterOf('{a="b"} | addr != ip("10.0.0.0/8")')).toEqual({
      type: "ip",
      name: "addr",
      op: "!=",
      cidr: "10.0.0.0/8",
    });
    expect(errorOf('{a="b"} | addr > ip("1.2.3.4")')).toBe(
      "parse error at line 1, col 18: syntax error: unexpected ip",
    );
  });

  it("prints regexes Loki keeps as regexes in backticks", () => {
    expect(canon('{a="b"} | x=~"abc"')).toBe('{a="b"} | x=~"abc"');
    expect(canon('{a="b"} | x=~"ab.*"')).toBe('{a="b"} | x=~"ab.*"');
    expect(canon('{a="b"} | x=~"[0-9]+"')).toBe('{a="b"} | x=~`[0-9]+`');
  });
});

describe("range aggregations", () => {
  it("reads range, offset and unwrap with conversion and post filters", () => {
    const e = parseUncached(
      'sum_over_time({a="b"} | json | unwrap duration(lat) | __error__="" [5m] offset 1h)',
    ) as RangeAggregationExpr;
    expect(e.range.range).toBe(300 * NS);
    expect(e.range.offset).toBe(3600 * NS);
    expect(e.range.unwrap).toEqual({
      label: "lat",
      conversion: "duration",
      postFilters: [{ type: "string", name: "__error__", op: "=", value: "" }],
    });
    expect(printExpr(e)).toBe('sum_over_time({a="b"} | json | unwrap duration(lat) | __error__=""[5m] offset 1h0m0s)');
  });

  it("accepts the range before the pipeline and parenthesised selectors", () => {
    expect(canon('count_over_time({a="b"}[5m] |= "x")')).toBe('count_over_time({a="b"} |= "x"[5m])');
    expect(canon('rate(({a="b"} |= "x")[1m])')).toBe('rate({a="b"} |= "x"[1m])');
  });

  it("prints ranges as Prometheus durations and drops a zero offset", () => {
    expect(canon('rate({a="b"}[90m] offset 0s)')).toBe('rate({a="b"}[1h30m])');
    expect(canon('rate({a="b"}[14d])')).toBe('rate({a="b"}[2w])');
  });

  it("enforces unwrap, grouping and parameter rules", () => {
    expect(errorOf('sum_over_time({a="b"}[5m])')).toBe(
      "parse error : invalid aggregation sum_over_time without unwrap",
    );
    expect(errorOf('count_over_time({a="b"} | unwrap x [5m])')).toBe(
      "parse error : invalid aggregation count_over_time with unwrap",
    );
    expect(errorOf('rate({a="b"}[5m]) by (x)')).toBe("parse error : grouping not allowed for rate aggregation");
    expect(errorOf('quantile_over_time({a="b"} | unwrap x [5m])')).toBe(
      "parse error : parameter required for operation quantile_over_time",
    );
    expect(canon('quantile_over_time(0.90, {a="b"} | unwrap x [5m]) by (pod)')).toBe(
      'quantile_over_time(0.9,{a="b"} | unwrap x[5m]) by (pod)',
    );
  });

  it("reports bad ranges the way Loki's lexer does (line 0)", () => {
    // Prometheus durations are integer components: after "1" the unit runs up to the next digit.
    expect(errorOf('rate({a="b"}[1.5h])')).toBe('parse error at line 0, col 13: unknown unit "." in duration "1.5h"');
    expect(errorOf('rate({a="b"}[5])')).toBe('parse error at line 0, col 13: not a valid duration string: "5"');
    expect(errorOf('rate({a="b"}[5m')).toBe("parse error at line 0, col 13: missing closing ']' in duration");
  });
});

describe("vector aggregations", () => {
  it("accepts grouping before or after", () => {
    expect(canon('sum(rate({a="b"}[1m])) by (x, y)')).toBe('sum by (x,y)(rate({a="b"}[1m]))');
    expect(canon('sum without (x) (rate({a="b"}[1m]))')).toBe('sum without (x)(rate({a="b"}[1m]))');
    // by () is the same as no grouping.
    expect(canon('sum by () (rate({a="b"}[1m]))')).toBe('sum(rate({a="b"}[1m]))');
  });

  it("checks topk's parameter", () => {
    expect(canon('topk(3, rate({a="b"}[1m]))')).toBe('topk(3,rate({a="b"}[1m]))');
    expect(errorOf('topk(0, rate({a="b"}[1m]))')).toBe(
      "parse error : invalid parameter (must be greater than 0) topk(0",
    );
    expect(errorOf('topk(1.5, rate({a="b"}[1m]))')).toBe("parse error : invalid parameter topk(1.5,");
    expect(errorOf('sum(2, rate({a="b"}[1m]))')).toBe("parse error : unsupported parameter for operation sum(2,");
  });

  it("refuses a log query as the argument", () => {
    expect(errorOf('sum({a="b"})')).toBe("parse error at line 1, col 12: syntax error: unexpected )");
  });

  it("treats reserved words case-insensitively", () => {
    expect(canon('SUM BY (x) (RATE({a="b"}[1m]))')).toBe('sum by (x)(rate({a="b"}[1m]))');
  });
});

describe("binary operations", () => {
  it("folds scalar arithmetic with Loki's precedence and associativity", () => {
    expect(canon("1 + 2 * 3")).toBe("7");
    expect(canon("10 - 4 - 3")).toBe("3");
    expect(canon("2 ^ 3 ^ 2")).toBe("512");
    expect(canon("1 - -1")).toBe("2");
    expect(canon("1 > bool 2")).toBe("0");
    expect(canon("1 / 0")).toBe("NaN");
  });

  it("nests vector operations by precedence", () => {
    const r = 'rate({a="b"}[1m])';
    expect(canon(`${r} + ${r} * ${r}`)).toBe(`(${r} + (${r} * ${r}))`);
    expect(canon(`${r} / ${r} / ${r}`)).toBe(`((${r} / ${r}) / ${r})`);
    expect(canon(`${r} ^ ${r} ^ ${r}`)).toBe(`(${r} ^ (${r} ^ ${r}))`);
    expect(canon(`${r} > 1 or ${r} and ${r}`)).toBe(`((${r} > 1) or (${r} and ${r}))`);
  });

  it("reads bool, on/ignoring and group modifiers", () => {
    const r = 'rate({a="b"}[1m])';
    const e = parseUncached(`${r} > bool on (x) group_left (y, z) ${r}`);
    expect(e).toMatchObject({
      kind: "BinaryOp",
      op: ">",
      returnBool: true,
      matching: { on: true, labels: ["x"], card: "many-to-one", include: ["y", "z"] },
    });
    expect(printExpr(e)).toBe(`(${r} > bool on (x) group_left (y,z) ${r})`);
    expect(canon(`${r} * ignoring (x) ${r}`)).toBe(`(${r} * ignoring (x)  ${r})`);
  });

  it("rejects literals in set operations and log queries as operands", () => {
    expect(errorOf('rate({a="b"}[1m]) or 1')).toBe(
      "parse error : unexpected literal for right leg of logical/set binary operation (or): 1.000000",
    );
    expect(errorOf('{a="b"} + 1')).toBe(
      "parse error : unexpected type for left leg of binary operation (+): *syntax.MatchersExpr",
    );
  });

  it("prints vector() with six decimals", () => {
    expect(canon("vector(1) + vector(2.5)")).toBe("(vector(1.000000) + vector(2.500000))");
  });
});

describe("label_replace", () => {
  it("parses and validates its regex", () => {
    expect(canon('label_replace(rate({a="b"}[1m]), "dst", "$1", "src", "(.*)")')).toBe(
      'label_replace(rate({a="b"}[1m]),"dst","$1","src","(.*)")',
    );
    expect(errorOf('label_replace(rate({a="b"}[1m]), "d", "$1", "s", "(")')).toBe(
      "parse error : invalid regex in label_replace: error parsing regexp: missing closing ): `^(?:()$`",
    );
  });
});

describe("syntax error positions", () => {
  it("reports Loki's token names and expectations", () => {
    expect(errorOf('{a="b"')).toBe("parse error at line 1, col 7: syntax error: unexpected $end, expecting } or ,");
    expect(errorOf("")).toBe("parse error : syntax error: unexpected $end");
    expect(errorOf('sum(rate({a="b"}[1m])) by (rate(')).toBe(
      "parse error at line 1, col 28: syntax error: unexpected RATE, expecting IDENTIFIER or )",
    );
    expect(errorOf('{a="b"}\n| json\n| x >')).toBe("parse error at line 3, col 6: syntax error: unexpected $end");
  });

  it("limits the input size", () => {
    const q = `{a="${"x".repeat(128 * 1024)}"}`;
    expect(errorOf(q)).toBe(`parse error : input size too long (${q.length} > 131072)`);
  });
});

describe("entry points", () => {
  it("parseMatchers accepts only a bare selector", () => {
    expect(parseMatchers('{a="b"}')).toEqual([{ name: "a", op: "=", value: "b" }]);
    expect(() => parseMatchers('{a="b"} |= "x"')).toThrow("only label matchers are supported");
    expect(() => parseMatchers('rate({a="b"}[1m])')).toThrow("only label matchers are supported");
  });

  it("caches parsed trees and freezes them", () => {
    const q = 'sum by (x) (rate({cache_test="1"}[1m]))';
    const a = parseExpr(q);
    expect(parseExpr(q)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(() => parseExpr("sum(")).toThrow(LogQLParseError);
    expect(() => parseExpr("sum(")).toThrow(LogQLParseError);
  });
});

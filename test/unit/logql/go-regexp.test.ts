/**
 * compileGoRegexp: Go's regexp semantics on both engines, the choice between them, and the cases
 * where the former JS translation disagreed with Go (answers reasoned from Go's regexp and
 * regexp/syntax documentation and its compiler: `x*` of a nullable `x` compiles as `(x+)?`, and a
 * loop that comes back to the same instruction at the same position is cut).
 */
import { describe, expect, it } from "vitest";
import { backtrackingIsBounded } from "../../../src/logql/backtrack-bound";
import { compileGoRegexp, type GoRegexp, namedGroup } from "../../../src/logql/go-regexp";
import { GoRegexError } from "../../../src/logql/regex";

const ENGINES = ["backtracking", "linear"] as const;

describe.each(ENGINES)("Go semantics on the %s engine", (engine) => {
  const re = (src: string, anchored = false): GoRegexp => compileGoRegexp(src, { anchored, engine });
  const find = (src: string, s: string) => re(src).exec(s)?.groups ?? null;

  it("treats an astral character as one character for `.`, classes and ranges", () => {
    expect(find("a.b", "a😀b")).toEqual(["a😀b"]);
    expect(find("^.$", "😀")).toEqual(["😀"]);
    expect(find("^[^a]$", "😀")).toEqual(["😀"]);
    expect(find("[😀-😂]+", "x😁😂y")).toEqual(["😁😂"]);
    expect(re("^..$", true).test("😀")).toBe(false);
  });

  it("keeps Go's ASCII-only \\s, \\w, \\b and Unicode case folding", () => {
    expect(re("\\s").test("\u00a0")).toBe(false);
    expect(re("\\s").test("\v")).toBe(false);
    expect(re("^\\w+$").test("héllo")).toBe(false);
    expect(re("\\bé").test(" é")).toBe(false);
    expect(re("(?i)k").test("\u212a")).toBe(true);
    expect(re("(?i)S").test("\u017f")).toBe(true);
  });

  it("matches $ only at the very end unless (?m), and . across newlines only with (?s)", () => {
    expect(re("a$").test("a\n")).toBe(false);
    expect(re("(?m)a$").test("a\n")).toBe(true);
    expect(re("a.b").test("a\nb")).toBe(false);
    expect(re("(?s)a.b").test("a\nb")).toBe(true);
    expect(re("^$").test("😀")).toBe(false);
    expect(re("(?m)^$").test("😀\n")).toBe(true);
    expect(re("(?m)^$").test("😀")).toBe(false);
  });

  it("finds \\B only between two word or two non-word characters, never inside a character", () => {
    expect(re("\\B").test("x😀y")).toBe(false);
    expect(re("\\B").exec("a😀")?.index).toBe(3);
  });

  it("swaps greediness under (?U) and applies a repetition after \\Q...\\E to the last character", () => {
    expect(find("(?U)a+(b+)", "aaabbb")).toEqual(["aaab", "b"]);
    expect(find("(?U)a+?", "aaa")).toEqual(["aaa"]);
    expect(re("\\Qa.b\\E+", true).test("a.bbb")).toBe(true);
    expect(re("\\Qa.b\\E+", true).test("a.ba.b")).toBe(false);
  });

  it("prefers the leftmost-first alternative, not the longest", () => {
    expect(find("(a|ab)(c|bcd)(d*)", "abcd")).toEqual(["abcd", "a", "bcd", ""]);
    expect(find("a|ab", "ab")).toEqual(["a"]);
  });

  it("reports a group that took no part as undefined, and named groups by number", () => {
    const r = re("(?P<first>a)|(?P<second>b)");
    const m = r.exec("b")!;
    expect(m.groups).toEqual(["b", undefined, "b"]);
    expect(namedGroup(r, m, "first")).toBe("");
    expect(namedGroup(r, m, "second")).toBe("b");
    expect(namedGroup(r, m, "absent")).toBe("");
  });

  it("searches from a position with the text before it as context", () => {
    const r = re("\\bb");
    expect(r.exec("ab b", 1)?.index).toBe(3);
    expect(re("^b").exec("bb", 1)).toBeNull();
  });

  it("anchors the whole input, with Go's leftmost-first captures", () => {
    expect(re("a|ab", true).exec("ab")?.groups).toEqual(["ab"]);
    expect(re("(a+)(a*)", true).exec("aaa")?.groups).toEqual(["aaa", "aaa", ""]);
    expect(re("b", true).test("abc")).toBe(false);
  });
});

describe("where the former JS translation disagreed with Go", () => {
  const linear = (src: string) => compileGoRegexp(src, { engine: "linear" });
  it("(|a)+ on `a` matches empty: the second iteration would revisit the loop at the same position", () => {
    expect(linear("(|a)+").exec("a")?.groups).toEqual(["", ""]);
    expect(compileGoRegexp("(|a)+").exec("a")?.groups).toEqual(["", ""]);
  });
  it("(a*)*b on `b` sets group 1 to the empty match: Go compiles the star as (x+)?", () => {
    expect(linear("(a*)*b").exec("b")?.groups).toEqual(["b", ""]);
    expect(compileGoRegexp("(a*)*b").exec("b")?.groups).toEqual(["b", ""]);
  });
  it("(a?){1,2} on `a` ends with the empty second iteration, which JS rejects", () => {
    expect(compileGoRegexp("(a?){1,2}").exec("a")?.groups).toEqual(["a", ""]);
    expect(compileGoRegexp("(|a){1,2}").exec("a")?.groups).toEqual(["", ""]);
  });
});

describe("case folding beyond ASCII runs on re2js, which folds by Unicode's orbits as Go does", () => {
  it.each([
    ["(?i)σ", "ς"],
    ["(?i)ß", "ẞ"],
    ["(?i)ǆ", "ǅ"],
    ["(?i)\\p{Lu}", "a"],
    ["(?i)[[:upper:]]", "a"],
  ])("%s matches %s", (src, s) => {
    const re = compileGoRegexp(src);
    expect(re.engine).toBe("linear");
    expect(re.test(s)).toBe(true);
  });
  it("keeps ASCII-only case folding on V8", () => {
    expect(compileGoRegexp("(?i)error").engine).toBe("backtracking");
    expect(compileGoRegexp("(?-i)é").engine).toBe("backtracking");
  });
});

describe("engine choice", () => {
  it.each([
    "error",
    "error|warn|fatal",
    "(?i)timeout",
    "status=(5..)",
    "(GET|POST|PUT) /api/v[12]",
    "(?P<ip>\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3})",
    "level=(?P<level>\\w+)",
    "foo.*",
    "^/api/.+",
    "",
    "^$",
  ])("runs the bounded pattern %s on V8", (src) => {
    expect(backtrackingIsBounded(src)).toBe(true);
    expect(compileGoRegexp(src).engine).toBe("backtracking");
  });

  it.each([
    "(a+)+$",
    "(a|a)*b",
    "(a*)*b",
    "(.*a){20}",
    "(x+x+)+y",
    "^(\\w+\\s?)*$",
    ".*foo",
    ".*foo.*",
    "\\d+ms",
    "(?P<x>\\S+) (?P<y>\\S+)",
    "(a|aa){1,1000}",
    "a{1000}b",
    "(a?){1,2}",
    "\\x41+",
    "\\Qa\\E",
  ])("runs %s on re2js", (src) => {
    expect(backtrackingIsBounded(src)).toBe(false);
    expect(compileGoRegexp(src).engine).toBe("linear");
  });

  it("still rejects invalid patterns with Go's message", () => {
    expect(() => compileGoRegexp("(a")).toThrow(new GoRegexError("error parsing regexp: missing closing ): `(a`"));
    expect(() => compileGoRegexp("a**")).toThrow(GoRegexError);
  });
});

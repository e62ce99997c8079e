import { describe, expect, it } from "vitest";
import { compileGoRegexp } from "../../../../src/logql/go-regexp";
import { expandTemplate } from "../../../../src/engine/metric/go-regex";
import { labelReplacer } from "../../../../src/engine/metric/label-replace";
import type { LabelReplaceExpr } from "../../../../src/logql/ast";
import { lit } from "./support/ast";

const replace = (dst: string, replacement: string, src: string, regex: string) =>
  labelReplacer({ kind: "LabelReplace", expr: lit(0), dst, replacement, src, regex } as LabelReplaceExpr);

describe("label_replace", () => {
  it("sets dst from the anchored match (range-label-replace's shape)", () => {
    const f = replace("short", "$1", "pod", "auth-([a-f0-9]+)-.*");
    expect(f([{ labels: { pod: "auth-3f2a-1" }, v: 1 }])).toEqual([
      { labels: { pod: "auth-3f2a-1", short: "3f2a" }, v: 1 },
    ]);
  });
  it("leaves the series unchanged when the regex does not match the whole value", () => {
    const f = replace("x", "y", "app", "zzz");
    expect(f([{ labels: { app: "zzz1" }, v: 2 }])).toEqual([{ labels: { app: "zzz1" }, v: 2 }]);
  });
  it("removes dst when the expansion is empty, and matches a missing src as the empty string", () => {
    expect(replace("app", "", "app", ".*")([{ labels: { app: "a", b: "c" }, v: 1 }])).toEqual([
      { labels: { b: "c" }, v: 1 },
    ]);
    expect(replace("new", "was-empty", "missing", "")([{ labels: { b: "c" }, v: 1 }])).toEqual([
      { labels: { b: "c", new: "was-empty" }, v: 1 },
    ]);
  });
  it("supports named groups", () => {
    const f = replace("dst", "${name}-$name", "src", "(?P<name>[a-z]+)\\d+");
    expect(f([{ labels: { src: "abc12" }, v: 1 }])[0]!.labels.dst).toBe("abc-abc");
  });
});

describe.each(["backtracking", "linear"] as const)("Go template expansion (%s engine)", (engine) => {
  const re = compileGoRegexp("(a)(b)?(?P<tail>c)", { anchored: true, engine });
  const m = re.exec("ac")!;
  it("expands $n, ${n}, $$ and unmatched groups", () => {
    expect(expandTemplate("$1|${3}|$2|$$|$tail", re, m)).toBe("a|c||$|c");
  });
  it("takes the longest word after $ as the name, as Go does", () => {
    // `$1x` refers to a group named "1x", which does not exist → "".
    expect(expandTemplate("$1x", re, m)).toBe("");
    expect(expandTemplate("${1}x", re, m)).toBe("ax");
    expect(expandTemplate("$9", re, m)).toBe("");
    expect(expandTemplate("cost: $ 5 and $-", re, m)).toBe("cost: $ 5 and $-");
  });
  it("expands a group whose name starts with a digit", () => {
    const digits = compileGoRegexp("(?P<1x>a)b", { anchored: true, engine });
    expect(expandTemplate("[$1x]", digits, digits.exec("ab")!)).toBe("[a]");
  });
  it("honours leading flags and anchors", () => {
    expect(compileGoRegexp("(?i)abc", { anchored: true, engine }).test("ABC")).toBe(true);
    expect(compileGoRegexp("b", { anchored: true, engine }).test("abc")).toBe(false);
  });
});

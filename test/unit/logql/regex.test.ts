/** Go RE2 semantics on JS RegExp; expectations follow Go's regexp/syntax documentation. */
import { describe, expect, it } from "vitest";
import { compileGoRegex, goRegexError, goRegexGroupNames } from "../../../src/logql/regex";

const m = (re: string, s: string, anchored = false): boolean => compileGoRegex(re, { anchored }).test(s);

describe("compileGoRegex", () => {
  it("supports Go named groups", () => {
    const re = compileGoRegex("(?P<code>\\d+) (?<unit>ms)");
    expect(re.exec("took 250 ms")?.groups).toEqual({ code: "250", unit: "ms" });
    expect(goRegexGroupNames("(?P<a>x)(y)(?P<b>z)")).toEqual(["a", "b"]);
  });

  it("applies flags globally and in scoped groups", () => {
    expect(m("(?i)error", "ERROR")).toBe(true);
    expect(m("a(?i:b)c", "aBc")).toBe(true);
    expect(m("a(?i:b)c", "ABC")).toBe(false);
    expect(m("(?s)a.b", "a\nb")).toBe(true);
    expect(m("a.b", "a\nb")).toBe(false);
    expect(m("a.b", "a\rb")).toBe(true);
    expect(m("(?m)^b$", "a\nb\nc")).toBe(true);
    expect(m("^b$", "a\nb\nc")).toBe(false);
  });

  it("keeps Go's ASCII \\s and end-of-text $", () => {
    expect(m("\\s", "\v")).toBe(false);
    expect(m("\\s", "\u00a0")).toBe(false);
    expect(m("\\s", "\t")).toBe(true);
    expect(m("a$", "a\n")).toBe(false);
    expect(m("a\\z", "a")).toBe(true);
    expect(m("\\Aa", "ba")).toBe(false);
  });

  it("understands \\Q...\\E, POSIX classes, Unicode classes and octal escapes", () => {
    expect(m("\\Q.*\\E", "a.*b")).toBe(true);
    expect(m("\\Q.*\\E", "ab")).toBe(false);
    expect(m("^[[:alpha:]]+$", "abcXYZ")).toBe(true);
    expect(m("^[[:^digit:]]+$", "abc")).toBe(true);
    expect(m("^[[:^digit:]]+$", "a1")).toBe(false);
    expect(m("^\\pL+$", "héllo")).toBe(true);
    expect(m("\\p{Greek}", "λ")).toBe(true);
    expect(m("\\101", "A")).toBe(true);
    expect(m("\\x{1F600}", "😀")).toBe(true);
  });

  it("anchors when asked", () => {
    expect(m("b", "abc", true)).toBe(false);
    expect(m("a|abc", "abc", true)).toBe(true);
    expect(m(".+", "", true)).toBe(false);
  });

  it("rejects invalid expressions with Go's messages", () => {
    expect(goRegexError("\\q")).toBe("error parsing regexp: invalid escape sequence: `\\q`");
    expect(goRegexError("(a")).toBe("error parsing regexp: missing closing ): `(a`");
    expect(goRegexError("a)")).toBe("error parsing regexp: unexpected ): `a)`");
    expect(goRegexError("x[a")).toBe("error parsing regexp: missing closing ]: `[a`");
    expect(goRegexError("[z-a]")).toBe("error parsing regexp: invalid character class range: `z-a`");
    expect(goRegexError("a**")).toBe("error parsing regexp: invalid nested repetition operator: `**`");
    expect(goRegexError("*a")).toBe("error parsing regexp: missing argument to repetition operator: `*`");
    expect(goRegexError("a{1001}")).toBe("error parsing regexp: invalid repeat count: `{1001}`");
    expect(goRegexError("\\1")).toBe("error parsing regexp: invalid escape sequence: `\\1`");
    expect(goRegexError("a{,5}")).toBeUndefined(); // not a repeat in Go: literal text
    expect(m("a{,5}", "a{,5}")).toBe(true);
  });

  it("repeats only the last character of \\Q...\\E, as Go's parser does", () => {
    expect(m("\\Qa.b\\E+", "a.bbb", true)).toBe(true);
    expect(m("\\Qa.b\\E+", "a.ba.b", true)).toBe(false);
    expect(goRegexError("\\Qab\\E**")).toBe("error parsing regexp: invalid nested repetition operator: `**`");
  });

  it("never matches an anchor or \\B between the halves of a surrogate pair", () => {
    expect(m("^$", "😀")).toBe(false);
    expect(m("\\z", "😀")).toBe(true);
    expect(compileGoRegex("\\A\\z").exec("😀")).toBeNull();
    expect(compileGoRegex("(?m)$").exec("😀")?.index).toBe(2);
    expect(compileGoRegex("(?m)^").exec("x😀")?.index).toBe(0);
    expect(m("(?m)^$", "😀")).toBe(false);
    expect(m("\\B", "x😀y")).toBe(false);
    expect(compileGoRegex("\\B").exec("a😀")?.index).toBe(3);
  });
});

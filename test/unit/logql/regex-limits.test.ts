/**
 * Go's regexp/syntax limits beyond a single repeat count: nested counted repetitions may not make
 * more than 1000 copies, and a pattern may not compile to more than Go's program budget. Expected
 * messages are Go's own (go1.26 `regexp.Compile`); before these checks the patterns reached re2js,
 * which threw its own exception, or the origin, which refused them.
 */
import { describe, expect, it } from "vitest";
import { compileGoRegexp } from "../../../src/logql/go-regexp";
import { goRegexError } from "../../../src/logql/regex";

describe("Go's regexp limits", () => {
  it("refuses nested repetitions past 1000 copies, naming the outer operator as Go does", () => {
    expect(goRegexError("(a{1000}){1000}")).toBe("error parsing regexp: invalid repeat count: `{1000}`");
    expect(goRegexError("(?:a{1000}){1000}")).toBe("error parsing regexp: invalid repeat count: `{1000}`");
    expect(goRegexError("(a{100}){11}")).toBe("error parsing regexp: invalid repeat count: `{11}`");
    expect(goRegexError("(a{1000}){2}")).toBe("error parsing regexp: invalid repeat count: `{2}`");
    expect(goRegexError("(a{999}b{999}){3}")).toBe("error parsing regexp: invalid repeat count: `{3}`");
    expect(goRegexError("(((a{100}){100}){100})")).toBe("error parsing regexp: invalid repeat count: `{100}`");
    expect(goRegexError("(a{30}){34}")).toBe("error parsing regexp: invalid repeat count: `{34}`");
    expect(goRegexError("(a{2,}){501}")).toBe("error parsing regexp: invalid repeat count: `{501}`");
    expect(goRegexError("(a{100}|b{2}){11}")).toBe("error parsing regexp: invalid repeat count: `{11}`");
  });

  it("accepts what Go accepts at the edge", () => {
    for (const ok of [
      "a{1000}",
      "(a{30}){33}",
      "((a{10}){10}){10}",
      "((((a{2}){2}){2}){2}){2}",
      "((a*){10}){10}",
      "(a{100}|b{2}){10}",
      "(a{2,}){500}",
      "(a{0}){1000}",
      "(a{1000}){1}",
    ]) {
      expect(goRegexError(ok), ok).toBeUndefined();
    }
  });

  it("refuses a program larger than Go's budget with `expression too large` and the whole pattern", () => {
    const big = `(?:${"a".repeat(3356)}){1000}`;
    expect(goRegexError(big)).toBe(`error parsing regexp: expression too large: \`${big}\``);
    const captured = `(${"a".repeat(3356)}){1000}`;
    expect(goRegexError(captured)).toBe(`error parsing regexp: expression too large: \`${captured}\``);
    const many = "(a{1000})".repeat(3400);
    expect(goRegexError(many)).toBe(`error parsing regexp: expression too large: \`${many}\``);
    expect(goRegexError(`(?:${"a".repeat(3355)}){1000}`)).toBeUndefined();
    expect(goRegexError(`(${"a".repeat(3350)}){1000}`)).toBeUndefined();
  });

  it("throws Go's message from compileGoRegexp for every engine, never re2js' exception", () => {
    for (const engine of ["backtracking", "linear"] as const) {
      expect(() => compileGoRegexp("(a{1000}){1000}", { engine, anchored: true })).toThrow(
        "error parsing regexp: invalid repeat count: `{1000}`",
      );
    }
  });
});

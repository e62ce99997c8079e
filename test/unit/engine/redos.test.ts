/**
 * Catastrophic-backtracking patterns over long adversarial inputs, in every place the Worker runs a
 * regex itself. Go's RE2 is linear in the input, so each must answer well within a couple of
 * seconds; a backtracking engine takes minutes to centuries on these inputs.
 */
import { describe, expect, it } from "vitest";
import { labelReplacer } from "../../../src/engine/metric/label-replace";
import { compileLogPipeline } from "../../../src/engine/pipeline";
import { countMatches, regexReplace } from "../../../src/engine/template/regex-funcs";
import type { LogRow } from "../../../src/engine/types";
import type { LabelReplaceExpr, LogSelectorExpr } from "../../../src/logql/ast";
import { compileGoRegexp } from "../../../src/logql/go-regexp";
import { parseExpr } from "../../../src/logql/parser";
import { matcherMatchesEmpty } from "../../../src/logql/validate";

const KB = 1024;
/** Generous: linear matching takes milliseconds to a few hundred; backtracking would not finish. */
const BOUND_MS = 2000;

/** Each pattern with an input of over 100 KB that it does not match (the worst case for backtracking). */
const CASES: Array<{ re: string; input: string }> = [
  { re: "(a+)+$", input: `${"a".repeat(100 * KB)}!` },
  { re: "(a|a)*b", input: "a".repeat(100 * KB) },
  { re: "(a*)*b", input: "a".repeat(100 * KB) },
  { re: "(.*a){20}", input: "a".repeat(19) + "b".repeat(100 * KB) },
  { re: "(x+x+)+y", input: "x".repeat(100 * KB) },
  { re: "^(\\w+\\s?)*$", input: `${"ab ".repeat(34 * KB)}!` },
  { re: "(a|aa)+$", input: `${"a".repeat(100 * KB)}!` },
  { re: ".*.*=.*;", input: "x=".repeat(50 * KB) },
];

const timed = <T>(run: () => T): { value: T; ms: number } => {
  const start = performance.now();
  const value = run();
  return { value, ms: performance.now() - start };
};

const row = (line: string): LogRow => ({ ts: 1n, line, stream: { app: "redos" }, metadata: {} });
const pipeline = (query: string) => compileLogPipeline((parseExpr(query) as LogSelectorExpr).pipeline);
/** A query string literal holding a Go regex (backticks: no escaping needed). */
const raw = (re: string) => `\`${re}\``;

describe.each(CASES)("$re over $input.length characters", ({ re, input }) => {
  it("runs on the linear engine", () => {
    expect(compileGoRegexp(re).engine).toBe("linear");
  });

  it("line filter |~ drops the line and !~ keeps it", () => {
    const keep = timed(() => pipeline(`{app="redos"} |~ ${raw(re)}`).process(row(input)));
    expect(keep.value).toBeNull();
    expect(keep.ms).toBeLessThan(BOUND_MS);
    const drop = timed(() => pipeline(`{app="redos"} !~ ${raw(re)}`).process(row(input)));
    expect(drop.value?.line).toBe(input);
    expect(drop.ms).toBeLessThan(BOUND_MS);
  });

  it("label filter =~ on a parsed label of the same text", () => {
    const r = timed(() => pipeline(`{app="redos"} | regexp "(?P<v>(?s:.+))" | v =~ ${raw(re)}`).process(row(input)));
    expect(r.value).toBeNull();
    expect(r.ms).toBeLessThan(BOUND_MS);
  });

  it("regexp stage: no match extracts no label and sets no error", () => {
    const r = timed(() => pipeline(`{app="redos"} | regexp ${raw(`(?P<x>${re})`)}`).process(row(input)));
    expect(r.value?.line).toBe(input);
    expect(r.value?.parsed).toEqual({});
    expect(r.ms).toBeLessThan(BOUND_MS);
  });

  it("label_replace leaves the series unchanged", () => {
    const replace = labelReplacer({
      kind: "LabelReplace",
      dst: "d",
      replacement: "$1",
      src: "s",
      regex: re,
    } as LabelReplaceExpr);
    const r = timed(() => replace([{ labels: { s: input }, v: 1 }]));
    expect(r.value).toEqual([{ labels: { s: input }, v: 1 }]);
    expect(r.ms).toBeLessThan(BOUND_MS);
  });

  it("template regexReplaceAll and count", () => {
    const replaced = timed(() => regexReplace(re, input, "X", true));
    expect(replaced.value).toBe(input);
    expect(replaced.ms).toBeLessThan(BOUND_MS);
    const counted = timed(() => countMatches(re, input));
    expect(counted.value).toBe(0);
    expect(counted.ms).toBeLessThan(BOUND_MS);
  });
});

describe("matches that succeed late stay linear too", () => {
  it("regexReplaceAll over a 100 KB line of many matches", () => {
    const line = "ab ".repeat(34 * KB);
    const r = timed(() => regexReplace("(\\w+\\s?)+", line, "<$1>", true));
    expect(r.value).toBe("<ab >");
    expect(r.ms).toBeLessThan(BOUND_MS);
  });

  it("the empty-match check of a stream matcher", () => {
    const r = timed(() => matcherMatchesEmpty({ name: "a", op: "=~", value: "(a*)*(b|)" }));
    expect(r.value).toBe(true);
    expect(r.ms).toBeLessThan(BOUND_MS);
  });
});

describe("decolorize", () => {
  // The pattern as a JS literal, as it ran before on V8: the reference for ordinary lines.
  const V8_ANSI =
    /[\u001b\u009b][[\]()#;?]*(?:(?:(?:[a-zA-Z\d]*(?:;[a-zA-Z\d]*)*)?\u0007)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PRZcf-ntqry=><~]))/g;
  const decolorize = (line: string) => pipeline(`{app="redos"} | decolorize`).process(row(line))?.line;

  it.each([
    "\u001b[31mERROR\u001b[0m level=error msg=x",
    "\u001b[1;32;40mok\u001b[m tail",
    "\u001b]0;title\u0007text",
    "\u009b2Jclear",
    "plain \u001b",
    "\u001b[38;5;196m😀\u001b[0m",
  ])("strips %j as before", (line) => {
    expect(decolorize(line)).toBe(line.replace(V8_ANSI, ""));
  });

  it("stays linear after an escape followed by 100 KB of `;`", () => {
    const unterminated = `\u001b${";".repeat(100 * KB)}`;
    const r = timed(() => decolorize(unterminated));
    expect(r.value).toBe(unterminated);
    expect(r.ms).toBeLessThan(BOUND_MS);
    const terminated = timed(() => decolorize(`x\u001b${";".repeat(100 * KB)}my`));
    expect(terminated.value).toBe("xy");
    expect(terminated.ms).toBeLessThan(BOUND_MS);
  });
});

describe("number parsing of long digit runs (label filters, unwrap, template bytes)", () => {
  const digits = "1".repeat(100 * KB);
  it.each([
    [`${digits}x`, "n > 1", "LabelFilterErr"],
    [`0x${"a".repeat(100 * KB)}x`, "n > 1", "LabelFilterErr"],
    [`${"0".repeat(100 * KB)}.5`, "n < 1", undefined],
  ])("numeric label filter on 100 KB value %#", (value, filter, err) => {
    const r = timed(() => pipeline(`{app="redos"} | regexp "n=(?P<n>(?s:.+))" | ${filter}`).process(row(`n=${value}`)));
    expect(r.value?.parsed.__error__).toBe(err);
    expect(r.ms).toBeLessThan(BOUND_MS);
  });
  it("the bytes template function", () => {
    const line = `${"1".repeat(100 * KB)}..KB`;
    const t = timed(() => pipeline(`{app="redos"} | label_format x="{{ __line__ | bytes }}"`).process(row(line)));
    expect(t.value?.parsed.__error__).toBe("TemplateFormatErr");
    expect(t.ms).toBeLessThan(BOUND_MS);
  });
});

describe("patterns left on V8 stay fast on adversarial input", () => {
  // Bounded patterns and tail repetitions: the classifier's promise, measured.
  const line = `${"a".repeat(100 * KB)}\n${"1.".repeat(50 * KB)}`;
  it.each([
    "(a|aa|aaa|aaaa)(a|aa|aaa|aaaa)b",
    "\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}x",
    "a{1,30}b",
    "aaaa.*",
    "(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)c",
  ])("%s", (re) => {
    expect(compileGoRegexp(re).engine).toBe("backtracking");
    const r = timed(() => pipeline(`{app="redos"} | regexp ${raw(`(?P<x>${re})`)}`).process(row(line)));
    expect(r.value?.line).toBe(line);
    expect(r.ms).toBeLessThan(BOUND_MS);
    const anchored = timed(() =>
      pipeline(`{app="redos"} | regexp "(?P<v>(?s:.+))" | v =~ ${raw(re)}`).process(row(line)),
    );
    expect(anchored.value).toBeNull();
    expect(anchored.ms).toBeLessThan(BOUND_MS);
  });
});

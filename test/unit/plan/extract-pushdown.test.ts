/**
 * The regexes the `| regexp` / `| pattern` push-down hands VictoriaLogs' `extract_regexp`, run here
 * on re2js (RE2 with Go's syntax and leftmost-first submatches, as Go's regexp) against the Worker's
 * own matchers over generated lines: each label's value, and whether Loki set it, must agree.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileGoRegexp, namedGroup } from "../../../src/logql/go-regexp";
import { compilePattern, matchPattern } from "../../../src/engine/pipeline/pattern";
import { patternExtraction, regexpExtraction, type Extraction } from "../../../src/plan/extract-pushdown";

/** VictoriaLogs' reading of a line: every group's text, "" where it took no part or nothing matched. */
function extract(regex: string, line: string): (field: string) => string {
  const re = compileGoRegexp(regex, { engine: "linear" });
  const m = re.exec(line);
  return (field) => (m === null ? "" : namedGroup(re, m, field));
}

/** A `format` template (`<a><b>`) or a `field:*` / `_msg:*` filter read over one extraction. */
const template = (t: string, field: (f: string) => string) => t.replace(/<([^>]+)>/g, (_, f: string) => field(f));
function holds(filter: string, field: (f: string) => string, line: string): boolean {
  return filter
    .replace(/^\(|\)$/g, "")
    .split(" or ")
    .some((term) => {
      const name = /^"?(\w+)"?:\*$/.exec(term)![1]!;
      return (name === "_msg" ? line : field(name)) !== "";
    });
}

function expectSameReading(ex: Extraction, names: readonly string[], loki: Map<string, string>, line: string) {
  const field = extract(ex.regex, line);
  for (const n of names) {
    const where = ex.setWhere.get(n)!;
    expect(holds(where, field, line), `${ex.regex} on ${JSON.stringify(line)}: ${n} set`).toBe(loki.has(n));
    expect(template(ex.parsed.get(n)!, field), `${ex.regex} on ${JSON.stringify(line)}: ${n}`).toBe(loki.get(n) ?? "");
  }
}

describe("pattern as an RE2 regex", () => {
  const ALPHABET = ["a", "b", " ", "-", '"', "ab", "a ", "é", "\n"];
  const literal = fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 3 }).map((p) => p.join(""));
  const capture = fc.constantFrom("<_>", "<c0>", "<c1>", "<c2>", "<c3>");
  // Literal and capture alternate; names are made unique afterwards.
  const pattern = fc
    .tuple(fc.boolean(), fc.array(fc.tuple(capture, literal), { minLength: 1, maxLength: 4 }), fc.boolean(), literal)
    .map(([lead, pairs, trailing, first]) => {
      let k = 0;
      const body = pairs.map(([c, l]) => `${c === "<_>" ? c : `<n${k++}>`}${l}`).join("");
      const text = `${lead ? first : ""}${body}`;
      return trailing ? text : text.replace(/(<[^>]+>)?[^<>]*$/, (m, c: string | undefined) => c ?? m);
    })
    .filter((p) => {
      try {
        return compilePattern(p, true).names.length > 0;
      } catch {
        return false;
      }
    });
  const line = fc.array(fc.constantFrom(...ALPHABET, "x", "ü"), { maxLength: 12 }).map((p) => p.join(""));

  it("finds what Loki's matcher finds, and tells where it set each capture", () => {
    fc.assert(
      fc.property(pattern, fc.array(line, { minLength: 1, maxLength: 8 }), (p, lines) => {
        const compiled = compilePattern(p, true);
        const names = compiled.names;
        const ex = patternExtraction(p, names, new Set(names))!;
        for (const l of lines) {
          const values = matchPattern(compiled, l) ?? [];
          const loki = new Map(values.map((v, i) => [names[i]!, v]));
          expectSameReading(ex, names, loki, l);
        }
      }),
      { numRuns: 3000, seed: 2605 },
    );
  });

  it("stops at the last capture a query reads", () => {
    const ex = patternExtraction("<ip> - - [<_>] <method> <path> <_>", ["method"], new Set())!;
    expect(ex.regex).toBe(
      String.raw`\A(?:(?s:.*?) - - \[(?:(?s:.*?)\] (?:(?P<__xf_method>(?s:.*?)) |(?P<__xr_method>(?s:.*)))|)|)`,
    );
  });
});

describe("regexp wrapped to tell where it matched", () => {
  const REGEXES = [
    String.raw`(?P<a>\w+)=(?P<b>\d*)`,
    String.raw`(?:x(?P<a>a+)|(?P<b>b*))`,
    String.raw`^(?P<a>a*)`,
    String.raw`(?P<a>\d*)$`,
    String.raw`(?m)^(?P<a>[ab]?)$`,
    String.raw`\b(?P<a>)`,
    String.raw`(?P<a>a|ab)(?P<b>c|bcd)?`,
    String.raw`(?i)(?P<a>A)(?P<b>.*?)B`,
    String.raw`(?s)(?P<a>.*)\n(?P<b>.+)`,
  ];
  const line = fc
    .array(fc.constantFrom("a", "b", "c", "d", "x", "1", "=", " ", "\n", "A", "B", "é"), { maxLength: 10 })
    .map((p) => p.join(""));

  it("finds the same groups as the pattern alone, and where it matched", () => {
    for (const regex of REGEXES) {
      const names = ["a", "b"].filter((n) => regex.includes(`<${n}>`));
      const ex = regexpExtraction(regex, names, new Set(names))!;
      const re = compileGoRegexp(regex, { engine: "linear" });
      fc.assert(
        fc.property(line, (l) => {
          // Empty lines, where an empty match cannot be told from none, are the guard's.
          if (l === "") return;
          const m = re.exec(l);
          const loki = new Map(m === null ? [] : names.map((n) => [n, namedGroup(re, m, n)]));
          expectSameReading(ex, names, loki, l);
        }),
        { numRuns: 400, seed: 2606 },
      );
      expect(ex.bad).toEqual(["-_msg:*"]);
    }
  });
});

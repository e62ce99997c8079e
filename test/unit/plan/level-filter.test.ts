/** Which `detected_level` filters get an origin condition, and what it admits. Answers are proved against the real origin in test/worker/level-pushdown.test.ts. */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { LogSelectorExpr } from "../../../src/logql/ast";
import { labelFilterPrefilters } from "../../../src/plan/prefilter";
import { detectLevelWith } from "../../../src/engine/derived-fields";

const DERIVED = new Set(["detected_level", "service_name"]);
const pre = (q: string) => labelFilterPrefilters((parseExpr(q) as LogSelectorExpr).pipeline, DERIVED);

describe("detected_level filters' origin condition", () => {
  it("admits the level's spellings in level fields and the line, severity numbers and escapes", () => {
    const [c] = pre('{app="a"} | detected_level="error"');
    expect(c).toContain('level:~"^(?i)(?:error|err)$" or level:="error"');
    expect(c).toContain('log.level:~"^(?i)(?:error|err)$"');
    expect(c).toContain('detected_level:~"^(?i)(?:error|err)$"');
    expect(c).toContain('severity_number:~"^\\\\+?0*(?:1[7-9]|20)$"');
    // Every case of the spelling's core (`err`, which `error` holds), each a substring search.
    expect(c).toContain(
      '(_msg:~"err" or _msg:~"erR" or _msg:~"eRr" or _msg:~"eRR" or _msg:~"Err" or _msg:~"ErR" or _msg:~"ERr" or _msg:~"ERR")',
    );
    // On those lines, a spelling as a whole token (`stderr` holds `err` but is none).
    expect(c).toContain("(i(error) or i(err)))");
    // Escapes only of the spelling's characters (E, e, R, r, O, o), in either case of the hex digits.
    expect(c).toContain(`_msg:~${JSON.stringify("\\\\u(?:0045|004[fF]|0052|0065|006[fF]|0072)")}`);
    expect(c).toContain(`_msg:~${JSON.stringify("[\u0130\u212A]")}`);
  });

  it("admits a value no rule gives only where a level field holds it as written", () => {
    const [c] = pre('{app="a"} | detected_level="custom"');
    expect(c).toContain('level:="custom"');
    expect(c).not.toContain("_msg");
    expect(c).not.toContain("severity_number");
  });

  it("admits a severity number exactly where it gives a kept level", () => {
    // The condition's severity_number terms as a test of a text (the regexes are RE2's and V8's alike).
    const admits = (filter: string) => {
      const c = pre(`{app="a"} | ${filter}`)[0]!;
      const unquote = (q: string) => JSON.parse(`"${q}"`) as string;
      const regexes = [...c.matchAll(/(?<!-)severity_number:~"((?:[^"\\]|\\.)*)"/g)].map(
        (m) => new RegExp(unquote(m[1]!)),
      );
      const otherText = c.includes("(severity_number:* -severity_number:~");
      return (text: string) => regexes.some((r) => r.test(text)) || (otherText && !/^[+-]?[0-9]+$/.test(text));
    };
    const texts = ["0", "-0", "+0", "1", "+4", "004", "-3", "-0001", "-99999999999999999999", "5", "8", "9", "12"];
    texts.push("13", "+0013", "16", "17", "20", "21", "24", "25", "99999999999999999999", "abc", "1.5", "1e3", " 5");
    for (const level of ["trace", "debug", "info", "warn", "error", "fatal"]) {
      const test = admits(`detected_level="${level}"`);
      for (const text of texts) {
        const loki = detectLevelWith({}, { severity_number: text }, () => "from the line");
        expect(test(text), `${level} ${JSON.stringify(text)} (${loki})`).toBe(loki === level);
      }
    }
    const either = admits('detected_level=~"warn|error"');
    expect(["13", "20", "9", "abc"].map(either)).toEqual([true, true, false, false]);
  });

  it("reads `critical` from no severity number", () => {
    expect(pre('{app="a"} | detected_level="critical"')[0]).not.toContain("severity_number");
  });

  it("finds a spelling in the line by the cases of its first four letters, a spelling holding another left out", () => {
    const literals = (q: string) => [...pre(q)[0]!.matchAll(/_msg:~"([A-Za-z]+)"/g)].map((m) => m[1]!);
    // `critical`: crit, in 16 cases.
    expect(literals('{app="a"} | detected_level="critical"')).toHaveLength(16);
    expect(literals('{app="a"} | detected_level="critical"')).toContain("cRiT");
    // `info`, `inf`, `information`: all hold `inf`.
    expect(new Set(literals('{app="a"} | detected_level="info"').map((l) => l.toLowerCase()))).toEqual(
      new Set(["inf"]),
    );
    // `warn`, `wrn`, `warning`: warn and wrn; with `error`, `err`: err.
    expect(new Set(literals('{app="a"} | detected_level=~"warn|error"').map((l) => l.toLowerCase()))).toEqual(
      new Set(["warn", "wrn", "err"]),
    );
  });

  it("offers nothing for a filter `unknown` passes", () => {
    for (const f of [
      'detected_level!="error"',
      'detected_level=~"unknown|error"',
      'detected_level=~".*"',
      'detected_level!~"info"',
    ]) {
      expect(pre(`{app="a"} | ${f}`), f).toEqual([]);
    }
  });

  it("after a parser the same condition: a line's `detected_level` key is `detected_level_extracted` in Loki", () => {
    expect(pre('{app="a"} | json | detected_level="error"')).toEqual(pre('{app="a"} | detected_level="error"'));
    expect(pre('{app="a"} | logfmt | detected_level=~"error|warn"')).toEqual(
      pre('{app="a"} | detected_level=~"error|warn"'),
    );
    expect(pre('{app="a"} | logfmt | detected_level=~"error|warn"')).toHaveLength(1);
  });

  it("combines with `or` when both sides offer one", () => {
    const [c] = pre('{app="a"} | detected_level="error" or detected_level="warn"');
    expect(c).toMatch(/^\(\(.*\) or \(.*\)\)$/);
    expect(pre('{app="a"} | detected_level="error" or detected_level="unknown"')).toEqual([]);
  });

  it("is an ordinary field's condition when levels are not derived", () => {
    const plain = labelFilterPrefilters(
      (parseExpr('{app="a"} | json | detected_level="error"') as LogSelectorExpr).pipeline,
    );
    expect(plain).toEqual([`(_msg:~"error" or _msg:~${JSON.stringify("[\\\\\uFFFD]")} or detected_level:="error")`]);
  });
});

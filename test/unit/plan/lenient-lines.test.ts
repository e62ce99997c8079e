/**
 * LENIENT_NUMBER against the two readers it tells apart: every member value VictoriaLogs' JSON
 * reader (valyala/fastjson, modelled below from its parseValue and parseRawNumber) takes and Loki's
 * scanner (the engine's jsonscan) refuses must be matched by each of its regexes, each run as Go's
 * regexp would (these use no syntax JavaScript reads otherwise).
 */
import { describe, expect, it } from "vitest";
import { objectEach } from "../../../src/engine/pipeline/jsonscan";
import { LENIENT_NUMBER } from "../../../src/plan/lenient-lines";

const NUMBER_CHARS = /[0-9.eE+-]/;
const JSON_SPACE = /[ \t\n\r]/;

/** Where fastjson's value read from `s[i]` ends, or -1 where it fails (a scalar, not `"`/`{`/`[`). */
function fastjsonValueEnd(s: string, i: number): number {
  const rest = s.slice(i);
  if (rest.startsWith("true")) return i + 4;
  if (rest.startsWith("false")) return i + 5;
  if (rest[0] === "t" || rest[0] === "f") return -1;
  if (rest[0] === "n") {
    if (rest.startsWith("null")) return i + 4;
    return rest.slice(0, 3).toLowerCase() === "nan" ? i + 3 : -1;
  }
  let k = 0;
  while (k < rest.length && NUMBER_CHARS.test(rest[k]!)) k++;
  if (k === 0 || (k === 1 && (rest[0] === "-" || rest[0] === "+"))) {
    const word = rest.slice(k, k + 3).toLowerCase();
    return word === "inf" || word === "nan" ? i + k + 3 : -1;
  }
  return i + k;
}

/** Whether fastjson reads `{"a":<ws><value>,"b":1}` (the members around the value are plain). */
function fastjsonReads(ws: string, value: string): boolean {
  const line = `{"a":${ws}${value},"b":1}`;
  const start = line.indexOf(":") + 1 + ws.length;
  let end = fastjsonValueEnd(line, start);
  if (end < 0) return false;
  while (JSON_SPACE.test(line[end] ?? "")) end++;
  return line[end] === ",";
}

const lokiReads = (line: string) => objectEach(line, 0, line.length, () => undefined) === undefined;

const matchesAll = (line: string) => LENIENT_NUMBER.every((re) => new RegExp(re).test(line));

describe("LENIENT_NUMBER", () => {
  const alphabet = [..."01.+-eEnNaAiIftulx"];
  const values: string[] = [...alphabet];
  for (const a of alphabet) for (const b of alphabet) values.push(a + b);
  for (const a of alphabet) for (const b of alphabet) for (const c of alphabet) values.push(a + b + c);
  values.push("null", "true", "false", "NaN", "nan", "Inf", "-Inf", "+inf", "infinity", "1e5e5", "--1");

  it("matches every line VictoriaLogs reads past a value Loki's scanner refuses", () => {
    let lenient = 0;
    for (const ws of ["", " ", "\n\t"])
      for (const value of values) {
        const line = `{"a":${ws}${value},"b":1}`;
        if (!fastjsonReads(ws, value) || lokiReads(line)) continue;
        lenient++;
        expect(matchesAll(line), line).toBe(true);
      }
    // The model finds the known spellings (`+1`, `.5`, `NaN`, `Inf`, `e5`, `E`, …), not none.
    expect(lenient).toBeGreaterThan(500);
    for (const value of ["+1", ".5", "NaN", "Inf", "inf", "nan", "e5", "E", "-e"])
      expect(fastjsonReads("", value) && !lokiReads(`{"a":${value},"b":1}`), value).toBe(value !== "-e");
  });

  it("passes over a colon inside a string value, and plain members", () => {
    for (const line of [
      '{"msg":"error: EOF","b":1}',
      '{"msg":"dial: Invalid","n":null}',
      '{"a": 1, "b": "x", "c": null, "d": true, "e": -2.5e3}',
      '{"url":"http://x.io:8080/a"}',
    ])
      expect(matchesAll(line), line).toBe(false);
  });
});

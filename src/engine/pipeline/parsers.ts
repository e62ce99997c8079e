/**
 * `| regexp`, `| pattern` and `| unpack`: the parsers that are not json or logfmt. None of them
 * overwrites a label an earlier parser extracted from the same line.
 */
import { compileGoRegexp, namedGroup } from "../../logql/go-regexp";
import { goRegexGroupNames } from "../../logql/regex";
import { Category } from "./labels";
import { JSON_PARSER_ERR, jsonStringValue } from "./json";
import { objectEach, unescapeJson } from "./jsonscan";
import { compilePattern, matchPattern } from "./pattern";
import { sanitizeLabelKey } from "./sanitize";
import type { Stage } from "./stage";

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Named groups become labels; a group that did not take part in the match gives "". */
export function regexpParserStage(source: string): Stage {
  const re = compileGoRegexp(source);
  const names = goRegexGroupNames(source);
  if (names.length === 0) throw new Error("at least one named capture must be supplied");
  const seen = new Set<string>();
  for (const n of names) {
    if (!LABEL_NAME.test(n)) throw new Error(`invalid extracted label name '${n}'`);
    if (seen.has(n)) throw new Error(`duplicate extracted label name '${n}'`);
    seen.add(n);
  }
  return (_ts, line, b) => {
    const m = re.exec(line);
    if (m === null) return line;
    for (const name of names) {
      const label = b.parsedName(name);
      // A label an earlier parser extracted from this line keeps its value.
      if (b.extracted.has(label)) continue;
      b.set(Category.Parsed, label, namedGroup(re, m, name));
    }
    return line;
  };
}

export function patternParserStage(text: string): Stage {
  const p = compilePattern(text, true);
  for (const n of p.names) if (!LABEL_NAME.test(n)) throw new Error(`invalid capture label name '${n}'`);
  return (_ts, line, b) => {
    const values = matchPattern(p, line);
    if (values === null) return line;
    for (let i = 0; i < values.length; i++) {
      const name = b.parsedName(p.names[i]!);
      if (b.extracted.has(name)) continue;
      b.set(Category.Parsed, name, values[i]!);
    }
    return line;
  };
}

const PACKED_ENTRY_KEY = "_entry";
const NOT_AN_OBJECT = "expecting json object(6), but it is not";

/**
 * A JSON object of strings as written by Promtail's `pack`: `_entry` becomes the line and the
 * other string fields labels — but only when `_entry` is present.
 */
export function unpackParserStage(): Stage {
  return (_ts, line, b) => {
    if (line.length === 0) return line;
    if (line[0] !== "{") {
      b.err = JSON_PARSER_ERR;
      b.errDetails = NOT_AN_OBJECT;
      return line;
    }
    let entry: string | undefined;
    const pending: string[] = [];
    const err = objectEach(line, 0, line.length, (key, value) => {
      if (value.type !== "string") return undefined;
      if (key === PACKED_ENTRY_KEY) {
        const text = unescapeJson(line.slice(value.start, value.end));
        if (text === undefined) return "Encountered an invalid escape sequence in a string";
        entry = text;
        return undefined;
      }
      const field = b.parsedName(key);
      // Skipped when an earlier parser extracted it; the object's own repeated keys are all kept
      // for the flush below, where the last one wins.
      if (b.extracted.has(field)) return undefined;
      pending.push(sanitizeLabelKey(field), jsonStringValue(line, value));
      return undefined;
    });
    if (err !== undefined) {
      b.err = JSON_PARSER_ERR;
      b.errDetails = err;
      return line;
    }
    if (entry === undefined) return line;
    for (let i = 0; i < pending.length; i += 2) b.set(Category.Parsed, pending[i]!, pending[i + 1]!);
    return entry;
  };
}

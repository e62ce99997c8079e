/**
 * `| json` (every scalar field, nested objects flattened with `_`, arrays and nulls ignored; of a
 * label already extracted from the line, by an earlier stage or an earlier key, the first value
 * stays) and `| json a="path", ...` (chosen values by path, set even over an extracted label).
 * Numbers keep their text as written (`35.0`).
 */
import type { ExtractionParam } from "../../logql/ast";
import { Category } from "./labels";
import { arrayEach, objectEach, unescapeJson, type RawValue } from "./jsonscan";
import { sanitizeLabelKey } from "./sanitize";
import type { Stage } from "./stage";
import { parseJsonExpression, type JsonPathStep } from "../../logql/extraction-expr";

export const JSON_PARSER_ERR = "JSONParserErr";

/** A JSON string value as Loki keeps it: bad escapes give "", replacement characters are dropped. */
export function jsonStringValue(s: string, v: RawValue): string {
  const raw = s.slice(v.start, v.end);
  const text = unescapeJson(raw);
  if (text === undefined) return "";
  return text.includes("\ufffd") ? text.replaceAll("\ufffd", "") : text;
}

function scalarText(s: string, v: RawValue): string {
  if (v.type === "string") return jsonStringValue(s, v);
  if (v.type === "boolean") return s.charCodeAt(v.start) === 0x74 ? "true" : "false";
  return s.slice(v.start, v.end);
}

export function jsonParserStage(): Stage {
  return (_ts, line, b) => {
    const walk = (prefix: string, start: number, end: number): string | undefined =>
      objectEach(line, start, end, (key, value) => {
        if (value.type === "object") {
          const next = prefix === "" ? sanitizeLabelKey(key) : prefix + "_" + sanitizeLabelKey(key);
          return walk(next, value.start, value.end);
        }
        if (value.type !== "string" && value.type !== "number" && value.type !== "boolean") return undefined;
        const name = b.parsedName(prefix === "" ? sanitizeLabelKey(key) : prefix + "_" + sanitizeLabelKey(key));
        // The first value of a label within the line wins: a key the line repeats, or one an
        // earlier parser extracted, is skipped.
        if (b.extracted.has(name)) return undefined;
        b.set(Category.Parsed, name, scalarText(line, value));
        return undefined;
      });
    const err = walk("", 0, line.length);
    if (err !== undefined) {
      b.err = JSON_PARSER_ERR;
      b.errDetails = err;
    }
    return line;
  };
}

/** A json path as Loki reads it; the pipeline's construction has already refused a bad one. */
export function parseJsonPath(expr: string): JsonPathStep[] {
  const parsed = parseJsonExpression(expr);
  if (!parsed.ok) throw new Error(`cannot parse expression [${expr}]: ${parsed.error}`);
  return parsed.steps;
}

/** The raw value at `path`, following the first matching key at each level. */
function lookup(line: string, path: JsonPathStep[]): RawValue | undefined {
  let start = 0;
  let end = line.length;
  let current: RawValue | undefined;
  for (const step of path) {
    const hit: { value?: RawValue } = {};
    if (typeof step === "number") {
      arrayEach(line, start, end, (index, value) => {
        if (index !== step) return false;
        hit.value = value;
        return true;
      });
    } else {
      objectEach(line, start, end, (key, value) => {
        if (key !== step) return undefined;
        hit.value = value;
        return "found";
      });
    }
    current = hit.value;
    if (current === undefined) return undefined;
    start = current.type === "string" ? current.start - 1 : current.start;
    end = current.type === "string" ? current.end + 1 : current.end;
  }
  return current;
}

export function jsonExpressionStage(params: ExtractionParam[]): Stage {
  const ids = params.map((p) => p.label);
  const paths = params.map((p) => parseJsonPath(p.expression ?? p.label));
  return (_ts, line, b) => {
    if (line.length === 0) return line;
    const first = line[0];
    if (first !== '"' && first !== "{" && first !== "[") {
      b.err = JSON_PARSER_ERR;
      return line;
    }
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      const v = lookup(line, paths[k]!);
      if (v === undefined) {
        // Loki gives every requested label a value, except when it names a stream label.
        if (b.get(id) === undefined) b.set(Category.Parsed, id, "");
        continue;
      }
      const name = b.parsedName(id);
      let text: string;
      if (v.type === "null") text = "";
      else if (v.type === "string") text = jsonStringValue(line, v);
      else text = line.slice(v.start, v.end);
      b.set(Category.Parsed, name, text);
    }
    return line;
  };
}

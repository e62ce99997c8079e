/**
 * `| logfmt` with Loki's decoder: keys run to `=` or whitespace (control bytes count as
 * whitespace), a bare key has an empty value, quoted values take Go escapes. Non-strict parsing
 * skips what it cannot read; `--strict` stops there and reports LogfmtParserErr.
 */
import type { ExtractionParam } from "../../logql/ast";
import { Category, DUPLICATE_SUFFIX, type LabelsBuilder } from "./labels";
import { EXTRACT_ALL } from "./parser-hints";
import { sanitizeLabelKey } from "./sanitize";
import type { Stage } from "./stage";

export const LOGFMT_PARSER_ERR = "LogfmtParserErr";

/** Scans one line; `key`/`value` describe the last pair, `err` the first syntax error. */
export class LogfmtDecoder {
  private line = "";
  private pos = 0;
  key: string | undefined;
  value = "";
  err: string | undefined;

  reset(line: string): void {
    this.line = line;
    this.pos = 0;
    this.err = undefined;
  }

  eol(): boolean {
    return this.pos >= this.line.length;
  }

  private syntaxError(msg: string): void {
    this.err = `logfmt syntax error at pos ${this.byteOffset(this.pos) + 1} : ${msg}`;
  }

  /** Go reports byte positions. */
  private byteOffset(pos: number): number {
    let bytes = 0;
    for (let i = 0; i < pos && i < this.line.length; i++) {
      const c = this.line.charCodeAt(i);
      if (c < 0x80) bytes += 1;
      else if (c < 0x800) bytes += 2;
      else if (c >= 0xd800 && c <= 0xdbff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    }
    return bytes;
  }

  private unexpected(c: string): void {
    this.syntaxError(`unexpected ${c === '"' ? "'\"'" : c === "=" ? "'='" : `'${c}'`}`);
  }

  private skipValue(): false {
    const line = this.line;
    while (this.pos < line.length && line.charCodeAt(this.pos) > 0x20) this.pos++;
    return false;
  }

  /** Advances to the next pair. False on end of line or on a pair that could not be read. */
  scan(): boolean {
    this.key = undefined;
    this.value = "";
    const line = this.line;
    const n = line.length;
    while (this.pos < n && line.charCodeAt(this.pos) <= 0x20) this.pos++;
    if (this.pos >= n) return false;

    const start = this.pos;
    for (; this.pos < n; this.pos++) {
      const c = line.charCodeAt(this.pos);
      if (c === 0x3d) {
        if (this.pos > start) this.key = line.slice(start, this.pos);
        if (this.key === undefined) {
          this.unexpected("=");
          return this.skipValue();
        }
        if (this.key.includes("\ufffd")) {
          this.syntaxError("invalid key");
          return this.skipValue();
        }
        return this.scanValue();
      }
      if (c === 0x22) {
        this.unexpected('"');
        return this.skipValue();
      }
      if (c <= 0x20) {
        this.key = line.slice(start, this.pos);
        if (this.key.includes("\ufffd")) {
          this.syntaxError("invalid key");
          return false;
        }
        return true;
      }
    }
    this.key = line.slice(start, n);
    if (this.key.includes("\ufffd")) {
      this.syntaxError("invalid key");
      return false;
    }
    return true;
  }

  private scanValue(): boolean {
    const line = this.line;
    const n = line.length;
    this.pos++;
    if (this.pos >= n) return true;
    const first = line.charCodeAt(this.pos);
    if (first <= 0x20) return true;
    if (first === 0x22) return this.scanQuoted();
    const start = this.pos;
    for (; this.pos < n; this.pos++) {
      const c = line.charCodeAt(this.pos);
      if (c === 0x3d || c === 0x22) {
        this.unexpected(c === 0x3d ? "=" : '"');
        return this.skipValue();
      }
      if (c <= 0x20) {
        this.value = line.slice(start, this.pos);
        return true;
      }
    }
    this.value = line.slice(start, n);
    return true;
  }

  private scanQuoted(): boolean {
    const line = this.line;
    const n = line.length;
    const start = this.pos;
    let hasEsc = false;
    let esc = false;
    for (let p = start + 1; p < n; p++) {
      const c = line.charCodeAt(p);
      if (esc) esc = false;
      else if (c === 0x5c) {
        hasEsc = true;
        esc = true;
      } else if (c === 0x22) {
        this.pos = p + 1;
        if (!hasEsc) {
          this.value = line.slice(start + 1, p);
          return true;
        }
        const v = unquoteGo(line.slice(start + 1, p));
        if (v === undefined) {
          this.syntaxError("invalid quoted value");
          return false;
        }
        this.value = v;
        return true;
      }
    }
    this.pos = n;
    this.syntaxError("unterminated quoted value");
    return false;
  }
}

/** The body of a Go/JSON-style quoted string with escapes resolved, or undefined when invalid. */
function unquoteGo(body: string): string | undefined {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const e = body[++i];
    switch (e) {
      case '"':
      case "\\":
      case "/":
      case "'":
        out += e;
        break;
      case "b":
        out += "\b";
        break;
      case "f":
        out += "\f";
        break;
      case "n":
        out += "\n";
        break;
      case "r":
        out += "\r";
        break;
      case "t":
        out += "\t";
        break;
      case "u": {
        const hex = body.slice(i + 1, i + 5);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
        out += String.fromCharCode(parseInt(hex, 16));
        i += 4;
        break;
      }
      default:
        return undefined;
    }
  }
  return out;
}

/**
 * Visits every `key=value` pair of `line` (keys sanitised to label names, values with invalid UTF-8
 * blanked, as Loki does) until `visit` answers false, then records Loki's error when `--strict`
 * parsing failed before that. `visit` is created once per stage, not per line.
 */
function scanPairs(
  dec: LogfmtDecoder,
  line: string,
  strict: boolean,
  b: LabelsBuilder,
  visit: (b: LabelsBuilder, key: string, value: string) => boolean | void,
): void {
  dec.reset(line);
  while (!dec.eol()) {
    if (!dec.scan()) {
      if (strict) break;
      continue;
    }
    const rawKey = dec.key;
    if (rawKey === undefined) continue;
    const key = sanitizeLabelKey(rawKey);
    if (key.length === 0) continue;
    const value = dec.value;
    if (visit(b, key, value.includes("\ufffd") ? "" : value) === false) break;
  }
  if (strict && dec.err !== undefined) {
    b.err = LOGFMT_PARSER_ERR;
    b.errDetails = dec.err;
  }
}

/**
 * `| logfmt`: every pair; a key already extracted from the line — repeated by the line, or set by
 * an earlier parser, even to "" — keeps its first value (an empty value skipped without
 * `--keep-empty` sets nothing).
 */
export function logfmtParserStage(strict: boolean, keepEmpty: boolean): Stage {
  const dec = new LogfmtDecoder();
  const visit = (b: LabelsBuilder, key: string, value: string) => {
    const name = b.parsedName(key);
    if (b.extracted.has(name) || (!keepEmpty && value.length === 0)) return;
    b.set(Category.Parsed, name, value);
  };
  return (_ts, line, b) => {
    scanPairs(dec, line, strict, b, visit);
    return line;
  };
}

/**
 * `| logfmt a="key", b`: only the named keys, renamed; every named label exists afterwards. Loki
 * reads a key spelled as one of the labels too (a line's own `a=` sets `a`), and the last pair
 * read wins. Under parser hints (parser-hints.ts) a key that is not one of the labels is read only
 * where the hints name it, and not where an earlier stage already extracted a label of its name;
 * once every hinted label is extracted, reading stops; a label held by the row (its `…_extracted`
 * name) that the hints do not name, or that is already extracted, stops the reading too.
 */
export function logfmtExpressionStage(params: ExtractionParam[], strict: boolean, hints = EXTRACT_ALL): Stage {
  const keyToId = new Map<string, string>();
  const ids: string[] = [];
  for (const p of params) {
    ids.push(p.label);
    keyToId.set(p.expression ?? p.label, p.label);
  }
  const idSet = new Set(ids);
  const required = hints.required;
  const shouldExtract = (key: string) => required === undefined || required.has(key);
  const allExtracted = (b: LabelsBuilder) => {
    if (required === undefined || required.size === 0) return false;
    for (const name of required) if (!b.extracted.has(name)) return false;
    return true;
  };
  const dec = new LogfmtDecoder();
  const visit = (b: LabelsBuilder, key: string, value: string) => {
    const always = idSet.has(key);
    if (!always && (!shouldExtract(key) || b.extracted.has(key))) return true;
    let name = keyToId.get(key) ?? key;
    if (!idSet.has(name)) return true;
    if (b.heldByRow(name)) {
      name += DUPLICATE_SUFFIX;
      if (b.extracted.has(name) || !shouldExtract(name)) return false;
    }
    b.set(Category.Parsed, name, value);
    return !allExtracted(b);
  };
  return (_ts, line, b) => {
    if (hints.none || allExtracted(b)) return line;
    for (const id of ids) if (!b.heldByRow(id)) b.set(Category.Parsed, id, "");
    scanPairs(dec, line, strict, b, visit);
    return line;
  };
}

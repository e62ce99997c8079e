/**
 * Line tokenizers for pattern mining, following the rules of Loki's pattern ingester so a pattern
 * reads the same here as there:
 *
 * - logfmt lines (every word a `key=value` pair) become key/value token pairs; the values of
 *   time and trace keys are variable from the start, and the pattern is written back as logfmt;
 * - JSON objects contribute only their message field (the first string among `log`, `message`,
 *   `msg`, `msg_`, `_msg`, `content`), tokenized as text and framed by `<_>` on both sides;
 * - anything else splits on spaces, `=` and punctuation other than `_ - . : /`: punctuation is a
 *   token of its own, spaces are not tokens but are remembered so the pattern keeps its spacing.
 *
 * The format is guessed per line (Loki guesses it once per stream, from the stream's first line).
 */

export type LineFormat = "logfmt" | "json" | "text";

/** The placeholder Loki writes for a variable token. */
export const VARIABLE = "<_>";

/** Longer lines are not mined: Loki's pattern ingester skips them too. */
export const MAX_LINE_LENGTH = 3000;
/** Tokens after this many are kept as one trailing token. */
const MAX_TEXT_TOKENS = 127;

/** The members a JSON line's message is read from, the first string one winning. */
export const JSON_MESSAGE_FIELDS: readonly string[] = ["log", "message", "msg", "msg_", "_msg", "content"];

export interface Tokenized {
  format: LineFormat;
  tokens: string[];
  /** text and json: indices of the tokens followed by a space (one entry per space). */
  spacesAfter: number[];
}

/** The tokens of `line`, or undefined when the line cannot be mined (too long, no message). */
export function tokenizeLine(line: string): Tokenized | undefined {
  if (line.length > MAX_LINE_LENGTH) return undefined;
  if (line.length >= 2 && line.charCodeAt(0) === 0x7b && line.charCodeAt(line.length - 1) === 0x7d) {
    const message = jsonMessage(line);
    if (message === undefined) return undefined;
    return { format: "json", ...tokenizeText(message) };
  }
  const pairs = logfmtPairs(line);
  if (pairs) return { format: "logfmt", tokens: pairs, spacesAfter: [] };
  return { format: "text", ...tokenizeText(line) };
}

/** A cluster's tokens written as a pattern, runs of `<_>` collapsed into one as Loki does. */
export function joinTokens(format: LineFormat, tokens: readonly string[], spacesAfter: readonly number[]): string {
  let out: string;
  if (format === "logfmt") out = joinLogfmt(tokens);
  else if (format === "json") out = VARIABLE + joinText(tokens, spacesAfter) + VARIABLE;
  else out = joinText(tokens, spacesAfter);
  return collapseVariables(out);
}

function collapseVariables(s: string): string {
  return s.includes(VARIABLE + VARIABLE) ? s.replace(/(?:<_>){2,}/g, VARIABLE) : s;
}

function jsonMessage(line: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  for (const key of JSON_MESSAGE_FIELDS) {
    const v = (parsed as Record<string, unknown>)[key];
    if (typeof v === "string") return v.length > MAX_LINE_LENGTH ? undefined : v;
  }
  return undefined;
}

// ASCII punctuation as Go's unicode.IsPunct sees it, minus the characters that stay inside tokens
// (`_ - . : /`), plus `=`. `$ + < > ^ | ~` and backquote are symbols, not punctuation: they stay in tokens.
const SPLIT_ASCII = new Uint8Array(128);
for (const c of `!"#%&'()*,;?@[\\]{}=`) SPLIT_ASCII[c.charCodeAt(0)] = 1;
const LETTER_OR_NUMBER = /[\p{L}\p{N}]/u;
const PUNCTUATION = /\p{P}/u;

export function tokenizeText(line: string): { tokens: string[]; spacesAfter: number[] } {
  const tokens: string[] = [];
  const spacesAfter: number[] = [];
  let start = 0;
  let i = 0;
  while (i < line.length) {
    if (tokens.length >= MAX_TEXT_TOKENS) break;
    const code = line.codePointAt(i)!;
    const width = code > 0xffff ? 2 : 1;
    let splits: boolean;
    if (code < 128) splits = code === 0x20 || SPLIT_ASCII[code] === 1;
    else {
      const ch = line.slice(i, i + width);
      splits = !LETTER_OR_NUMBER.test(ch) && PUNCTUATION.test(ch);
    }
    if (splits) {
      if (i > start) tokens.push(line.slice(start, i));
      if (code === 0x20) spacesAfter.push(tokens.length - 1);
      else tokens.push(line.slice(i, i + width));
      start = i + width;
    }
    i += width;
  }
  if (start < line.length) tokens.push(line.slice(start));
  return { tokens, spacesAfter };
}

function joinText(tokens: readonly string[], spacesAfter: readonly number[]): string {
  let out = "";
  let s = 0;
  // A line that starts with spaces records them after token -1.
  while (s < spacesAfter.length && spacesAfter[s]! < 0) {
    out += " ";
    s++;
  }
  for (let i = 0; i < tokens.length; i++) {
    out += tokens[i];
    while (s < spacesAfter.length && spacesAfter[s] === i) {
      out += " ";
      s++;
    }
  }
  return out;
}

const WORD_CHAR = /^\w$/;

/** Keys whose values are variable by nature (times, trace ids), as Loki's pattern ingester has them. */
function isVariableKey(key: string): boolean {
  const lower = key.toLowerCase();
  return key === "t" || lower === "ts" || lower === "time" || lower === "timestamp" || lower === "traceid";
}

/**
 * `[key, value, key, value, ...]` when the line is logfmt by Loki's guess: `key=value` pairs with
 * word-character keys and non-empty values (bare or double-quoted), separated by single spaces.
 */
export function logfmtPairs(line: string): string[] | undefined {
  const out: string[] = [];
  let i = 0;
  const n = line.length;
  while (i < n) {
    const keyStart = i;
    while (i < n && WORD_CHAR.test(line[i]!)) i++;
    if (i === keyStart || line[i] !== "=") return undefined;
    const key = line.slice(keyStart, i);
    i++;
    let value: string;
    if (line[i] === '"') {
      let j = i + 1;
      while (j < n && line[j] !== '"') j += line[j] === "\\" ? 2 : 1;
      if (j >= n || j === i + 1) return undefined;
      const raw = line.slice(i, j + 1);
      try {
        value = JSON.parse(raw) as string;
      } catch {
        value = raw.slice(1, -1);
      }
      i = j + 1;
    } else {
      const valueStart = i;
      while (i < n && line[i] !== " ") i++;
      if (i === valueStart) return undefined;
      value = line.slice(valueStart, i);
    }
    out.push(key, isVariableKey(key) ? VARIABLE : value);
    if (i < n) {
      if (line[i] !== " " || i + 1 === n) return undefined;
      i++;
    }
  }
  return out.length > 0 ? out : undefined;
}

function joinLogfmt(tokens: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < tokens.length; i += 2) {
    const value = tokens[i + 1] ?? "";
    parts.push(`${tokens[i]}=${needsQuotes(value) ? JSON.stringify(value) : value}`);
  }
  return parts.join(" ");
}

function needsQuotes(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || c === 0x3d || c === 0x22 || c === 0x7f) return true;
  }
  return false;
}

/**
 * LogQL lexer, reproducing the token stream Loki's lexer feeds its yacc grammar.
 *
 * Loki's tokenisation is context-sensitive in ways a grammar cannot see from characters alone:
 * a number glued to unit letters becomes a DURATION or BYTES token, `[...]` is one RANGE token,
 * function names are keywords only when `(` (or `by (`/`without (`) follows, `--strict` is a
 * flag while `-5m` is a negative duration, and unknown characters are IDENTIFIERs. The grammar
 * (grammar/logql.peggy) therefore runs over this token stream, one character per token, so both
 * acceptance and error positions match Loki's.
 */

import { parseBytes } from "../core/go/bytes";
import { parseLokiDuration, parsePromDuration } from "../core/go/duration";
import { unquote } from "../core/go/strconv";
import {
  RANGE_FUNCTION_NAMES,
  type RangeFunctionName,
  VECTOR_AGGREGATION_NAMES,
  type VectorAggregationName,
} from "./functions";

/**
 * Token kinds in the order Loki's grammar declares them: goyacc lists expected tokens in this
 * order, so error messages depend on it. `display` is how Loki names the token in messages.
 */
const TOKEN_TABLE = [
  ["BYTES", "BYTES"],
  ["IDENTIFIER", "IDENTIFIER"],
  ["STRING", "STRING"],
  ["NUMBER", "NUMBER"],
  ["PARSER_FLAG", "PARSER_FLAG"],
  ["DURATION", "DURATION"],
  ["RANGE", "RANGE"],
  ["EQ", "="],
  ["RE", "=~"],
  ["NRE", "!~"],
  ["NPA", "!>"],
  ["OPEN_BRACE", "{"],
  ["CLOSE_BRACE", "}"],
  ["OPEN_BRACKET", "["],
  ["CLOSE_BRACKET", "]"],
  ["COMMA", ","],
  ["DOT", "."],
  ["PIPE_MATCH", "|~"],
  ["PIPE_EXACT", "|="],
  ["PIPE_PATTERN", "|>"],
  ["OPEN_PARENTHESIS", "("],
  ["CLOSE_PARENTHESIS", ")"],
  ["BY", "by"],
  ["WITHOUT", "without"],
  ["COUNT_OVER_TIME", "COUNT_OVER_TIME"],
  ["RATE", "RATE"],
  ["RATE_COUNTER", "RATE_COUNTER"],
  ["SUM", "SUM"],
  ["SORT", "SORT"],
  ["SORT_DESC", "SORT_DESC"],
  ["AVG", "AVG"],
  ["MAX", "MAX"],
  ["MIN", "MIN"],
  ["COUNT", "COUNT"],
  ["STDDEV", "STDDEV"],
  ["STDVAR", "STDVAR"],
  ["BOTTOMK", "BOTTOMK"],
  ["TOPK", "TOPK"],
  ["APPROX_TOPK", "APPROX_TOPK"],
  ["BYTES_OVER_TIME", "BYTES_OVER_TIME"],
  ["BYTES_RATE", "BYTES_RATE"],
  ["BOOL", "bool"],
  ["JSON", "json"],
  ["REGEXP", "regexp"],
  ["LOGFMT", "logfmt"],
  ["PIPE", "|"],
  ["LINE_FMT", "line_format"],
  ["LABEL_FMT", "label_format"],
  ["UNWRAP", "unwrap"],
  ["AVG_OVER_TIME", "AVG_OVER_TIME"],
  ["SUM_OVER_TIME", "SUM_OVER_TIME"],
  ["MIN_OVER_TIME", "MIN_OVER_TIME"],
  ["MAX_OVER_TIME", "MAX_OVER_TIME"],
  ["STDVAR_OVER_TIME", "STDVAR_OVER_TIME"],
  ["STDDEV_OVER_TIME", "STDDEV_OVER_TIME"],
  ["QUANTILE_OVER_TIME", "QUANTILE_OVER_TIME"],
  ["BYTES_CONV", "BYTES_CONV"],
  ["DURATION_CONV", "DURATION_CONV"],
  ["DURATION_SECONDS_CONV", "DURATION_SECONDS_CONV"],
  ["FIRST_OVER_TIME", "FIRST_OVER_TIME"],
  ["LAST_OVER_TIME", "LAST_OVER_TIME"],
  ["ABSENT_OVER_TIME", "ABSENT_OVER_TIME"],
  ["VECTOR", "VECTOR"],
  ["LABEL_REPLACE", "label_replace"],
  ["UNPACK", "unpack"],
  ["OFFSET", "offset"],
  ["PATTERN", "pattern"],
  ["IP", "ip"],
  ["ON", "on"],
  ["IGNORING", "ignoring"],
  ["GROUP_LEFT", "group_left"],
  ["GROUP_RIGHT", "group_right"],
  ["DECOLORIZE", "decolorize"],
  ["DROP", "drop"],
  ["KEEP", "keep"],
  ["OR", "or"],
  ["AND", "and"],
  ["UNLESS", "unless"],
  ["CMP_EQ", "=="],
  ["NEQ", "!="],
  ["LT", "<"],
  ["LTE", "<="],
  ["GT", ">"],
  ["GTE", ">="],
  ["ADD", "+"],
  ["SUB", "-"],
  ["MUL", "*"],
  ["DIV", "/"],
  ["MOD", "%"],
  ["POW", "^"],
] as const;

export type TokenKind = (typeof TOKEN_TABLE)[number][0];

/** Each token kind is one character of the string the generated parser reads. */
export const TOKEN_CHAR_BASE = 0xe000;
/** The character standing for a lexical error: it matches nothing, so parsing stops there. */
export const ERROR_CHAR = String.fromCharCode(0xe0ff);

/** Character code standing for each token kind in the parser's input. */
export const TOKEN_CODES: Readonly<Record<TokenKind, number>> = Object.fromEntries(
  TOKEN_TABLE.map(([k], i) => [k, TOKEN_CHAR_BASE + i]),
) as Record<TokenKind, number>;

const KIND_INDEX = new Map<string, number>(TOKEN_TABLE.map(([k], i) => [k, i]));
const DISPLAY_BY_KIND = new Map<string, string>(TOKEN_TABLE.map(([k, d]) => [k, d]));

export function tokenDisplay(kind: TokenKind): string {
  return DISPLAY_BY_KIND.get(kind)!;
}

/** Loki's declaration order of a token, for sorting `expecting` lists. */
export function tokenOrder(kind: string): number {
  return KIND_INDEX.get(kind) ?? 1000;
}

export function tokenChar(kind: TokenKind): string {
  return String.fromCharCode(TOKEN_CHAR_BASE + KIND_INDEX.get(kind)!);
}

export interface Token {
  kind: TokenKind;
  /** Source text of the token. */
  text: string;
  /** STRING: the unquoted value; DURATION/RANGE: nanoseconds; BYTES: bytes. */
  value?: string | number;
  /** Offset of the first character. */
  start: number;
  end: number;
  /**
   * Loki reports the line of tokens its lexer finished with `Next()` as 0 (an artefact of Go's
   * text/scanner invalidating the position); error messages reproduce it.
   */
  lineIsZero: boolean;
}

export interface LexError {
  message: string;
  offset: number;
  lineIsZero: boolean;
}

export interface LexResult {
  tokens: Token[];
  /** Set when lexing stopped at an error; `tokens` holds everything before it. */
  error?: LexError;
}

/** Reserved words and operators, looked up case-insensitively. */
const KEYWORDS: Record<string, TokenKind> = {
  ",": "COMMA",
  ".": "DOT",
  "{": "OPEN_BRACE",
  "}": "CLOSE_BRACE",
  "=": "EQ",
  "!=": "NEQ",
  "=~": "RE",
  "!~": "NRE",
  "!>": "NPA",
  "|=": "PIPE_EXACT",
  "|~": "PIPE_MATCH",
  "|>": "PIPE_PATTERN",
  "|": "PIPE",
  unwrap: "UNWRAP",
  "(": "OPEN_PARENTHESIS",
  ")": "CLOSE_PARENTHESIS",
  by: "BY",
  without: "WITHOUT",
  bool: "BOOL",
  "[": "OPEN_BRACKET",
  "]": "CLOSE_BRACKET",
  label_replace: "LABEL_REPLACE",
  offset: "OFFSET",
  on: "ON",
  ignoring: "IGNORING",
  group_left: "GROUP_LEFT",
  group_right: "GROUP_RIGHT",
  or: "OR",
  and: "AND",
  unless: "UNLESS",
  "+": "ADD",
  "-": "SUB",
  "*": "MUL",
  "/": "DIV",
  "%": "MOD",
  "^": "POW",
  "==": "CMP_EQ",
  ">": "GT",
  ">=": "GTE",
  "<": "LT",
  "<=": "LTE",
  json: "JSON",
  regexp: "REGEXP",
  logfmt: "LOGFMT",
  unpack: "UNPACK",
  pattern: "PATTERN",
  label_format: "LABEL_FMT",
  line_format: "LINE_FMT",
  ip: "IP",
  decolorize: "DECOLORIZE",
  drop: "DROP",
  keep: "KEEP",
};

/**
 * The token of each range function and vector aggregation: its name in capitals, as Loki declares
 * it. The type check fails when a function of the tables has no token kind in TOKEN_TABLE.
 */
const FUNCTION_TOKENS = Object.fromEntries(
  [...RANGE_FUNCTION_NAMES, ...VECTOR_AGGREGATION_NAMES].map((name) => [name, functionToken(name)]),
);

export function functionToken(name: RangeFunctionName | VectorAggregationName): TokenKind {
  return name.toUpperCase() as Uppercase<typeof name> satisfies TokenKind;
}

/** Names that are keywords only when a `(` (or `by (` / `without (`) follows. */
const FUNCTIONS: Record<string, TokenKind> = {
  ...FUNCTION_TOKENS,
  vector: "VECTOR",
  label_replace: "LABEL_REPLACE",
  bytes: "BYTES_CONV",
  duration: "DURATION_CONV",
  duration_seconds: "DURATION_SECONDS_CONV",
  ip: "IP",
};

const PARSER_FLAGS = new Set(["--strict", "--keep-empty"]);

const IDENT_START = /[\p{L}_]/u;
const IDENT_PART = /[\p{L}\p{Nd}_]/u;
const UNICODE_NUMBER = /\p{N}/u;
const UNICODE_SPACE = /\s/u;
const DURATION_RUNES = new Set(["n", "u", "µ", "m", "s", "h", "d", "w", "y"]);
const BYTES_RUNES = new Set(["B", "i", "k", "K", "M", "G", "T", "P"]);

/** Go's text/scanner skips only these between tokens. */
const isGoWhitespace = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";

class Lexer {
  private pos = 0;
  readonly tokens: Token[] = [];
  error: LexError | undefined;

  constructor(private readonly src: string) {}

  run(): void {
    while (this.error === undefined) {
      if (!this.next()) return;
    }
  }

  private fail(message: string, offset: number, lineIsZero = false): false {
    this.error = { message, offset, lineIsZero };
    return false;
  }

  private push(kind: TokenKind, start: number, end: number, lineIsZero: boolean, value?: string | number): true {
    this.tokens.push({ kind, text: this.src.slice(start, end), value, start, end, lineIsZero });
    this.pos = end;
    return true;
  }

  /** Code point at `i` as a string, or "" at the end. */
  private ch(i: number): string {
    if (i >= this.src.length) return "";
    const cp = this.src.codePointAt(i)!;
    return String.fromCodePoint(cp);
  }

  /** Scans one token; false at the end of input or on error. */
  private next(): boolean {
    const src = this.src;
    // Whitespace and Go comments.
    for (;;) {
      while (this.pos < src.length && isGoWhitespace(src[this.pos]!)) this.pos++;
      if (src.startsWith("//", this.pos)) {
        const nl = src.indexOf("\n", this.pos);
        this.pos = nl < 0 ? src.length : nl;
        continue;
      }
      if (src.startsWith("/*", this.pos)) {
        const close = src.indexOf("*/", this.pos + 2);
        if (close < 0) return this.fail("comment not terminated", this.pos);
        this.pos = close + 2;
        continue;
      }
      if (src[this.pos] === "#") {
        const nl = src.indexOf("\n", this.pos);
        this.pos = nl < 0 ? src.length : nl;
        continue;
      }
      break;
    }
    if (this.pos >= src.length) return false;
    const start = this.pos;
    const c = src[start]!;

    if (isAsciiDigit(c) || (c === "." && isAsciiDigit(src[start + 1]))) return this.number(start);
    if (c === '"') return this.string(start);
    if (c === "`") return this.rawString(start);
    if (c === "'") return this.charLiteral(start);
    if (c === "[") return this.range(start);
    if (c === "-") {
      if (src[start + 1] === "-") {
        const flag = /^--[\p{L}-]*/u.exec(src.slice(start))![0];
        if (PARSER_FLAGS.has(flag)) return this.push("PARSER_FLAG", start, start + flag.length, true, flag);
      }
      const dur = this.scanUnitSuffix(start + 1, "-", durationRune);
      if (dur !== undefined) {
        const v = parseLokiDuration(dur.text);
        if (v.ok) return this.push("DURATION", start, dur.end, true, Number(v.value));
      }
    }

    const first = this.ch(start);
    if (isIdentStart(src.charCodeAt(start), first)) {
      let end = start + first.length;
      for (;;) {
        const code = src.charCodeAt(end);
        if (code < 128) {
          if (!isAsciiIdentPart(code)) break;
          end++;
          continue;
        }
        const n = this.ch(end);
        if (n === "" || !IDENT_PART.test(n)) break;
        end += n.length;
      }
      return this.word(start, end);
    }
    return this.word(start, start + first.length);
  }

  /** Identifiers, keywords, function names and single/double character operators. */
  private word(start: number, end: number): true {
    const text = this.src.slice(start, end);
    const lower = text.toLowerCase();
    const fn = FUNCTIONS[lower];
    if (fn !== undefined) {
      return this.isFunctionCall(end)
        ? this.push(fn, start, end, false)
        : this.push("IDENTIFIER", start, end, false, text);
    }
    const nextCh = this.ch(end);
    const twoKind = nextCh === "" ? undefined : KEYWORDS[(text + nextCh).toLowerCase()];
    if (twoKind !== undefined) return this.push(twoKind, start, end + nextCh.length, true);
    const kind = KEYWORDS[lower];
    if (kind !== undefined) return this.push(kind, start, end, false);
    return this.push("IDENTIFIER", start, end, false, text);
  }

  /** Loki's `isFunction`: the next non-space input is `(`, `by (` or `without (`. */
  private isFunctionCall(from: number): boolean {
    const src = this.src;
    let i = skipUnicodeSpace(src, from);
    if (src[i] === "(") return true;
    const rest = src.slice(i, i + 7).toLowerCase();
    let kw = 0;
    if (rest.startsWith("by")) kw = 2;
    else if (rest === "without") kw = 7;
    if (kw === 0) return false;
    i = skipUnicodeSpace(src, i + kw);
    return src[i] === "(";
  }

  /**
   * Loki's look-ahead after a number: the following non-space run of digits, unit letters and
   * dots. Returns the number text joined with that run, or undefined when the run is empty.
   */
  private scanUnitSuffix(
    from: number,
    prefix: string,
    accept: (c: string) => boolean,
  ): { text: string; end: number } | undefined {
    let end = from;
    for (;;) {
      const code = this.src.charCodeAt(end);
      if (Number.isNaN(code)) break;
      if (code < 128) {
        // ASCII: digits, dots and the caller's unit letters continue the run.
        if ((code >= 48 && code <= 57) || code === 46 || accept(this.src[end]!)) {
          end++;
          continue;
        }
        break;
      }
      const n = this.ch(end);
      if (UNICODE_SPACE.test(n)) break;
      if (!(UNICODE_NUMBER.test(n) || accept(n))) break;
      end += n.length;
    }
    if (end === from) return undefined;
    return { text: prefix + this.src.slice(from, end), end };
  }

  /** Go number literal, then Loki's DURATION / BYTES promotion. */
  private number(start: number): boolean {
    const src = this.src;
    let i = start;
    let prefix = "";
    let sawDigit = false;
    let base = 10;
    if (src[i] === "0" && /[xXoObB]/.test(src[i + 1] ?? "")) {
      prefix = src[i + 1]!.toLowerCase();
      base = prefix === "x" ? 16 : prefix === "o" ? 8 : 2;
      i += 2;
    }
    const digitRe = base === 16 ? /[0-9a-fA-F_]/ : /[0-9_]/;
    const readDigits = (): void => {
      while (i < src.length && digitRe.test(src[i]!)) {
        if (src[i] !== "_") sawDigit = true;
        i++;
      }
    };
    readDigits();
    let isFloat = false;
    if (src[i] === "." && (base === 10 || base === 16)) {
      isFloat = true;
      i++;
      readDigits();
    }
    if (!sawDigit) {
      const name = prefix === "x" ? "hexadecimal literal" : prefix === "o" ? "octal literal" : "decimal literal";
      return this.fail(`${name} has no digits`, start);
    }
    const expChar = base === 16 ? /[pP]/ : /[eE]/;
    if (expChar.test(src[i] ?? "") && (base === 10 || base === 16)) {
      isFloat = true;
      i++;
      if (src[i] === "+" || src[i] === "-") i++;
      const ds = i;
      while (i < src.length && /[0-9_]/.test(src[i]!)) i++;
      if (i === ds) return this.fail("exponent has no digits", start);
    }
    if (!isFloat && base === 10 && src[start] === "0" && /[89]/.test(src.slice(start, i))) {
      const bad = /[89]/.exec(src.slice(start, i))![0];
      return this.fail(`invalid digit '${bad}' in octal literal`, start);
    }
    if ((base === 8 || base === 2) && new RegExp(base === 8 ? "[89]" : "[2-9]").test(src.slice(start + 2, i))) {
      const bad = new RegExp(base === 8 ? "[89]" : "[2-9]").exec(src.slice(start + 2, i))![0];
      return this.fail(`invalid digit '${bad}' in ${base === 8 ? "octal" : "binary"} literal`, start);
    }
    const numberText = src.slice(start, i);
    const dur = this.scanUnitSuffix(i, numberText, durationRune);
    if (dur !== undefined) {
      const v = parseLokiDuration(dur.text);
      if (v.ok) return this.push("DURATION", start, dur.end, true, Number(v.value));
    }
    const bytes = this.scanUnitSuffix(i, numberText, (c) => BYTES_RUNES.has(c));
    if (bytes !== undefined) {
      const v = parseBytes(bytes.text);
      if (v.ok) return this.push("BYTES", start, bytes.end, true, v.value);
    }
    return this.push("NUMBER", start, i, false, numberText);
  }

  private string(start: number): boolean {
    const src = this.src;
    let i = start + 1;
    for (;;) {
      const c = src[i];
      if (c === undefined || c === "\n") return this.fail("literal not terminated", start);
      if (c === '"') break;
      if (c === "\\") {
        const e = src[i + 1];
        i += 2;
        if (e !== undefined && 'abfnrtv\\"'.includes(e)) continue;
        const need = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : e !== undefined && e >= "0" && e <= "7" ? 2 : -1;
        if (need < 0) {
          if (e === "\n" || e === undefined) return this.fail("literal not terminated", start);
          return this.fail("invalid char escape", start);
        }
        const digit = e === "x" || e === "u" || e === "U" ? /[0-9a-fA-F]/ : /[0-7]/;
        for (let k = 0; k < need; k++, i++) {
          if (!digit.test(src[i] ?? "")) {
            if (src[i] === undefined || src[i] === "\n") return this.fail("literal not terminated", start);
            return this.fail("invalid char escape", start);
          }
        }
        continue;
      }
      i++;
    }
    const value = unquote(src.slice(start, i + 1));
    if (value === undefined) return this.fail("invalid syntax", start);
    return this.push("STRING", start, i + 1, false, value);
  }

  private rawString(start: number): boolean {
    const close = this.src.indexOf("`", start + 1);
    if (close < 0) return this.fail("literal not terminated", start);
    // Go drops carriage returns from raw strings.
    return this.push("STRING", start, close + 1, false, this.src.slice(start + 1, close).replace(/\r/g, ""));
  }

  /** Single-quoted literals are Go character literals, which LogQL has no use for. */
  private charLiteral(start: number): boolean {
    const src = this.src;
    let i = start + 1;
    let n = 0;
    for (;;) {
      const c = src[i];
      if (c === undefined || c === "\n") return this.fail("literal not terminated", start);
      if (c === "'") break;
      if (c === "\\") i++;
      i++;
      n++;
    }
    if (n !== 1) return this.fail("invalid char literal", start);
    // A valid one-character literal reaches Loki's grammar as an IDENTIFIER.
    return this.push("IDENTIFIER", start, i + 1, false, src.slice(start, i + 1));
  }

  /** `[5m]`: one RANGE token parsed with Prometheus duration rules. */
  private range(start: number): boolean {
    const close = this.src.indexOf("]", start + 1);
    if (close < 0) return this.fail("missing closing ']' in duration", start, true);
    const v = parsePromDuration(this.src.slice(start + 1, close));
    if (!v.ok) return this.fail(v.error, start, true);
    return this.push("RANGE", start, close + 1, true, Number(v.value));
  }
}

function durationRune(c: string): boolean {
  return DURATION_RUNES.has(c);
}

function isAsciiDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

function skipUnicodeSpace(src: string, i: number): number {
  for (; i < src.length; i++) {
    const code = src.charCodeAt(i);
    if (code === 32 || (code >= 9 && code <= 13)) continue;
    if (code < 128 || !UNICODE_SPACE.test(src[i]!)) break;
  }
  return i;
}

/** NaN (past the end) is not an identifier character. */
function isAsciiIdentPart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95;
}

function isIdentStart(code: number, ch: string): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95;
  return IDENT_START.test(ch);
}

export function lex(src: string): LexResult {
  const l = new Lexer(src);
  l.run();
  return l.error ? { tokens: l.tokens, error: l.error } : { tokens: l.tokens };
}

/** Line (1-based) and column (1-based, in characters) of an offset, as Go's scanner counts. */
export function lineCol(src: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < src.length; i++) {
    if (src.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  let col = 1;
  for (let i = lineStart; i < offset && i < src.length; i++) {
    const code = src.charCodeAt(i);
    // A surrogate pair is one character.
    if (code >= 0xd800 && code <= 0xdbff) i++;
    col++;
  }
  return { line, col };
}

/**
 * Tokenizer for Go's text/template syntax with the default `{{ }}` delimiters, trim markers
 * (`{{- ` and ` -}}`) and comments (`{{/* ... *\/}}`). It produces the whole token list up front; a
 * lexical error becomes a final "error" token, which the parser reports when it reaches it, as
 * Go's concurrent lexer/parser pair does.
 */

export type TokenType =
  | "text"
  | "leftDelim"
  | "rightDelim"
  | "space"
  | "pipe"
  | "leftParen"
  | "rightParen"
  | "assign"
  | "declare"
  | "char"
  | "string"
  | "rawString"
  | "charConstant"
  | "number"
  | "bool"
  | "nil"
  | "dot"
  | "field"
  | "variable"
  | "identifier"
  | "eof"
  | "error"
  | "block"
  | "break"
  | "continue"
  | "define"
  | "else"
  | "end"
  | "if"
  | "range"
  | "template"
  | "with";

export interface Token {
  type: TokenType;
  val: string;
  /** Offset in the template text. */
  pos: number;
  line: number;
}

const KEYWORDS: ReadonlySet<string> = new Set([
  "block",
  "break",
  "continue",
  "define",
  "else",
  "end",
  "if",
  "range",
  "template",
  "with",
]);

export function isKeyword(t: TokenType): boolean {
  return KEYWORDS.has(t) || t === "nil" || t === "dot";
}

const isSpace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\r" || c === "\n";
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isAlphaNumeric = (c: string | undefined): boolean => c !== undefined && (c === "_" || /^[\p{L}\p{Nd}]$/u.test(c));

function hasLeftTrimMarker(s: string, i: number): boolean {
  return s[i] === "-" && isSpace(s[i + 1]);
}

function hasRightTrimMarker(s: string, i: number): boolean {
  return isSpace(s[i]) && s[i + 1] === "-";
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}

export function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  let start = 0;
  let line = 1;
  let startLine = 1;
  let parenDepth = 0;

  const emit = (type: TokenType, val = input.slice(start, pos)): void => {
    tokens.push({ type, val, pos: start, line: startLine });
    line += countNewlines(input, start, pos);
    start = pos;
    startLine = line;
  };
  const ignore = (): void => {
    line += countNewlines(input, start, pos);
    start = pos;
    startLine = line;
  };
  const error = (msg: string): Token[] => {
    tokens.push({ type: "error", val: msg, pos: start, line: startLine });
    return tokens;
  };
  const atRightDelim = (): { delim: boolean; trim: boolean } => {
    if (hasRightTrimMarker(input, pos) && input.startsWith("}}", pos + 2)) return { delim: true, trim: true };
    if (input.startsWith("}}", pos)) return { delim: true, trim: false };
    return { delim: false, trim: false };
  };
  const skipLeadingSpace = (): void => {
    while (isSpace(input[pos])) pos++;
  };

  // text, then actions, alternating
  for (;;) {
    const next = input.indexOf("{{", pos);
    if (next < 0) {
      pos = input.length;
      if (pos > start) emit("text");
      tokens.push({ type: "eof", val: "", pos, line });
      return tokens;
    }
    pos = next;
    let textEnd = pos;
    if (hasLeftTrimMarker(input, pos + 2)) {
      while (textEnd > start && isSpace(input[textEnd - 1])) textEnd--;
    }
    if (textEnd > start) {
      const saved = pos;
      pos = textEnd;
      emit("text");
      pos = saved;
    }
    ignore();
    // left delimiter
    pos += 2;
    const trimLeft = hasLeftTrimMarker(input, pos);
    const afterMarker = trimLeft ? 2 : 0;
    if (input.startsWith("/*", pos + afterMarker)) {
      pos += afterMarker;
      ignore();
      pos += 2;
      const end = input.indexOf("*/", pos);
      if (end < 0) return error("unclosed comment");
      pos = end + 2;
      const { delim, trim } = atRightDelim();
      if (!delim) return error("comment ends before closing delimiter");
      if (trim) pos += 2;
      pos += 2;
      if (trim) skipLeadingSpace();
      ignore();
      continue;
    }
    emit("leftDelim");
    pos += afterMarker;
    ignore();
    parenDepth = 0;
    // inside the action
    for (;;) {
      const { delim, trim } = atRightDelim();
      if (delim) {
        if (parenDepth !== 0) return error("unclosed left paren");
        if (trim) {
          pos += 2;
          ignore();
        }
        pos += 2;
        emit("rightDelim");
        if (trim) {
          skipLeadingSpace();
          ignore();
        }
        break;
      }
      const c = input[pos];
      if (c === undefined) return error("unclosed action");
      if (isSpace(c)) {
        let n = 0;
        while (isSpace(input[pos])) {
          pos++;
          n++;
        }
        // a space directly before "-}}" belongs to the trim marker
        if (hasRightTrimMarker(input, pos - 1) && input.startsWith("}}", pos + 1)) {
          pos--;
          if (n === 1) continue;
        }
        emit("space");
        continue;
      }
      pos++;
      switch (c) {
        case "=":
          emit("assign");
          continue;
        case ":":
          if (input[pos] !== "=") return error("expected :=");
          pos++;
          emit("declare");
          continue;
        case "|":
          emit("pipe");
          continue;
        case '"': {
          for (;;) {
            const d = input[pos++];
            if (d === "\\") {
              if (input[pos] === undefined || input[pos] === "\n") return error("unterminated quoted string");
              pos++;
            } else if (d === undefined || d === "\n") return error("unterminated quoted string");
            else if (d === '"') break;
          }
          emit("string");
          continue;
        }
        case "`": {
          const end = input.indexOf("`", pos);
          if (end < 0) return error("unterminated raw quoted string");
          pos = end + 1;
          emit("rawString");
          continue;
        }
        case "'": {
          for (;;) {
            const d = input[pos++];
            if (d === "\\") {
              if (input[pos] === undefined || input[pos] === "\n") return error("unterminated character constant");
              pos++;
            } else if (d === undefined || d === "\n") return error("unterminated character constant");
            else if (d === "'") break;
          }
          emit("charConstant");
          continue;
        }
        case "$": {
          if (!atTerminator(input, pos)) {
            while (isAlphaNumeric(input[pos])) pos++;
            if (!atTerminator(input, pos)) return error(`bad character ${formatRuneU(input.codePointAt(pos)!)}`);
          }
          emit("variable");
          continue;
        }
        case "(":
          emit("leftParen");
          parenDepth++;
          continue;
        case ")":
          parenDepth--;
          if (parenDepth < 0) return error("unexpected right paren");
          emit("rightParen");
          continue;
      }
      if (c === "." && !isDigit(input[pos])) {
        // ".field", or a lone "." before a terminator
        if (atTerminator(input, pos)) {
          emit("dot");
          continue;
        }
        while (isAlphaNumeric(input[pos])) pos++;
        if (!atTerminator(input, pos)) return error(`bad character ${formatRuneU(input.codePointAt(pos)!)}`);
        emit("field");
        continue;
      }
      if (c === "." || c === "+" || c === "-" || isDigit(c)) {
        pos--;
        if (!scanNumber()) return error(`bad number syntax: ${JSON.stringify(input.slice(start, pos))}`);
        emit("number");
        continue;
      }
      if (isAlphaNumeric(c)) {
        while (isAlphaNumeric(input[pos])) pos++;
        const word = input.slice(start, pos);
        if (!atTerminator(input, pos)) return error(`bad character ${formatRuneU(input.codePointAt(pos)!)}`);
        if (KEYWORDS.has(word)) emit(word as TokenType);
        else if (word === "true" || word === "false") emit("bool");
        else if (word === "nil") emit("nil");
        else emit("identifier");
        continue;
      }
      const code = c.codePointAt(0)!;
      if (code < 0x80 && code >= 0x20 && code !== 0x7f) {
        emit("char");
        continue;
      }
      return error(`unrecognized character in action: ${formatRuneU(input.codePointAt(pos - 1)!)}`);
    }
  }

  function scanNumber(): boolean {
    if (input[pos] === "+" || input[pos] === "-") pos++;
    let digits = "0123456789_";
    if (input[pos] === "0") {
      const x = input[pos + 1];
      if (x === "x" || x === "X") {
        pos += 2;
        digits = "0123456789abcdefABCDEF_";
      } else if (x === "o" || x === "O") {
        pos += 2;
        digits = "01234567_";
      } else if (x === "b" || x === "B") {
        pos += 2;
        digits = "01_";
      }
    }
    const run = (set: string): void => {
      while (pos < input.length && set.includes(input[pos]!)) pos++;
    };
    run(digits);
    if (input[pos] === ".") {
      pos++;
      run(digits);
    }
    if (digits.length === 11 && (input[pos] === "e" || input[pos] === "E")) {
      pos++;
      if (input[pos] === "+" || input[pos] === "-") pos++;
      run("0123456789_");
    }
    if (digits.length === 23 && (input[pos] === "p" || input[pos] === "P")) {
      pos++;
      if (input[pos] === "+" || input[pos] === "-") pos++;
      run("0123456789_");
    }
    if (input[pos] === "i") pos++;
    // the next thing must not be alphanumeric
    if (isAlphaNumeric(input[pos])) {
      pos++;
      return false;
    }
    return true;
  }
}

/** After a field or identifier: space, end of action, or a punctuation that can follow. */
function atTerminator(s: string, i: number): boolean {
  const c = s[i];
  if (c === undefined || isSpace(c)) return true;
  switch (c) {
    case ".":
    case ",":
    case "|":
    case ":":
    case ")":
    case "(":
      return true;
  }
  return s.startsWith("}}", i);
}

/** Go's %#U: "U+0040 '@'" (the character itself only when printable). */
function formatRuneU(code: number): string {
  const hex = code.toString(16).toUpperCase().padStart(4, "0");
  const ch = String.fromCodePoint(code);
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch) ? `U+${hex} '${ch}'` : `U+${hex}`;
}

/**
 * Go string literal syntax: decoding the quoted strings of the template language
 * (strconv.Unquote) and Go's own quoting (strconv.Quote), used by %q and error messages.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const SIMPLE_ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  "\\": 92,
  "'": 39,
  '"': 34,
};

/**
 * Decodes one (possibly escaped) character at the start of s inside a literal quoted by `quote`.
 * Returns the code point, or a raw byte (isByte) for \x and octal escapes.
 */
export function unquoteChar(s: string, quote: string): { code: number; isByte: boolean; rest: string } {
  const c = s[0];
  if (c === undefined) throw new SyntaxError("invalid syntax");
  if (c === quote && (quote === "'" || quote === '"')) throw new SyntaxError("invalid syntax");
  if (c !== "\\") {
    const code = s.codePointAt(0)!;
    return { code, isByte: false, rest: s.slice(code > 0xffff ? 2 : 1) };
  }
  const e = s[1];
  if (e === undefined) throw new SyntaxError("invalid syntax");
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) {
    if ((e === "'" || e === '"') && e !== quote) throw new SyntaxError("invalid syntax");
    return { code: simple, isByte: false, rest: s.slice(2) };
  }
  const hexRun = (n: number): number => {
    const h = s.slice(2, 2 + n);
    if (h.length !== n || !/^[0-9a-fA-F]+$/.test(h)) throw new SyntaxError("invalid syntax");
    return parseInt(h, 16);
  };
  switch (e) {
    case "x":
      return { code: hexRun(2), isByte: true, rest: s.slice(4) };
    case "u": {
      const v = hexRun(4);
      if (v >= 0xd800 && v <= 0xdfff) throw new SyntaxError("invalid syntax");
      return { code: v, isByte: false, rest: s.slice(6) };
    }
    case "U": {
      const v = hexRun(8);
      if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) throw new SyntaxError("invalid syntax");
      return { code: v, isByte: false, rest: s.slice(10) };
    }
  }
  if (e >= "0" && e <= "7") {
    const o = s.slice(1, 4);
    if (!/^[0-7]{3}$/.test(o)) throw new SyntaxError("invalid syntax");
    const v = parseInt(o, 8);
    if (v > 255) throw new SyntaxError("invalid syntax");
    return { code: v, isByte: true, rest: s.slice(4) };
  }
  throw new SyntaxError("invalid syntax");
}

/** strconv.Unquote for "..." and `...` literals. */
export function unquoteString(lit: string): string {
  if (lit.length < 2) throw new SyntaxError("invalid syntax");
  const q = lit[0];
  if (q !== lit[lit.length - 1]) throw new SyntaxError("invalid syntax");
  let body = lit.slice(1, -1);
  if (q === "`") {
    if (body.includes("`")) throw new SyntaxError("invalid syntax");
    return body.includes("\r") ? body.replace(/\r/g, "") : body;
  }
  if (q !== '"') throw new SyntaxError("invalid syntax");
  if (!body.includes("\\")) {
    if (body.includes('"') || body.includes("\n")) throw new SyntaxError("invalid syntax");
    return body;
  }
  // escapes may produce raw bytes (\xff), so assemble UTF-8 and decode once
  const bytes: number[] = [];
  while (body.length > 0) {
    if (body[0] === "\n") throw new SyntaxError("invalid syntax");
    const { code, isByte, rest } = unquoteChar(body, '"');
    body = rest;
    if (isByte) bytes.push(code);
    else for (const b of encoder.encode(String.fromCodePoint(code))) bytes.push(b);
  }
  return decoder.decode(new Uint8Array(bytes));
}

const NON_PRINT = /[\p{C}\p{Z}]/u;

/** Whether Go's unicode.IsPrint holds (letters, marks, numbers, punctuation, symbols, ASCII space). */
export function isPrint(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7f;
  return !NON_PRINT.test(String.fromCodePoint(cp));
}

function escapeRune(cp: number, quote: string): string {
  switch (cp) {
    case 7:
      return "\\a";
    case 8:
      return "\\b";
    case 12:
      return "\\f";
    case 10:
      return "\\n";
    case 13:
      return "\\r";
    case 9:
      return "\\t";
    case 11:
      return "\\v";
    case 92:
      return "\\\\";
  }
  if (String.fromCodePoint(cp) === quote) return "\\" + quote;
  if (isPrint(cp)) return String.fromCodePoint(cp);
  if (cp < 0x80 || (cp >= 0x80 && cp < 0x100 && cp < 0x20)) return "\\x" + cp.toString(16).padStart(2, "0");
  if (cp < 0x10000) return "\\u" + cp.toString(16).padStart(4, "0");
  return "\\U" + cp.toString(16).padStart(8, "0");
}

/** strconv.Quote. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0xfffd && ch !== "\ufffd") out += "\\ufffd";
    else out += escapeRune(cp, '"');
  }
  return out + '"';
}

/** strconv.QuoteRune. */
export function goQuoteRune(cp: number): string {
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp < 0) cp = 0xfffd;
  return "'" + escapeRune(cp, "'") + "'";
}

/**
 * Go RE2 regular expressions on JavaScript's engine.
 *
 * LogQL regexes are Go `regexp` (RE2 syntax, leftmost-first matching). JavaScript's RegExp is
 * also leftmost-first, but its syntax and character semantics differ: `(?P<name>`, inline flag
 * groups `(?i:...)`, `\z`, `\A`, `\Q...\E`, POSIX classes, `\pGreek`, octal escapes; Go's `\s`
 * is ASCII-only, `.` excludes only `\n`, `$` never matches before a final newline. This module
 * parses the Go syntax, reports invalid patterns with Go's own error text, and emits an
 * equivalent JS pattern (with the `u` flag; case-insensitivity is expanded per character so that
 * scoped flags work).
 */

import { BoundedMap } from "../util/bounded-map";

export class GoRegexError extends Error {
  override readonly name = "GoRegexError";
}

export interface CompileOptions {
  /** Match the whole input, as Prometheus label matchers and Loki label filters do. */
  anchored?: boolean;
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
}

/** A compiled pattern holds several times its source. */
const cache = new BoundedMap<RegExp>(512, 4 * 1024 * 1024, (re) => 8 * re.source.length);

/**
 * Compiles a Go regular expression into an equivalent JS RegExp. Throws GoRegexError whose
 * message is Go's (`error parsing regexp: missing closing ): ...`).
 */
export function compileGoRegex(src: string, opts?: CompileOptions): RegExp {
  const key = (opts?.anchored ? "A" : "U") + src;
  const hit = cache.get(key);
  if (hit) {
    hit.lastIndex = 0;
    return hit;
  }
  const body = translateGoRegex(src);
  const re = new RegExp(opts?.anchored ? `^(?:${body})$` : body, "u");
  cache.set(key, re);
  return re;
}

/** Checks a Go regular expression; returns Go's error message or undefined when valid. */
export function goRegexError(src: string): string | undefined {
  try {
    translateGoRegex(src);
    return undefined;
  } catch (e) {
    if (e instanceof GoRegexError) return e.message;
    throw e;
  }
}

/** Names of the named capture groups, in order (`(?P<name>...)` and `(?<name>...)`). */
export function goRegexGroupNames(src: string): string[] {
  const t = new Translator(src);
  t.run();
  return t.names;
}

/** The group number of each named capture group (groups count by opening parenthesis, from 1). */
export function goRegexGroupNumbers(src: string): Map<string, number> {
  const t = new Translator(src);
  t.run();
  return t.numbers;
}

export function translateGoRegex(src: string): string {
  const t = new Translator(src);
  return t.run();
}

/**
 * Go's regexp/syntax budget: 128 MiB of compiled program at 40 bytes an instruction. The size of
 * a pattern is counted as Go counts it (a literal character 1, a capture 2 plus its body, `x{n,m}`
 * m copies plus m−n, ...).
 */
const MAX_PROGRAM_SIZE = Math.floor((128 << 20) / 40);

/** What the size and repeat checks need to know of a parsed piece of pattern. */
interface Shape {
  size: number;
  /** The outermost counted repetitions inside it. */
  reps: RepeatNode[];
}

interface RepeatNode {
  /** The copies Go counts: the maximum, or the minimum of an unbounded `{n,}`. */
  copies: number;
  inner: RepeatNode[];
}

const ONE_INSTRUCTION: Shape = { size: 1, reps: [] };

/** Go's repeatIsValid: no path of nested counted repetitions makes more than `n` copies. */
function repeatIsValid(node: RepeatNode, n: number): boolean {
  if (node.copies === 0) return true;
  if (node.copies > n) return false;
  const left = Math.floor(n / node.copies);
  return node.inner.every((sub) => repeatIsValid(sub, left));
}

const fail = (code: string, expr: string): never => {
  throw new GoRegexError(`error parsing regexp: ${code}: \`${expr}\``);
};

const PERL_CLASSES: Record<string, string> = {
  d: "0-9",
  w: "0-9A-Za-z_",
  s: "\\t\\n\\f\\r ",
};

const POSIX_CLASSES: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`\\{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** Unicode general categories Go accepts in `\p{...}`. */
const CATEGORIES = new Set([
  "C",
  "Cc",
  "Cf",
  "Co",
  "Cs",
  "L",
  "Ll",
  "Lm",
  "Lo",
  "Lt",
  "Lu",
  "M",
  "Mc",
  "Me",
  "Mn",
  "N",
  "Nd",
  "Nl",
  "No",
  "P",
  "Pc",
  "Pd",
  "Pe",
  "Pf",
  "Pi",
  "Po",
  "Ps",
  "S",
  "Sc",
  "Sk",
  "Sm",
  "So",
  "Z",
  "Zl",
  "Zp",
  "Zs",
]);

function unicodeClass(name: string): string | undefined {
  if (name === "Any") return "\\s\\S";
  if (CATEGORIES.has(name)) return `\\p{${name}}`;
  try {
    new RegExp(`\\p{Script=${name}}`, "u");
    return `\\p{Script=${name}}`;
  } catch {
    return undefined;
  }
}

/*
 * Anchors. The JS pattern never has the `m` flag, so `^` and `$` are text anchors (Go's `\A`, `\z`).
 * Line anchors are positive lookarounds: V8 also tries empty matches between the two halves of a
 * surrogate pair, where a negative lookaround such as `(?![^\n])` would succeed inside a character.
 */
const LINE_START = "(?:^|(?<=\\n))";
const LINE_END = "(?:$|(?=\\n))";
/** `\B` spelled with positive lookarounds, for the same reason. */
const NOT_WORD_BOUNDARY = "(?:(?<=\\w)(?=\\w)|(?:^|(?<=\\W))(?:$|(?=\\W)))";

const SYNTAX_CHARS = new Set([..."^$\\.*+?()[]{}|/"]);

function escapeChar(c: string): string {
  if (SYNTAX_CHARS.has(c)) return "\\" + c;
  const cp = c.codePointAt(0)!;
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).padStart(2, "0")}`;
  return c;
}

/** The characters a case-insensitive match of `c` accepts (simple case folding). */
function caseVariants(c: string): string[] {
  const out = new Set([c, c.toLowerCase(), c.toUpperCase()]);
  if (c === "k" || c === "K") out.add("\u212a");
  if (c === "s" || c === "S") out.add("\u017f");
  return [...out].filter((x) => [...x].length === 1);
}

class Translator {
  private i = 0;
  readonly names: string[] = [];
  readonly numbers = new Map<string, number>();
  private captures = 0;
  private depth = 0;
  /** Go's size and repeats of the atom just parsed (set by group(); undefined means one instruction). */
  private atomShape: Shape | undefined;

  constructor(private readonly src: string) {}

  run(): string {
    const out = this.alternation({ i: false, m: false, s: false, U: false }, true);
    if (this.i < this.src.length) fail("unexpected )", this.src);
    return out;
  }

  private peek(): string {
    if (this.i >= this.src.length) return "";
    return String.fromCodePoint(this.src.codePointAt(this.i)!);
  }

  private take(): string {
    const c = this.peek();
    this.i += c.length;
    return c;
  }

  /** Alternatives until `)` or the end. `flags` may be changed by `(?i)` for the rest of the group. */
  private alternation(flags: Flags, top: boolean): string {
    if (++this.depth > 1000) fail("expression nests too deeply", this.src);
    const alts: string[] = [];
    let cur = "";
    let lastAtom:
      { start: number; out: string; repeated: boolean; srcStart: number; opStart: number; shape: Shape } | undefined;
    // Go's accounting of the alternatives: their sizes, and the repeats anywhere inside.
    const altSizes: number[] = [];
    let curSize = 0;
    const reps: RepeatNode[] = [];
    const f = { ...flags };
    for (;;) {
      const c = this.peek();
      if (c === "") {
        if (!top) fail("missing closing )", this.src);
        break;
      }
      if (c === ")") {
        if (top) fail("unexpected )", this.src);
        break;
      }
      if (c === "|") {
        this.take();
        alts.push(cur);
        cur = "";
        lastAtom = undefined;
        altSizes.push(Math.max(1, curSize));
        curSize = 0;
        continue;
      }
      const opStart = this.i;
      const rep = this.repetition();
      if (rep !== undefined) {
        const opText = this.src.slice(opStart, this.i);
        if (lastAtom === undefined) fail("missing argument to repetition operator", opText);
        if (lastAtom!.repeated) fail("invalid nested repetition operator", this.src.slice(lastAtom!.opStart, this.i));
        let lazy = false;
        if (this.peek() === "?") {
          this.take();
          lazy = true;
        }
        if (f.U) lazy = !lazy;
        const shape = this.repeatShape(lastAtom!.shape, opText);
        curSize += shape.size - lastAtom!.shape.size;
        reps.length -= lastAtom!.shape.reps.length;
        reps.push(...shape.reps);
        cur = cur.slice(0, lastAtom!.start) + `(?:${lastAtom!.out})` + rep + (lazy ? "?" : "");
        lastAtom = {
          start: lastAtom!.start,
          out: cur.slice(lastAtom!.start),
          repeated: true,
          srcStart: lastAtom!.srcStart,
          opStart,
          shape,
        };
        continue;
      }
      if (this.src.startsWith("\\Q", this.i)) {
        // `\Q...\E` is a run of literal characters: a repetition after it applies to the last one.
        const chars = this.quoted();
        if (chars.length === 0) continue;
        const last = chars.pop()!;
        cur += chars.map((ch) => this.literal(ch, f)).join("");
        lastAtom = {
          start: cur.length,
          out: this.literal(last, f),
          repeated: false,
          srcStart: opStart,
          opStart: this.i,
          shape: ONE_INSTRUCTION,
        };
        cur += lastAtom.out;
        curSize += chars.length + 1;
        continue;
      }
      const atomSrcStart = this.i;
      this.atomShape = undefined;
      const atom = this.atom(f);
      if (atom === undefined) {
        // A flag-only group like `(?i)`: changes flags, emits nothing, cannot be repeated.
        lastAtom = undefined;
        continue;
      }
      const shape = this.atomShape ?? ONE_INSTRUCTION;
      lastAtom = { start: cur.length, out: atom, repeated: false, srcStart: atomSrcStart, opStart: this.i, shape };
      cur += atom;
      curSize += shape.size;
      reps.push(...shape.reps);
    }
    alts.push(cur);
    altSizes.push(Math.max(1, curSize));
    const size = altSizes.reduce((a, b) => a + b, 0) + altSizes.length - 1;
    this.checkSize(size);
    this.atomShape = { size, reps };
    this.depth--;
    return alts.join("|");
  }

  /**
   * Go's parser refuses a program it could not compile within its memory budget (`expression too
   * large`), counting instructions the way its compiler will emit them.
   */
  private checkSize(size: number): void {
    if (size > MAX_PROGRAM_SIZE) fail("expression too large", this.src);
  }

  /**
   * The shape of `sub` under the repetition operator `op`. Go's parser also refuses nested counted
   * repetitions whose product exceeds 1000 copies (`(a{1000}){1000}`), naming the outer operator.
   */
  private repeatShape(sub: Shape, op: string): Shape {
    if (op === "*") return { size: 2 + sub.size, reps: sub.reps };
    if (op === "+" || op === "?") return { size: 1 + sub.size, reps: sub.reps };
    const m = /^\{(\d+)(,(\d*))?\}/.exec(op)!;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === "" ? -1 : Number(m[3]);
    const node: RepeatNode = { copies: max === -1 ? min : max, inner: sub.reps };
    if ((min >= 2 || max >= 2) && !repeatIsValid(node, 1000)) fail("invalid repeat count", op);
    const size = max === -1 ? (min === 0 ? 2 + sub.size : 1 + min * sub.size) : max * sub.size + (max - min);
    this.checkSize(size);
    return { size, reps: [node] };
  }

  /** A repetition operator at the cursor, as JS text, or undefined (cursor unchanged). */
  private repetition(): string | undefined {
    const c = this.peek();
    if (c === "*" || c === "+" || c === "?") {
      this.take();
      return c;
    }
    if (c !== "{") return undefined;
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
    if (!m) return undefined;
    const lo = Number(m[1]);
    const hi = m[3] === undefined || m[3] === "" ? undefined : Number(m[3]);
    if (lo > 1000 || (hi !== undefined && (hi > 1000 || hi < lo))) fail("invalid repeat count", m[0]);
    this.i += m[0].length;
    return m[2] === undefined ? `{${lo}}` : hi === undefined ? `{${lo},}` : `{${lo},${hi}}`;
  }

  private atom(f: Flags): string | undefined {
    const start = this.i;
    const c = this.take();
    switch (c) {
      case "(":
        return this.group(f, start);
      case "[":
        return this.charClass(f, start);
      case ".":
        return f.s ? "[\\s\\S]" : "[^\\n]";
      case "^":
        return f.m ? LINE_START : "^";
      case "$":
        return f.m ? LINE_END : "$";
      case "\\":
        return this.escape(f, start, false).out;
      default:
        return this.literal(c, f);
    }
  }

  /** The characters of `\Q...\E` (cursor at the backslash); an unterminated one runs to the end. */
  private quoted(): string[] {
    const from = this.i + 2;
    const end = this.src.indexOf("\\E", from);
    this.i = end < 0 ? this.src.length : end + 2;
    return [...this.src.slice(from, end < 0 ? this.src.length : end)];
  }

  private literal(c: string, f: Flags): string {
    if (!f.i) return escapeChar(c);
    const v = caseVariants(c);
    if (v.length === 1) return escapeChar(c);
    return "[" + v.map(escapeClassChar).join("") + "]";
  }

  private group(f: Flags, start: number): string | undefined {
    const rest = this.src.slice(this.i);
    let name: string | undefined;
    let inner: Flags = f;
    if (rest.startsWith("?")) {
      const named = /^\?P?<([^>]*)>/.exec(rest);
      if (rest.startsWith("?P<") || rest.startsWith("?<")) {
        if (!named) fail("invalid named capture", this.src.slice(start));
        const nm = named![1]!;
        if (!/^[A-Za-z0-9_]+$/.test(nm) || this.names.includes(nm))
          fail("invalid named capture", this.src.slice(start, this.i + named![0].length));
        name = nm;
        this.i += named![0].length;
      } else if (rest.startsWith("?P")) {
        fail("invalid or unsupported Perl syntax", this.src.slice(start, this.i + 2));
      } else {
        // Flags: (?flags) or (?flags:re)
        const m = /^\?([imsU]*)(?:-([imsU]*))?([:)])/.exec(rest);
        if (!m || (m[2] !== undefined && m[2] === "") || (m[1] === "" && m[2] === undefined && m[3] === ")")) {
          const bad = /^\?[^:)]*.?/.exec(rest)?.[0] ?? "?";
          fail("invalid or unsupported Perl syntax", this.src.slice(start, this.i + Math.min(bad.length, rest.length)));
        }
        const nf: Flags = { ...f };
        for (const ch of m![1]!) nf[ch as keyof Flags] = true;
        for (const ch of m![2] ?? "") nf[ch as keyof Flags] = false;
        this.i += m![0].length;
        if (m![3] === ")") {
          Object.assign(f, nf);
          return undefined;
        }
        inner = nf;
      }
    }
    const capturing = name !== undefined || !rest.startsWith("?");
    const number = capturing ? ++this.captures : 0;
    const body = this.alternation(inner, false);
    this.take(); // ")"
    // A capture costs two instructions around its body.
    if (capturing) this.atomShape = { size: 2 + this.atomShape!.size, reps: this.atomShape!.reps };
    if (name !== undefined) {
      this.names.push(name);
      this.numbers.set(name, number);
      const jsName = /^[A-Za-z_]/.test(name) ? name : `_${name}`;
      return `(?<${jsName}>${body})`;
    }
    if (rest.startsWith("?")) return `(?:${body})`;
    return `(${body})`;
  }

  /**
   * An escape after `\` (cursor past the backslash). Returns JS text usable outside a class
   * (`out`) and, when it denotes characters, text usable inside a class (`cls`).
   */
  private escape(f: Flags, start: number, inClass: boolean): { out: string; cls?: string; char?: string } {
    const c = this.take();
    if (c === "") fail("trailing backslash at end of expression", "");
    switch (c) {
      case "d":
      case "w":
      case "s":
        return { out: `[${PERL_CLASSES[c]}]`, cls: PERL_CLASSES[c] };
      case "D":
      case "W":
      case "S": {
        const pos = PERL_CLASSES[c.toLowerCase()]!;
        return { out: `[^${pos}]`, cls: negatedClassPiece(pos) };
      }
      case "p":
      case "P": {
        let nm: string;
        if (this.peek() === "{") {
          const close = this.src.indexOf("}", this.i);
          if (close < 0) fail("invalid character class range", this.src.slice(start));
          nm = this.src.slice(this.i + 1, close);
          this.i = close + 1;
        } else {
          nm = this.take();
          if (nm === "") fail("invalid character class range", this.src.slice(start));
        }
        let neg = c === "P";
        if (nm.startsWith("^")) {
          neg = !neg;
          nm = nm.slice(1);
        }
        const cls = unicodeClass(nm);
        if (cls === undefined) fail("invalid character class range", this.src.slice(start, this.i));
        if (cls === "\\s\\S") return neg ? { out: "[^\\s\\S]", cls: "" } : { out: "[\\s\\S]", cls };
        const piece = neg ? cls!.replace("\\p", "\\P") : cls!;
        return { out: `[${piece}]`, cls: piece };
      }
      case "A":
        if (!inClass) return { out: "^" };
        break;
      case "z":
        if (!inClass) return { out: "$" };
        break;
      case "b":
        if (!inClass) return { out: "\\b" };
        break;
      case "B":
        if (!inClass) return { out: NOT_WORD_BOUNDARY };
        break;
      case "a":
        return this.charEscape("\x07", f);
      case "f":
        return this.charEscape("\f", f);
      case "t":
        return this.charEscape("\t", f);
      case "n":
        return this.charEscape("\n", f);
      case "r":
        return this.charEscape("\r", f);
      case "v":
        return this.charEscape("\v", f);
      case "x": {
        let hex: string;
        if (this.peek() === "{") {
          const close = this.src.indexOf("}", this.i);
          hex = close < 0 ? "" : this.src.slice(this.i + 1, close);
          if (close < 0 || !/^[0-9a-fA-F]+$/.test(hex) || parseInt(hex, 16) > 0x10ffff) {
            fail("invalid escape sequence", this.src.slice(start, close < 0 ? this.src.length : close + 1));
          }
          this.i = close + 1;
        } else {
          hex = this.src.slice(this.i, this.i + 2);
          if (!/^[0-9a-fA-F]{2}$/.test(hex))
            fail("invalid escape sequence", this.src.slice(start, Math.min(this.src.length, this.i + 2)));
          this.i += 2;
        }
        return this.charEscape(String.fromCodePoint(parseInt(hex, 16)), f);
      }
      default:
        break;
    }
    if (c >= "0" && c <= "7") {
      // `\0`, `\012`: octal. A lone non-zero digit would be a backreference, which RE2 lacks.
      let digits = c;
      if (c !== "0" && !/[0-7]/.test(this.peek())) fail("invalid escape sequence", this.src.slice(start, this.i));
      while (digits.length < 3 && /[0-7]/.test(this.peek())) digits += this.take();
      return this.charEscape(String.fromCodePoint(parseInt(digits, 8)), f);
    }
    const cp = c.codePointAt(0)!;
    if (cp < 0x80 && !/[0-9A-Za-z]/.test(c)) return this.charEscape(c, f);
    return fail("invalid escape sequence", this.src.slice(start, this.i));
  }

  private charEscape(ch: string, f: Flags): { out: string; cls: string; char: string } {
    return { out: this.literal(ch, f), cls: escapeClassChar(ch), char: ch };
  }

  private charClass(f: Flags, start: number): string {
    let neg = false;
    if (this.peek() === "^") {
      this.take();
      neg = true;
    }
    const pieces: string[] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === "") fail("missing closing ]", this.src.slice(start));
      if (c === "]" && !first) {
        this.take();
        break;
      }
      first = false;
      // POSIX class [:alpha:]
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.i));
      if (posix) {
        const body = POSIX_CLASSES[posix[2]!];
        if (body === undefined) fail("invalid character class range", posix[0]);
        this.i += posix[0].length;
        pieces.push(posix[1] ? negatedClassPiece(body!) : body!);
        continue;
      }
      const loStart = this.i;
      const lo = this.classChar(f);
      if (lo.char === undefined) {
        pieces.push(lo.cls);
        continue;
      }
      if (this.peek() === "-" && this.src[this.i + 1] !== "]" && this.src[this.i + 1] !== undefined) {
        this.take();
        const hi = this.classChar(f);
        if (hi.char === undefined || hi.char.codePointAt(0)! < lo.char.codePointAt(0)!) {
          fail("invalid character class range", this.src.slice(loStart, this.i));
        }
        pieces.push(this.rangePiece(lo.char, hi.char!, f));
        continue;
      }
      pieces.push(f.i ? caseVariants(lo.char).map(escapeClassChar).join("") : lo.cls);
    }
    const body = pieces.join("");
    if (body === "") return neg ? "[\\s\\S]" : "[^\\s\\S]";
    return `[${neg ? "^" : ""}${body}]`;
  }

  private classChar(f: Flags): { cls: string; char?: string } {
    const start = this.i;
    const c = this.take();
    if (c === "\\") {
      const e = this.escape(f, start, true);
      if (e.char !== undefined) return { cls: e.cls!, char: e.char };
      return { cls: e.cls ?? "" };
    }
    return { cls: escapeClassChar(c), char: c };
  }

  private rangePiece(lo: string, hi: string, f: Flags): string {
    let out = `${escapeClassChar(lo)}-${escapeClassChar(hi)}`;
    if (!f.i) return out;
    const a = lo.codePointAt(0)!;
    const b = hi.codePointAt(0)!;
    if (b - a > 2000) return out;
    const extra = new Set<string>();
    for (let cp = a; cp <= b; cp++) {
      for (const v of caseVariants(String.fromCodePoint(cp))) {
        const vc = v.codePointAt(0)!;
        if (vc < a || vc > b) extra.add(v);
      }
    }
    for (const v of extra) out += escapeClassChar(v);
    return out;
  }
}

function escapeClassChar(c: string): string {
  if (
    c === "\\" ||
    c === "]" ||
    c === "[" ||
    c === "^" ||
    c === "-" ||
    c === "/" ||
    c === "{" ||
    c === "}" ||
    c === "|" ||
    c === "(" ||
    c === ")"
  )
    return "\\" + c;
  const cp = c.codePointAt(0)!;
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).padStart(2, "0")}`;
  return c;
}

/**
 * A class piece matching everything outside an ASCII class body like `0-9A-Za-z_` (for `\D`,
 * `\W`, `\S` and `[:^alpha:]` inside brackets).
 */
function negatedClassPiece(body: string): string {
  const ranges: Array<[number, number]> = [];
  const re = /(\\x[0-9A-Fa-f]{2}|\\.|.)(?:-(\\x[0-9A-Fa-f]{2}|\\.|.))?/gsu;
  const decode = (t: string): number => {
    if (t.startsWith("\\x")) return parseInt(t.slice(2), 16);
    if (t === "\\t") return 9;
    if (t === "\\n") return 10;
    if (t === "\\v") return 11;
    if (t === "\\f") return 12;
    if (t === "\\r") return 13;
    if (t.startsWith("\\")) return t.codePointAt(1)!;
    return t.codePointAt(0)!;
  };
  for (const m of body.matchAll(re)) {
    const lo = decode(m[1]!);
    const hi = m[2] !== undefined ? decode(m[2]) : lo;
    ranges.push([lo, hi]);
  }
  ranges.sort((x, y) => x[0] - y[0]);
  const out: string[] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push(`\\u{${next.toString(16)}}-\\u{${(lo - 1).toString(16)}}`);
    next = Math.max(next, hi + 1);
  }
  out.push(`\\u{${next.toString(16)}}-\\u{10ffff}`);
  return out.join("");
}

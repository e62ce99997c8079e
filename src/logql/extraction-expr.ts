/**
 * The expressions of `| json a="b.c[0]"` and `| logfmt a="b"`: Loki parses each with a small
 * grammar of its own when it builds the pipeline, and answers one it cannot parse with a 400
 * naming the stage. These readers follow the same tokens and the same one-error-then-stop parse,
 * so the message is Loki's word for word (`syntax error: unexpected $end, expecting STRING or
 * INDEX`), and a json path reads exactly as Loki reads it.
 */

/** One step of a json path: an object key or an array index. */
export type JsonPathStep = string | number;

export type JsonPathParse = { ok: true; steps: JsonPathStep[] } | { ok: false; error: string };

type JsonToken =
  { t: "$end" } | { t: "DOT" | "LSB" | "RSB" } | { t: "FIELD" | "STRING"; text: string } | { t: "INDEX"; n: number };

const START = /[A-Za-z_]/;
const IDENT = /[A-Za-z0-9_]/;
const DIGIT = /[0-9]/;
const SPACE = /[ \t\n]/;

/**
 * Characters of an expression as Loki's reader sees them: a NUL ends the input. Tokens are read
 * one at a time, as the parser asks for them; a character no token starts with ends the input too,
 * leaving its error behind (reported unless the parse fails on that end first).
 */
class Reader {
  private i = 0;
  /** The lexer's own error, overwritten by a syntax error if the parse fails after it. */
  error: string | undefined;
  private readonly chars: string[];

  constructor(expr: string) {
    const nul = expr.indexOf("\u0000");
    this.chars = [...(nul === -1 ? expr : expr.slice(0, nul))];
  }

  private peek(): string {
    return this.chars[this.i] ?? "";
  }

  private fail(message: string): { t: "$end" } {
    this.error = message;
    this.i = this.chars.length;
    return { t: "$end" };
  }

  private skipSpace(): string {
    while (SPACE.test(this.peek()) && this.peek() !== "") this.i++;
    return this.peek();
  }

  private word(): string {
    let s = "";
    while (IDENT.test(this.peek()) && this.peek() !== "") s += this.chars[this.i++];
    return s;
  }

  /** `"…"`: up to the next `"` or `]` (which it consumes) or the end; no escapes. */
  private quoted(): string {
    this.i++;
    let s = "";
    for (;;) {
      const c = this.peek();
      if (c === "") return s;
      this.i++;
      if (c === '"' || c === "]") return s;
      s += c;
    }
  }

  jsonToken(): JsonToken {
    const c = this.skipSpace();
    if (c === "") return { t: "$end" };
    if (DIGIT.test(c)) {
      // An index runs to a space, `.` or `]`; the end of input or any other character is an error.
      let digits = "";
      for (;;) {
        const d = this.peek();
        if (d === "." && digits !== "") return this.fail("cannot use float as array index");
        if (d !== "" && (SPACE.test(d) || d === "." || d === "]")) break;
        if (!DIGIT.test(d) || d === "") return this.fail(`non-integer value: ${d === "" ? "\u0000" : d}`);
        digits += d;
        this.i++;
      }
      const n = BigInt(digits);
      if (n > 2n ** 63n - 1n) return this.fail(`strconv.Atoi: parsing "${digits}": value out of range`);
      return { t: "INDEX", n: Number(n) };
    }
    if (c === "[" || c === "]" || c === ".") {
      this.i++;
      return { t: c === "[" ? "LSB" : c === "]" ? "RSB" : "DOT" };
    }
    if (START.test(c)) return { t: "FIELD", text: this.word() };
    if (c === '"') return { t: "STRING", text: this.quoted() };
    return this.fail(`unexpected char ${c}`);
  }

  logfmtToken(): { t: "$end" } | { t: "KEY" | "STRING"; text: string } {
    const c = this.skipSpace();
    if (c === "") return { t: "$end" };
    if (START.test(c)) return { t: "KEY", text: this.word() };
    if (c === '"') return { t: "STRING", text: this.quoted() };
    return this.fail(`unexpected char ${c}`);
  }
}

/**
 * Parses a json expression: `field`, `[“key”]` or `[index]`, then any of `.field`, `[“key”]`,
 * `[index]`. Errors are Loki's (without the `cannot parse expression [...]` wrapper).
 */
export function parseJsonExpression(expr: string): JsonPathParse {
  const r = new Reader(expr);
  const steps: JsonPathStep[] = [];
  // The parser's states: what may come next, and how Loki words a token that does not fit.
  type State = "start" | "bracket" | "close" | "after" | "dot";
  const expecting: Record<State, string> = {
    start: ", expecting LSB or FIELD",
    bracket: ", expecting STRING or INDEX",
    close: ", expecting RSB",
    after: "",
    dot: ", expecting FIELD",
  };
  let state: State = "start";
  for (;;) {
    const tok = r.jsonToken();
    let next: State | undefined;
    if (state === "start" || state === "after") {
      if (tok.t === "LSB") next = "bracket";
      else if (tok.t === "FIELD" && state === "start") next = "after";
      else if (tok.t === "DOT" && state === "after") next = "dot";
      else if (tok.t === "$end" && state === "after") {
        return r.error === undefined ? { ok: true, steps } : { ok: false, error: r.error };
      }
    } else if (state === "bracket") {
      if (tok.t === "STRING" || tok.t === "INDEX") next = "close";
    } else if (state === "close") {
      if (tok.t === "RSB") next = "after";
    } else if (tok.t === "FIELD") {
      next = "after";
    }
    if (next === undefined) return { ok: false, error: `syntax error: unexpected ${tok.t}${expecting[state]}` };
    if (tok.t === "FIELD" || tok.t === "STRING") steps.push(tok.text);
    else if (tok.t === "INDEX") steps.push(tok.n);
    state = next;
  }
}

/** Checks a logfmt expression (a key, or quoted keys): Loki's error, or undefined when it parses. */
export function logfmtExpressionError(expr: string): string | undefined {
  const r = new Reader(expr);
  // A key may only come first; quoted keys may follow.
  for (let first = true; ; first = false) {
    const tok = r.logfmtToken();
    if (tok.t === "$end") return first ? "syntax error: unexpected $end, expecting STRING or KEY" : r.error;
    if (tok.t === "KEY" && !first) return "syntax error: unexpected KEY";
  }
}

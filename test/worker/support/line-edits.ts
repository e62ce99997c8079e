/**
 * Random edits of a log line, for the push-down properties over malformed lines: a token inserted,
 * a character removed, or the value after a `:` or `=` replaced by the token (up to the next `,`,
 * `}` or space). Each property brings its own tokens, the text its readers may take differently.
 */
import fc from "fast-check";

/**
 * Tokens of the lines' syntax, which a reader may take otherwise once out of place: quotes and
 * escapes, JSON's brackets and separators, logfmt's `=`, whitespace Loki and VictoriaLogs trim
 * differently, U+FFFD, and the empty-value mark's character.
 */
export const SYNTAX_TOKENS: readonly string[] = [
  '"',
  "\\",
  '\\"',
  ",",
  "}",
  "{",
  "[",
  "]",
  ":",
  " ",
  "\t",
  "\n",
  "=",
  '""',
  "\u00a0",
  "\ufffd",
  "\u0001",
];

export interface LineEdit {
  at: number;
  token: string;
  kind: "insert" | "remove" | "value";
}

/** One edit with a token among `tokens`, at a position `at` picks modulo the line's length. */
export const lineEdit = (tokens: readonly string[]): fc.Arbitrary<LineEdit> =>
  fc.record({
    at: fc.nat(),
    token: fc.constantFrom(...tokens),
    kind: fc.constantFrom("insert", "remove", "value"),
  });

/** `line` with the edit applied. */
export function editedLine(line: string, e: LineEdit): string {
  if (e.kind === "value") {
    const seps = [...line].flatMap((c, i) => (c === ":" || c === "=" ? [i + 1] : []));
    if (seps.length === 0) return line;
    const from = seps[e.at % seps.length]!;
    const to = line.slice(from).search(/[,} ]/);
    return line.slice(0, from) + e.token + (to < 0 ? "" : line.slice(from + to));
  }
  const i = e.at % (line.length + 1);
  return e.kind === "remove" ? line.slice(0, i) + line.slice(i + 1) : line.slice(0, i) + e.token + line.slice(i);
}

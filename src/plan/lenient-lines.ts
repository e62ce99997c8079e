/**
 * Lines VictoriaLogs reads further than Loki's parsers: the guard terms that find them, shared by
 * the push-downs over `| json` and `| logfmt` (parser-pushdown.ts, unwrap-pushdown.ts).
 */
import { opensWith, quote } from "./logsql";

/**
 * U+212A KELVIN SIGN, which the guard's wide negated classes leave out: VictoriaLogs (v1.121) prints
 * each filter regex while simplifying it, and Go's printer then case-folds every character of a class
 * that case folding maps into itself (`[^\\]`: some 125,000 of them), 10 to 30 ms of the origin's
 * CPU per regex, per query, before any row is read. Without the Kelvin sign, which folds to `K`, a
 * class is not closed and prints at once. Those regexes then match fewer lines, only lines holding
 * the sign, which the guard matches whole (`_msg:~KELVIN`, a substring search).
 */
export const KELVIN = String.raw`\x{212A}`;
/**
 * A JSON line holds an escape JSON does not define: a backslash after an even run of them, so that
 * `\\x` — an escaped backslash, then `x` — is not one. The precise regex runs only on lines the
 * plain one matches (Windows paths, `back\\slash`): it reads the line's escapes from its start,
 * each backslash with the character after it, as a JSON reader does, where a regex searching every
 * position for an odd run cost the origin twice as much (20 µs on a 300-byte line). A Kelvin sign
 * before the escape ends it early: such lines are the guard's whole (KELVIN). (Raw control characters
 * need no line-level term: inside strings both sides keep them, and a used value holding one is
 * guarded; outside strings both parsers stop, and a used key read before is caught as one
 * VictoriaLogs did not extract; JSON's whitespace before a value is in LENIENT_NUMBER.)
 */
export const JSON_ODD_ESCAPE = [
  String.raw`\\[^"\\/bfnrtu]`,
  String.raw`^[^\\${KELVIN}]*\\(?:["\\/bfnrtu][^\\${KELVIN}]*\\)*[^"\\/bfnrtu]`,
];
/**
 * A member value VictoriaLogs reads as a number and Loki's scanner rejects (it takes any token
 * starting with a digit or `-` as a number, and arrays unread): `+1`, `.5`, `NaN`, `Inf`, `inf`,
 * `nan`, and `e5` or `E` (VictoriaLogs' reader takes any run of digits, `.`, `+`, `-`, `e` and `E`
 * for a number, whatever it starts with). Three regexes, each tried on the lines the one before
 * matched:
 * - a `:` followed by a space or by one of those first characters (`null` too). The origin tests a
 *   literal-led class of single characters by comparing each of them at every `:` of the line; led
 *   by `: *`, it ran a regex there instead, a fifth of the whole query's cost on a JSON field panel;
 * - one of them after the colon and any whitespace (spaced JSON, `"a": 1`, passes the first);
 * - the colon after a key's closing quote: text in a value such as `"error: EOF"` is not a member.
 */
export const LENIENT_NUMBER = [
  String.raw`:[\t\n\r +.NIineE]`,
  String.raw`:[\t\n\r ]*(?:[+.NIieE]|n[aA])`,
  String.raw`"[\t\n\r ]*:[\t\n\r ]*(?:[+.NIieE]|n[aA])`,
];
/** Lines VictoriaLogs may read as a JSON object (its reader skips leading whitespace). */
export const JSON_OBJECT_LINE = opensWith("_msg", "{", String.raw`\x00-\x20`);

/** Lines matching every regex: each a cheap superset of the ones after it. */
export function gated(regexes: readonly string[]): string {
  return `(${regexes.map((r) => `_msg:~${quote(r)}`).join(" ")})`;
}

/**
 * JSON lines on which VictoriaLogs may read keys where Loki's parser stopped or failed (an escape
 * JSON does not define, a value only VictoriaLogs reads as a number), or that the precise regexes
 * leave out (KELVIN): on such a line any value may differ, and Loki's may come with a parser error.
 */
export const JSON_READ_FURTHER = `_msg:~${quote(KELVIN)} or (${JSON_OBJECT_LINE} (${gated(JSON_ODD_ESCAPE)} or ${gated(LENIENT_NUMBER)}))`;

/**
 * Lines `decolorize` may change: it removes ANSI sequences, which start with ESC or the 8-bit CSI
 * (engine/pipeline/shaping.ts); a line holding neither is left as it is.
 */
export const ANSI_LINES = `_msg:~${quote(String.raw`[\x1b\x{9b}]`)}`;

/**
 * JSON lines whose `\u` escapes may make VictoriaLogs read another key or value than Loki.
 *
 * Encoders escape as a matter of course: Go's encoding/json writes `&`, `<`, `>`, U+2028 and U+2029
 * as `\u0026`, `\u003c`, `\u003e`, `\u2028`, `\u2029` (so every line holding a URL with a query
 * string has one), and Python's json.dumps writes every non-ASCII character as `\uXXXX`. Treating
 * every line with an escape as unsure sent such a service's panels back to row-by-row evaluation.
 *
 * In a value both sides decode an escape to the same character, except:
 * - a surrogate (`\uD800`–`\uDFFF`) not in a pair of a high one and a low one: Loki rejects it (a
 *   bad escape), VictoriaLogs writes U+FFFD or keeps the escape's text. A pair (Python's way of
 *   writing an emoji) decodes to the same character on both sides. Where a backslash comes before
 *   a surrogate's (`\\uD83D`, an escaped backslash and text) the line is unsure as a whole:
 *   telling escaped backslashes apart is not worth its regex;
 * - U+FFFD, which Loki removes from a value (a raw one too);
 * - a control character (`\u0000`–`\u001F`), which the guards read as a character of the value.
 * - a `\u` without four hex digits, which Loki reads as a bad escape (the value empty, the key an
 *   error) and VictoriaLogs keeps as it is.
 * In a key any escape may matter: decoded, `\u0020` or `\u2028` is space Loki's key trimming
 * removes, `\u0026` a character its sanitising turns into `_`, `\u0067` a letter of the name, and
 * the guards that look for a key in the line's text match its spelled-out characters only. A key
 * is a string followed by `:`; from an escape, JSON's string syntax finds the string's end.
 */
import { quote } from "./logsql";

/**
 * The negated classes leave out U+212A (Kelvin sign): a negated class that case folding maps into
 * itself costs VictoriaLogs (v1.121) 10 to 30 ms of CPU per query to print while it simplifies the
 * regex. A line with an escape and the sign is matched whole instead.
 */
const KELVIN = String.raw`\x{212A}`;

/**
 * Cheap: any `\u` or U+FFFD. Precise: one of the cases above but surrogates, each a regex of its
 * own: led by a literal, each costs the origin a substring search, where their alternation, led by
 * none, cost a regex scan of every line with an escape (Python's lines: 52 ms of a 240 ms panel).
 */
const GATE = String.raw`\\u|\x{FFFD}`;
const PRECISE = [
  String.raw`\x{FFFD}`,
  String.raw`\\u(?:00[01]|[fF][fF][fF][dD])`,
  String.raw`\\u[0-9a-fA-F]{0,3}(?:[^0-9a-fA-F\x{212A}]|$)`,
  String.raw`\\u[0-9a-fA-F]{4}(?:[^"\\\x{212A}]|\\.)*"\s*:`,
];

/** Cheap: any surrogate's escape. Precise: one not in a pair, or after a backslash. */
const SURROGATE = String.raw`\\u[dD][89a-fA-F]`;
const HIGH = String.raw`\\u[dD][89abAB][0-9a-fA-F]{2}`;
const LOW = String.raw`\\u[dD][c-fC-F]`;
/**
 * Each its own regex, most led by a literal (see PRECISE). A short escape next to a surrogate's is
 * PRECISE's to match.
 */
const LONE_SURROGATE = [
  String.raw`\\\\u[dD]`,
  // A high one not followed by a low one's escape.
  String.raw`${HIGH}(?:$|[^\\${KELVIN}]|\\[^u${KELVIN}]|\\u(?:[^dD${KELVIN}]|[dD][^c-fC-F${KELVIN}]))`,
  // A low one whose six characters before are not a high one's escape: fewer than six, another
  // escape, or no escape.
  String.raw`^(?s:.{0,5})${LOW}`,
  String.raw`\\u(?:[0-9a-ceA-CE-F][0-9a-fA-F]{3}|[dD][0-7c-fC-F][0-9a-fA-F]{2})${LOW}`,
  String.raw`\\[^u${KELVIN}](?s:.{4})${LOW}`,
  String.raw`[^\\${KELVIN}](?s:.{5})${LOW}`,
];

/**
 * The LogsQL filter matching those lines: the precise regexes run only on lines the gate matches,
 * which most lines do not (a literal search costs the origin far less than a regex scan).
 */
export const JSON_UNSURE_ESCAPES =
  `(_msg:~${quote(GATE)} (${PRECISE.map((re) => `_msg:~${quote(re)}`).join(" or ")} or ` +
  `(_msg:~${quote(SURROGATE)} (${LONE_SURROGATE.map((re) => `_msg:~${quote(re)}`).join(" or ")})) or ` +
  `_msg:~${quote(KELVIN)}))`;

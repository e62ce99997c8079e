/**
 * Building blocks for LogsQL text. Every string that comes from a query goes through `quote`, so no
 * input can change the structure of the LogsQL we send: it always stays one quoted token.
 */

/** A LogsQL double-quoted string (Go escaping). Lone surrogates become U+FFFD, as Go would read them. */
export function quote(s: string): string {
  return JSON.stringify(s.toWellFormed());
}

const RE2_META = /[\\.+*?()|[\]{}^$]/g;

/** A regex matching `s` literally (RE2 syntax). */
export function escapeRegex(s: string): string {
  return s.replace(RE2_META, "\\$&");
}

/**
 * `field` opening with `opener` (literal text) after any run of the characters of `spaces` (a regex
 * class's body). The exact prefix test comes first: nearly every value so opening has no space
 * before it, and the origin tests a prefix in nanoseconds where a regex call costs it a tenth of a
 * microsecond a row, paid here on every row of a JSON push-down.
 */
export function opensWith(field: string, opener: string, spaces: string): string {
  return `(${field}:=${quote(opener)}* or ${field}:~${quote(`^[${spaces}]*${escapeRegex(opener)}`)})`;
}

/** `field` opening with one of `openers` (literal texts): exact prefix tests, no regex. */
export function opensWithOneOf(field: string, openers: readonly string[]): string {
  return `(${openers.map((opener) => `${field}:=${quote(opener)}*`).join(" or ")})`;
}

/**
 * VictoriaLogs' own fields: `_msg` is the line, `_time` its timestamp, `_stream` and `_stream_id`
 * its stream. A Loki label may carry any of these names (Loki has no such fields), so such a label
 * must never be sent as a LogsQL field name: it would read the line, the time or the stream instead.
 */
const SPECIAL_FIELDS = new Set(["_msg", "_time", "_stream", "_stream_id"]);

export function isSpecialField(name: string): boolean {
  return SPECIAL_FIELDS.has(name);
}

/** A LogsQL field name; names outside [A-Za-z0-9_.] are quoted. */
export function fieldName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) ? name : quote(name);
}

/**
 * A regex holding of a whole value exactly where one of its literals occurs anywhere in it:
 * `(?s:.*)`, one group of literal alternatives (metacharacters escaped, nothing nested), `(?s:.*)`,
 * as a line filter on a formatted line becomes (plan/formatted-lines.ts). Its literals are tested
 * unanchored, which the origin does by substring search; anchored, Go's regexp reads the whole value
 * (4-8 µs on a 300-byte line, against 25 ns).
 */
const LITERAL = String.raw`(?:[^\\()[\]{}|^$.*+?]|\\[\\.+*?()|[\]{}^$])+`;
const ANYWHERE = new RegExp(String.raw`^\(\?s:\.\*\)\(\?:(${LITERAL}(?:\|${LITERAL})*)\)\(\?s:\.\*\)$`, "u");

/**
 * A string label matcher as the same test on `field` (a LogsQL field expression): `=` and `!=` on
 * the exact value (a missing field reads as ""), `=~` and `!~` with Go's regexp anchored at both
 * ends, as Loki's label regexes are (VictoriaLogs runs Go's regexp too), but for a regex of the
 * ANYWHERE shape, whose literals are tested unanchored: it holds of the same values.
 */
export function stringMatch(field: string, op: "=" | "!=" | "=~" | "!~", value: string): string {
  const regex = () => quote(ANYWHERE.exec(value)?.[1] ?? `^(?:${value})$`);
  switch (op) {
    case "=":
      return `${field}:=${quote(value)}`;
    case "!=":
      return `-${field}:=${quote(value)}`;
    case "=~":
      return `${field}:~${regex()}`;
    case "!~":
      return `-${field}:~${regex()}`;
  }
}

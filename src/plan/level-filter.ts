/**
 * A condition VictoriaLogs can test that every row passing a filter on the derived `detected_level`
 * satisfies (Logs Drilldown's `{service_name="checkout"} | detected_level="error"`), so that the
 * origin sends only rows that can match instead of every row of the window. The filter itself
 * still runs in the Worker, on the level it derives (engine/derived-fields.ts): the condition only
 * has to hold a SUPERSET of the rows it keeps.
 *
 * Why it is one. A row's level comes from the first of these that gives one:
 * - a level field (`detected_level`, then Loki's level field names) of its stream labels or
 *   structured metadata, both of which are VictoriaLogs fields of that name: the value normalised,
 *   so a known spelling (any case) of a level, else the value itself;
 * - `severity_number`: one of Loki's levels, or `unknown`;
 * - the line: a known level read from a JSON or logfmt level value, or named by a level word, else
 *   `unknown`. A known level read from the line needs one of its spellings in the line, in any
 *   case, unless the value is spelled with escapes (a `\u` escape in the line); Go's case-insensitive
 *   matching folds more characters than lower-casing does, except `İ`, which lower-cases to an `i`
 *   with a combining dot and so can end no spelling, and `K` (Kelvin sign): both are sent anyway.
 *   Only a `\u` escape of one of the spelling's characters can spell it otherwise than the text.
 * So a row whose level the filter keeps has a level field holding a spelling of a kept level or a
 * value the filter keeps as written, or a `severity_number` giving a kept level, or no level field
 * and a line holding a spelling of a kept level (or an escape of one of its characters). A filter
 * keeping `unknown` keeps rows of any kind: it gets no condition.
 *
 * A parser before the filter changes nothing: Loki keeps structured metadata, which the level is,
 * and names a line's `detected_level` key `detected_level_extracted`.
 */
import type { LabelFilterExpr } from "../logql/ast";
import { stringMatcher } from "../engine/pipeline/labelfilter";
import { LEVEL_FIELDS, LEVEL_SPELLINGS, SEVERITY_NUMBER, UNKNOWN_LEVEL } from "../engine/derived-fields";
import { escapeRegex, fieldName, quote } from "./logsql";

type StringFilter = Extract<LabelFilterExpr, { type: "string" }>;

/** The fields a row's level may be read from before its line, in any order (the superset needs no order). */
const LEVEL_LABELS = ["detected_level", ...LEVEL_FIELDS];
/** Every level a row can be given, `unknown` included. */
const LEVELS = [...LEVEL_SPELLINGS.keys(), UNKNOWN_LEVEL];
/**
 * The `severity_number` texts each level is read from (engine/derived-fields.ts
 * levelOfSeverityNumber): an integer, signed or with leading zeros, by its value (1–4 trace, and
 * every negative one; 0 and above 24 no level), any other text `info`. `critical` is never one.
 */
const SEVERITY_NUMBERS: ReadonlyMap<string, string> = new Map([
  ["trace", String.raw`^(?:-[0-9]*[1-9][0-9]*|\+?0*[1-4])$`],
  ["debug", String.raw`^\+?0*[5-8]$`],
  ["info", String.raw`^\+?0*(?:9|1[0-2])$`],
  ["warn", String.raw`^\+?0*1[3-6]$`],
  ["error", String.raw`^\+?0*(?:1[7-9]|20)$`],
  ["fatal", String.raw`^\+?0*2[1-4]$`],
]);
/** A `severity_number` read as a number: any other text is `info`. */
const INTEGER = String.raw`^[+-]?[0-9]+$`;

/** Rows whose `severity_number` gives one of the `kept` levels, or undefined when none can. */
function severityNumberCondition(kept: readonly string[]): string | undefined {
  const field = fieldName(SEVERITY_NUMBER);
  const terms = kept.flatMap((level) => {
    const text = SEVERITY_NUMBERS.get(level);
    return text === undefined ? [] : [`${field}:~${quote(text)}`];
  });
  if (kept.includes("info")) terms.push(`(${field}:* -${field}:~${quote(INTEGER)})`);
  return terms.length > 0 ? terms.join(" or ") : undefined;
}
/**
 * No level field set: a row holding one, as a stream label or as metadata, takes its level from it
 * and never from its line (`detected_level` and `severity_number` are read only as metadata, which
 * a field filter cannot tell from a stream label, so they are not in it).
 */
const NO_LEVEL_FIELD = LEVEL_FIELDS.map((name) => `${fieldName(name)}:=""`).join(" ");

/** Characters that case-fold apart: the line may hold a spelling in any case with one of them. */
const FOLDS_APART = `_msg:~${quote("[\u{130}\u{212A}]")}`;

/**
 * A line holding one of `spellings` in any case, as a superset: some case of one of their cores (a
 * spelling's first four letters, a spelling holding another left out), each case a literal the
 * origin finds by substring search, then, on those lines only, a spelling as a whole token. One
 * case-folding regex of the spellings costs it several times as much, a cost every row without a
 * level field pays. Case-folding for these letters is ASCII's: of the characters Go folds further
 * (FOLDS_APART, `ſ`), none folds to one of them.
 */
function spelledInLine(spellings: readonly string[]): string {
  const minimal = spellings.filter((s) => !spellings.some((other) => other !== s && s.includes(other)));
  const cores = [...new Set(minimal.map((s) => s.slice(0, CORE_LENGTH)))];
  const cases = (core: string): string[] =>
    [...core].reduce<string[]>(
      (prefixes, c) => prefixes.flatMap((p) => [p + c.toLowerCase(), p + c.toUpperCase()]),
      [""],
    );
  const substrings = cores.flatMap(cases).map((literal) => `_msg:~${quote(escapeRegex(literal))}`);
  // On the lines holding a core, one of the spellings as a whole token, in any case: Loki reads a
  // level from the line only as a whole JSON or logfmt value or as a word between its boundary
  // characters, none of which a VictoriaLogs token holds (`stderr` holds `err`, `\"info\"` in a
  // Docker wrapper and an ANSI-coloured `\x1b[31mERROR` are no level words).
  const tokens = [...new Set(spellings.map((s) => s.toLowerCase()))].map((s) => `i(${s})`);
  return `((${substrings.join(" or ")}) (${tokens.join(" or ")}))`;
}
/** Letters of a spelling a line must hold: 2^4 cases each, and few lines hold them by chance. */
const CORE_LENGTH = 4;

/**
 * A line that may spell one of `spellings` with escapes: a `\u` escape of one of their characters,
 * in either case (JSON and logfmt values decode no other escape to a letter). Python's encoder
 * escapes every non-ASCII character, so "any backslash" would send most of such a service's lines.
 */
function escapedSpelling(spellings: readonly string[]): string {
  const chars = new Set([...spellings.join("")].flatMap((c) => [c.toLowerCase(), c.toUpperCase()]));
  const codes = [...chars]
    .filter((c) => c.length === 1)
    .map((c) =>
      c
        .charCodeAt(0)
        .toString(16)
        .padStart(4, "0")
        .replace(/[a-f]/g, (h) => `[${h}${h.toUpperCase()}]`),
    )
    .sort();
  return `_msg:~${quote(`\\\\u(?:${codes.join("|")})`)}`;
}

/**
 * The LogsQL condition for a string filter on the derived `detected_level`, or undefined when
 * there is none to offer.
 */
export function levelFilterCondition(f: StringFilter): string | undefined {
  const keeps = stringMatcher(f.op, f.value);
  const kept = LEVELS.filter((level) => keeps(level));
  if (kept.includes(UNKNOWN_LEVEL)) return undefined;
  const spellings = kept.flatMap((level) => LEVEL_SPELLINGS.get(level) ?? []);
  // A level field's value as written, when it is no known spelling.
  const asWritten = (field: string) => {
    switch (f.op) {
      case "=":
        return `${field}:=${quote(f.value)}`;
      case "=~":
        return `${field}:~${quote(`^(?:${f.value})$`)}`;
      default:
        return `${field}:*`;
    }
  };
  const anySpelling = spellings.length > 0 ? `(?i)(?:${spellings.map(escapeRegex).join("|")})` : undefined;
  const terms = LEVEL_LABELS.map((name) => {
    const field = fieldName(name);
    return anySpelling === undefined
      ? asWritten(field)
      : `${field}:~${quote(`^${anySpelling}$`)} or ${asWritten(field)}`;
  });
  const severity = severityNumberCondition(kept);
  if (severity !== undefined) terms.push(severity);
  if (anySpelling !== undefined) {
    // The line decides only where no level field (a stream label or metadata) does.
    const line = [spelledInLine(spellings), escapedSpelling(spellings), FOLDS_APART];
    terms.push(`(${NO_LEVEL_FIELD} (${line.join(" or ")}))`);
  }
  return `(${terms.join(" or ")})`;
}

/**
 * `unwrap duration(f)`, `duration_seconds(f)` and `bytes(f)` in the unwrap push-down
 * (plan/unwrap-pushdown.ts): which values the origin may aggregate, and how.
 *
 * Loki converts each value with Go's time.ParseDuration (then Duration.Seconds()) or go-humanize's
 * ParseBytes; VictoriaLogs reads neither. Only values of one simple shape are aggregated by the
 * origin: a plain decimal and ONE unit, with no sign, space or exponent (DURATION_SHAPE,
 * BYTES_SHAPE). Every other non-empty value (`1h30m`, `-5s`, `1.5 KB`, `1e3ms`, `2PB`, ...) is a
 * row the guard counts, as any inexact number is, and sends the query back to local evaluation.
 *
 * The origin splits such a value into its number and its unit text and aggregates the numbers per
 * unit text (a field it groups by beside the labels); the Worker converts each unit's aggregate
 * and combines the units (exec/unwrap-units.ts). Why the answer is Loki's:
 * - Within the shape, Go's conversion is linear in the decimal, with no truncation: a duration's
 *   nanoseconds are the decimal times the unit exactly (the fraction digits allowed per unit keep
 *   `unit / 10^digits` an integer: none for `ns`, three for `us`/`µs`/`μs`, six for the others,
 *   nine for `s`),
 *   and the integer digits allowed per unit keep them below 2^63; a byte size is an integer times
 *   the unit's multiplier, below 2^64, or a decimal with a fraction and a unit, which go-humanize
 *   truncates after a float product: increasing in the decimal still, but not linear. The number
 *   part is a plain decimal of EXACT_NUMBER's shape, which the origin reads as the plain unwrap
 *   does.
 * - min and max: the origin keeps each unit's extreme as its text; the Worker writes that decimal
 *   again (shortest form, so no fraction digit Go would scale differently) with its unit and
 *   converts it with the very function local evaluation uses. Conversion is increasing within a
 *   unit, so the extreme of the converted values is the converted extreme: exact.
 * - quantile, stdvar and stddev: the origin sends the values' texts, units included; the Worker
 *   converts each as local evaluation does: the same multiset, so the same quantile (and the same
 *   variance but for float rounding).
 * - sum, rate and avg: each unit's sum of decimals times the value of one unit (converted as above);
 *   every value is non-negative, so this differs from Loki's sum of converted values at most by
 *   float rounding, as any change of summation order does.
 * - Values of no single unit (Go's Duration.String() of a minute or more, `1h2m3.5s`), and byte
 *   sizes with a fraction, which go-humanize truncates after a float product (`2.01kb` is 2009):
 *   the origin counts their rows per whole text (WHOLE_TEXT), and the Worker converts each text
 *   as local evaluation does and adds its value once per row (or takes it, for min and max).
 */
import type { UnwrapConversion } from "../logql/ast";
import { BUCKET_VALUES, type UnwrapStat } from "../logql/functions";
import { quote } from "./logsql";

/** The field holding the unit text of a value of the shape (empty for other rows). */
export const UNIT_FIELD = "__guard_unit";
/** The field holding the number part of a value of the shape. */
const NUMBER_FIELD = "__guard_num";
/**
 * Leads a unit text that is a whole value (unitSplit: a compound duration, a byte size with a
 * fraction, whose rows the origin counts): no unit of the shape holds it.
 */
export const WHOLE_TEXT = "=";

const digits = (max: number) => `(0|[1-9][0-9]{0,${max - 1}})`;
const fraction = (max: number) => `(\\.[0-9]{1,${max}})?`;

/**
 * Durations whose nanoseconds Go computes as decimal × unit exactly, below 2^63: `h` with six
 * integer digits (999999h ≈ 3.6e18 ns), `m` with eight, the others nine. Seconds also with seven
 * to nine fraction digits (whole nanoseconds), as Go's Duration.String() writes a span under a
 * minute (`1.058817112s`), up to five integer digits: at most 14 significant digits, which the
 * origin reads within a unit in the last place and so orders (for min and max) as Go does.
 */
const DURATION_PARTS = [
  `${digits(9)}ns`,
  `${digits(9)}${fraction(3)}(us|µs|μs)`,
  `${digits(9)}${fraction(6)}(ms|s)`,
  `${digits(5)}\\.[0-9]{7,9}s`,
  `${digits(8)}${fraction(6)}m`,
  `${digits(6)}${fraction(6)}h`,
];
export const DURATION_SHAPE = `^(?:${DURATION_PARTS.join("|")})$`;

/**
 * One part of a duration in Go's grammar: a decimal of at most five integer digits (four such
 * hours stay below 2^63 ns, past which Go refuses) and a unit.
 */
const GO_DURATION_PART = `${digits(5)}${fraction(9)}(ns|us|µs|μs|ms|s|m|h)`;

/**
 * Durations of two to four parts (`1h2m3.5s`, `2m0.25s`, as Go's Duration.String() and slog write
 * a minute or more), no sign: aggregated per whole text (WHOLE_TEXT).
 */
const DURATION_COMPOUND = `(?:${GO_DURATION_PART}){2,4}`;

/** The durations the origin aggregates for the functions outside BUCKET_VALUES. */
export const DURATION_AGGREGATED_SHAPE = `^(?:${DURATION_PARTS.join("|")}|${DURATION_COMPOUND})$`;

/**
 * Byte sizes go-humanize reads as integer × multiplier, below 2^64: no unit, `b`, or k/m/g (with
 * `i` for powers of 1024, `b` optional, any case) after nine digits at most; t after six. P and E
 * are left to local evaluation. A fraction only with a unit of at most G (`1.5KB`, `0.5kib`:
 * go-humanize truncates a plain `1.5` to 1, which the origin reads as a number). Cases are spelled
 * out rather than `(?i)`, whose Unicode folding would also admit look-alikes such as the Kelvin sign.
 */
export const BYTES_SHAPE = `^(?:${digits(9)}([kKmMgG][iI]?[bB]?|[bB])?|${digits(9)}\\.[0-9]{1,6}([kKmMgG][iI]?[bB]?|[bB])|${digits(6)}[tT][iI]?[bB]?)$`;

/**
 * Durations for the functions of BUCKET_VALUES, whose values travel as texts that the Worker
 * converts with local evaluation's converter (Go's ParseDuration): no product has to be exact, so
 * any text of Go's grammar will do, Go's Duration.String() of longer spans included (`1h2m3.5s`,
 * `2m0.25s`, as Go's slog writes them): DURATION_SHAPE's values, or a sign, then one to four
 * parts (GO_DURATION_PART).
 */
export const DURATION_TEXT_SHAPE = `^(?:${DURATION_PARTS.join("|")}|[-+]?(?:${GO_DURATION_PART}){1,4})$`;

/**
 * The value shape the origin aggregates for `conversion` (`exactNumber` without one), for the
 * function `fn` of the samples.
 */
export function valueShape(conversion: UnwrapConversion, exactNumber: string, fn: UnwrapStat | undefined): string {
  switch (conversion) {
    case "":
      return exactNumber;
    case "bytes":
      return BYTES_SHAPE;
    case "duration":
    case "duration_seconds":
      return fn && BUCKET_VALUES.has(fn) ? DURATION_TEXT_SHAPE : DURATION_AGGREGATED_SHAPE;
  }
}

/** How the aggregation reads a value of the shape, held in `exactField`. */
export interface UnitSplit {
  /** Pipes (" | …", or empty) computing the fields below. */
  pipes: string;
  /** The field the stats function reads. */
  field: string;
  /** Fields to group by beside the labels. */
  by: string[];
}

/**
 * Plain numbers are aggregated as they are, and the buckets of BUCKET_VALUES' functions send their
 * values (their texts, units included, travel to the Worker). Otherwise the number part is
 * aggregated per unit text. The fields are deleted first, so a stored field of the same name never
 * stands in on a row the extraction skips.
 */
export function unitSplit(conversion: UnwrapConversion, fn: UnwrapStat, exactField: string): UnitSplit {
  if (conversion === "" || BUCKET_VALUES.has(fn)) return { pipes: "", field: exactField, by: [] };
  const parts = `^(?P<${NUMBER_FIELD}>[0-9.]+)(?P<${UNIT_FIELD}>.*)$`;
  let pipes =
    ` | delete ${NUMBER_FIELD}, ${UNIT_FIELD}` +
    ` | extract_regexp if (${exactField}:*) ${quote(parts)} from ${exactField}`;
  // A byte size with a fraction (its number holds a dot), a duration of several parts (its unit
  // text a digit): counted per whole text, which becomes the unit text, its number 1.
  const whole =
    conversion === "bytes" ? `${NUMBER_FIELD}:~${quote(String.raw`\.`)}` : `${UNIT_FIELD}:~${quote("[0-9]")}`;
  pipes +=
    ` | format if (${whole}) ${quote(`${WHOLE_TEXT}<${NUMBER_FIELD}><${UNIT_FIELD}>`)} as ${UNIT_FIELD}` +
    ` | format if (${whole}) "1" as ${NUMBER_FIELD}`;
  return { pipes, field: NUMBER_FIELD, by: [UNIT_FIELD] };
}

/**
 * The value type Loki's detected_fields reports for a field: the first of int, float, boolean,
 * duration and bytes whose Go parser accepts the text, else string. The parsers are the ones Loki
 * calls, with Go's acceptance rules: strconv.ParseInt(v, 10, 64), strconv.ParseFloat(v, 64),
 * strconv.ParseBool, time.ParseDuration and go-humanize's ParseBytes. The order matters: "1" is an
 * int (not a boolean), "1.5" a float, "15ms" a duration, "1.5KiB" bytes, and a bare number that
 * fits none of the first three never reaches bytes.
 */
import { parseBytes } from "../../core/go/bytes";
import { parseDurationNs } from "../../core/go/duration";
import { parseFloat, parseInt } from "../../core/go/strconv";

export type DetectedFieldType = "int" | "float" | "boolean" | "duration" | "bytes" | "string";

/** strconv.ParseInt(s, 10, 64) succeeds: optional sign, decimal digits, within int64. */
export function isGoInt64(s: string): boolean {
  return parseInt(s, 10, 64).ok;
}

/** strconv.ParseFloat(s, 64) succeeds (Go's syntax: `1_000.5`, `0x1p-2`, `Inf` included). */
export function isGoFloat(s: string): boolean {
  return parseFloat(s).ok;
}

const GO_BOOLS = new Set(["1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"]);

/** strconv.ParseBool succeeds. */
export function isGoBool(s: string): boolean {
  return GO_BOOLS.has(s);
}

export function detectFieldType(value: string): DetectedFieldType {
  if (isGoInt64(value)) return "int";
  if (isGoFloat(value)) return "float";
  if (isGoBool(value)) return "boolean";
  if (parseDurationNs(value).ok) return "duration";
  if (parseBytes(value).ok) return "bytes";
  return "string";
}

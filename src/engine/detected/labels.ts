/**
 * Which stream labels /detected_labels reports: the labels useful for drilling down, by the rule
 * Loki's querier applies to the label values it finds in the requested range
 * (countLabelsAndCardinality / shouldRejectLabel / containsAllIDTypes):
 *
 *  1. A label with no value in the range is left out.
 *  2. `cluster`, `namespace`, `instance` and `pod` are always kept (Loki's "static" labels), whatever
 *     their values look like.
 *  3. Any other label is left out when every one of its values is an ID: a number Go's
 *     strconv.ParseFloat accepts, or a UUID google/uuid.Parse accepts. Such labels (request ids,
 *     build numbers, timestamps) have one value per stream and nothing to group by.
 *  4. Exception to 3: a label whose one or two values are all `0`/`1` is a flag, not an ID, and is
 *     kept.
 *
 * On top of Loki's value rule, names starting with `__` are left out. Loki reserves that prefix for
 * internal labels; the one a client can meet is `__stream_shard__`, which Loki's distributor adds
 * when it splits a hot stream. Its values are shard numbers, so rule 3 drops it, except with two
 * shards (`0`/`1`), where rule 4 would keep it, and a shard number is never useful to drill into.
 */
import { isGoFloat } from "./field-type";

/** One label of a /detected_labels answer: its name and its number of distinct values in the range. */
export interface DetectedLabel {
  label: string;
  cardinality: number;
}

export const STATIC_DETECTED_LABELS: ReadonlySet<string> = new Set(["cluster", "namespace", "instance", "pod"]);

export function keepDetectedLabel(name: string, values: readonly string[]): boolean {
  if (name.startsWith("__")) return false;
  if (values.length === 0) return false;
  if (STATIC_DETECTED_LABELS.has(name)) return true;
  if (values.length <= 2 && values.every((v) => v === "0" || v === "1")) return true;
  return !values.every(isIdValue);
}

/** A number (Go ParseFloat, so also `NaN`, `Inf`, hex floats) or a UUID. */
export function isIdValue(v: string): boolean {
  return isGoFloat(v) || isUuid(v);
}

const HEX32 = /^[0-9a-fA-F]{32}$/;
const DASHED = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/;

/**
 * google/uuid.Parse: by length, 36 (`xxxxxxxx-xxxx-...`), 45 (with a case-insensitive `urn:uuid:`
 * prefix), 38 (the dashed form with one character either side, which Parse does not check to be
 * braces) or 32 (bare hex). Go measures bytes; a non-ASCII string can never pass, so characters
 * and bytes agree on everything that can.
 */
export function isUuid(v: string): boolean {
  if (!/^[\x00-\x7f]*$/.test(v)) return false;
  switch (v.length) {
    case 32:
      return HEX32.test(v);
    case 36:
      return DASHED.test(v);
    case 38:
      return DASHED.test(v.slice(1, 37));
    case 45:
      return v.slice(0, 9).toLowerCase() === "urn:uuid:" && DASHED.test(v.slice(9));
    default:
      return false;
  }
}

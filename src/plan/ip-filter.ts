/**
 * `label = ip("…")` / `label != ip("…")` label filters as a LogsQL condition over the field holding
 * Loki's value of the label, exact on the values both sides read alike.
 *
 * Loki looks for addresses anywhere in the value (an IPv4 hint, a digit then a dot within three
 * characters, then the longest run of digits and dots, parsed strictly), VictoriaLogs'
 * `ipv4_range` reads the whole value as one dotted quad, and also reads octets with leading zeros.
 * On a value that is one canonical dotted quad (CANONICAL_IPV4: four octets 0-255 without leading
 * zeros) both read the same address: Loki's first hint is at the value's start, and its run is the
 * whole value. There `=` keeps exactly the addresses in the pattern's range and `!=` the others.
 * Any other non-empty value (text around an address, IPv6, several addresses) is a value shape the
 * caller's guard sends to the Worker, as for the numeric filters' shapes.
 *
 * What the condition does not say, and the callers handle: Loki keeps every row that carries an
 * error when the filter runs (whatever its value), and `!=` keeps a label set to "" (the label is
 * there, holding no address) where VictoriaLogs sees no value.
 *
 * IPv6 patterns match no canonical dotted quad in Loki (the address families differ), so every
 * row they keep has a value of another shape; they are not pushed (undefined), nor are patterns
 * Loki refuses.
 */
import type { LabelFilterExpr } from "../logql/ast";
import { isKind, some } from "../logql/walk";
import { ipRangeOf } from "../util/ip";

const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";

/** A value that is one dotted quad as Go's netip.ParseAddr reads it (no leading zeros). */
export const CANONICAL_IPV4 = `^(?:${OCTET}\\.){3}${OCTET}$`;

/** The condition on `field` (Loki's value of the label) for an ip() filter, or undefined when not pushed. */
export function ipFilterLogsQL(field: string, op: "=" | "!=", pattern: string): string | undefined {
  const range = ipRangeOf(pattern);
  if (range === undefined || range.v6) return undefined;
  const inRange = `${field}:ipv4_range(${dottedQuad(range.from)}, ${dottedQuad(range.to)})`;
  // A missing label fails `!=` too in Loki; a label set to "" is the caller's (module comment).
  return op === "=" ? inRange : `(${field}:* -${inRange})`;
}

function dottedQuad(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}

/** Whether `f` holds an ip() filter. */
export function hasIpFilter(f: LabelFilterExpr): boolean {
  return some(f, (node) => isKind(node, "LabelFilterExpr") && node.type === "ip");
}

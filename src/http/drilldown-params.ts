/**
 * The parameters only the Logs Drilldown endpoints take, parsed with Loki's rules and messages
 * (pkg/loghttp/params.go). Both are read with Go's strconv.Atoi, so `1.5` or `ten` fail with Go's
 * error text, and zero or less is refused.
 */
import { BadRequestError } from "../core/errors";
import { atoi } from "../core/go/strconv";
import type { RawParams } from "./params";

/** `line_limit`: how many of the newest lines detection examines; default 100. */
export function parseLineLimit(p: RawParams): number {
  return positiveInt(p.get("line_limit"), 100);
}

/** Loki checks `line_limit` against max_entries_limit_per_query only once the query has parsed. */
export function checkLineLimit(limit: number, maxEntries: number): void {
  if (limit > maxEntries) {
    throw new BadRequestError(
      `max entries limit per query exceeded, limit > max_entries_limit_per_query (${limit} > ${maxEntries})`,
    );
  }
}

/** `limit`, or the older `field_limit`: how many fields (or values) to report; default 1000. */
export function parseFieldLimit(p: RawParams): number {
  const raw = p.get("limit");
  return positiveInt(raw !== undefined && raw !== "" ? raw : p.get("field_limit"), 1000);
}

function positiveInt(raw: string | undefined, dflt: number): number {
  if (raw === undefined || raw === "") return dflt;
  const n = atoi(raw);
  if (!n.ok) throw new BadRequestError(n.error);
  if (n.value <= 0n) throw new BadRequestError("limit must be a positive value");
  // Beyond 2^53 the exact figure no longer matters: it exceeds every limit it is compared with.
  return Number(n.value);
}

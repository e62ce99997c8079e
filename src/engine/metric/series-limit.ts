/**
 * Loki's `max_query_series` on the answer's series, in its two modes. A strict limit refuses the
 * series past it (400, QueryLimitError). A partial limit is what Loki grants Logs Drilldown: the
 * answer keeps the series it already has, with every value exact, leaves out the rest, and says so
 * in a warning.
 */
import { QueryLimitError } from "./errors";

/** Loki's warning on a Drilldown answer cut at the limit (its engine and its query-range limiter). */
export function partialSeriesWarning(limit: number): string {
  return `maximum number of series (${limit}) reached for a single query; returning partial results`;
}

export class SeriesLimit {
  /** Whether some series was left out of the answer. */
  reached = false;

  constructor(
    readonly max: number,
    readonly partial = false,
  ) {}

  /**
   * Called when a series past `max` would join the answer: throws Loki's error, or (partial)
   * records that the answer is cut and returns false, so that the caller leaves the series out.
   */
  refuse(): false {
    if (!this.partial) throw new QueryLimitError(this.max);
    this.reached = true;
    return false;
  }
}

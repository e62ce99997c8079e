/**
 * What one metric evaluation may hold in memory, counted in points: a series, a window accumulator
 * of a series, a sample a quantile or rate_counter window keeps, a row of buckets. Each is a few
 * dozen bytes of isolate heap plus its share of the answer, so a count bounds the memory without
 * measuring it; past the limit the query stops reading and answers PointLimitError (400).
 */
import { PointLimitError } from "./errors";

export class PointBudget {
  private held = 0;

  constructor(readonly limit: number) {}

  /** Counts `n` more points; throws once more than the limit are held. */
  take(n = 1): void {
    this.held += n;
    if (this.held > this.limit) throw new PointLimitError(this.limit);
  }
}

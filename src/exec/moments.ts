/**
 * A window's variance from its buckets, for a pushed-down `stdvar_over_time` / `stddev_over_time`
 * (exec/unwrap-pushdown.ts): each bucket's values are reduced once to their count, mean and sum of
 * squared deviations, and a window merges its buckets' three numbers (Chan, Golub and LeVeque's
 * pairwise update) instead of visiting every value of every bucket it spans.
 *
 * Loki folds a window's samples one at a time in time order with Welford's update (the engine's
 * `variance` accumulator). The values here are the same multiset, folded in another order and
 * merged: the same variance but for float rounding. Both updates work on deviations from a running
 * mean, never on sums of squares, so the rounding stays of the order of the values' own unit in the
 * last place relative to the spread; equal values give exactly 0 on both sides (every deviation is
 * exactly 0).
 */
export class Moments {
  private constructor(
    readonly n: number,
    readonly mean: number,
    /** Sum of squared deviations from `mean`. */
    readonly m2: number,
  ) {}

  static readonly EMPTY = new Moments(0, 0, 0);

  /** One bucket's moments: Welford's update over its values, as Loki's fold does. */
  static of(values: Float64Array): Moments {
    let mean = 0;
    let m2 = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      const delta = v - mean;
      mean += delta / (i + 1);
      m2 += delta * (v - mean);
    }
    return new Moments(values.length, mean, m2);
  }

  /** The moments of the union of `buckets[lo, hi)`. */
  static merged(buckets: readonly Moments[], lo: number, hi: number): Moments {
    let acc = Moments.EMPTY;
    for (let i = lo; i < hi; i++) acc = acc.plus(buckets[i]!);
    return acc;
  }

  plus(other: Moments): Moments {
    if (other.n === 0) return this;
    if (this.n === 0) return other;
    const n = this.n + other.n;
    const delta = other.mean - this.mean;
    return new Moments(
      n,
      this.mean + (delta * other.n) / n,
      this.m2 + other.m2 + ((delta * delta * this.n) / n) * other.n,
    );
  }

  /** Loki's `aux / count`: the population variance (NaN for no values, as 0/0). */
  variance(): number {
    return this.m2 / this.n;
  }
}

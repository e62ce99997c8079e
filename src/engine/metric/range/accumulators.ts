/**
 * Per-window accumulators for the range functions that can fold samples one at a time, so a
 * window never holds its samples. Each follows Loki's own streaming aggregator arithmetic.
 */
export type FoldKind = "count" | "sum" | "mean" | "min" | "max" | "variance" | "first" | "last";

export class WindowAcc {
  /** Samples seen. */
  n = 0;
  /** Running sum, mean, extreme or chosen value, by kind. */
  x = 0;
  /** Welford's sum of squared deviations. */
  m2 = 0;
  /** Timestamp of the chosen value for first/last. */
  t = 0n;

  add(kind: FoldKind, ts: bigint, v: number): void {
    switch (kind) {
      case "count":
        this.n++;
        return;
      case "sum":
        this.n++;
        this.x += v;
        return;
      case "mean":
        this.n++;
        // Loki keeps an infinite mean once reached unless a NaN or an opposite infinity arrives.
        if (!Number.isFinite(this.x) && !Number.isNaN(this.x)) {
          if (!Number.isFinite(v) && !Number.isNaN(v) && this.x > 0 === v > 0) return;
          if (Number.isFinite(v)) return;
        }
        this.x += v / this.n - this.x / this.n;
        return;
      case "min":
        if (this.n === 0 || v < this.x || Number.isNaN(this.x)) this.x = v;
        this.n++;
        return;
      case "max":
        if (this.n === 0 || v > this.x || Number.isNaN(this.x)) this.x = v;
        this.n++;
        return;
      case "variance": {
        this.n++;
        const delta = v - this.x;
        this.x += delta / this.n;
        this.m2 += delta * (v - this.x);
        return;
      }
      case "first":
        if (this.n === 0 || ts < this.t) {
          this.x = v;
          this.t = ts;
        }
        this.n++;
        return;
      case "last":
        if (this.n === 0 || ts >= this.t) {
          this.x = v;
          this.t = ts;
        }
        this.n++;
        return;
      default:
        // Every kind is handled above: a new one fails the type check here.
        return kind satisfies never;
    }
  }
}

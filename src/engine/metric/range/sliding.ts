/**
 * Range functions over a window that slides forward through one series' points (in time order):
 * each point enters once and leaves once, and a step's value costs no pass over the window, so a
 * `[24h]` window at a small step is not re-read (or re-sorted) at every step. The values are those
 * of `quantile` and `counterRate` over the window's points, bit for bit.
 */
import { extrapolatedRate } from "./functions";

/** A window sliding forward over one series' points in time order. */
export interface SlidingWindow {
  enter(i: number): void;
  leave(i: number): void;
  /** The function's value over the points [lo, hi). */
  value(lo: number, hi: number): number;
}

/**
 * quantile_over_time: every point's rank among all the series' values (the order `quantile` sorts
 * in: NaN first, equal values by time, as a stable sort of the window leaves them), and a Fenwick
 * tree counting the ranks inside the window, so the k-th smallest is a descent of log n steps.
 */
export class QuantileWindows implements SlidingWindow {
  private readonly rankOf: Int32Array;
  private readonly byRank: Float64Array;
  private readonly tree: Int32Array;
  private readonly top: number;

  constructor(
    private readonly phi: number,
    vs: readonly number[],
  ) {
    const n = vs.length;
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => compareValues(vs[a]!, vs[b]!) || a - b);
    this.rankOf = new Int32Array(n);
    this.byRank = new Float64Array(n);
    order.forEach((i, rank) => {
      this.rankOf[i] = rank;
      this.byRank[rank] = vs[i]!;
    });
    this.tree = new Int32Array(n + 1);
    let top = 1;
    while (top * 2 <= n) top *= 2;
    this.top = top;
  }

  enter(i: number): void {
    for (let x = this.rankOf[i]! + 1; x < this.tree.length; x += x & -x) this.tree[x]!++;
  }

  leave(i: number): void {
    for (let x = this.rankOf[i]! + 1; x < this.tree.length; x += x & -x) this.tree[x]!--;
  }

  value(lo: number, hi: number): number {
    const n = hi - lo;
    const phi = this.phi;
    if (n === 0) return NaN;
    if (phi < 0) return -Infinity;
    if (phi > 1) return Infinity;
    // As `quantile` computes it (a NaN φ indexes nothing and gives NaN).
    const rank = phi * (n - 1);
    const lower = Math.max(0, Math.floor(rank));
    const upper = Math.min(n - 1, lower + 1);
    if (Number.isNaN(lower) || Number.isNaN(upper)) return NaN;
    const weight = rank - Math.floor(rank);
    return this.kth(lower) * (1 - weight) + this.kth(upper) * weight;
  }

  /** The k-th smallest value in the window (0-based). */
  private kth(k: number): number {
    let pos = 0;
    let left = k + 1;
    for (let step = this.top; step > 0; step >>= 1) {
      const next = pos + step;
      if (next < this.tree.length && this.tree[next]! < left) {
        pos = next;
        left -= this.tree[next]!;
      }
    }
    return this.byRank[pos]!;
  }
}

/** `quantile`'s order: NaN first, then ascending. */
function compareValues(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : -1;
  if (Number.isNaN(b)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * rate_counter: `counterRate` adds, in time order, the value before every reset (a value below its
 * predecessor) inside the window. The resets are listed once; a window adds only its own, in the
 * same order, so the sum is the same floating-point sum.
 */
export class CounterWindows implements SlidingWindow {
  /** Indexes j ≥ 1 with vs[j] < vs[j − 1], ascending. */
  private readonly resets: number[] = [];
  /** The first reset at or after the window's second point. */
  private firstReset = 0;

  constructor(
    private readonly ts: readonly bigint[],
    private readonly vs: readonly number[],
    private readonly range: bigint,
  ) {
    for (let j = 1; j < vs.length; j++) if (vs[j]! < vs[j - 1]!) this.resets.push(j);
  }

  enter(): void {}

  leave(): void {}

  value(lo: number, hi: number): number {
    const n = hi - lo;
    if (n < 2) return 0;
    const { vs, resets } = this;
    let result = vs[hi - 1]! - vs[lo]!;
    // counterRate's first comparison is against 0: a negative first value adds 0 (which can turn −0 into 0).
    if (vs[lo]! < 0) result += 0;
    while (this.firstReset < resets.length && resets[this.firstReset]! <= lo) this.firstReset++;
    for (let r = this.firstReset; r < resets.length && resets[r]! < hi; r++) result += vs[resets[r]! - 1]!;
    return extrapolatedRate(result, vs[lo]!, this.ts[lo]!, this.ts[hi - 1]!, n, this.range);
  }
}

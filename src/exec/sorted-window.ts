/**
 * The values of a span of runs (a group's quantile buckets, oldest first), kept sorted as the span
 * slides forward. Consecutive evaluation windows share most of their buckets, so sorting each
 * window's values afresh repeats nearly all the work of the window before: here a step that gains
 * or loses a few buckets costs one linear pass per bucket, and only a window that shares little with
 * the one before is sorted whole.
 *
 * The values held are exactly the span's values, in the order a Float64Array sort gives them (−0
 * before 0), so a quantile read from them is the one a fresh sort gives.
 */
import { quantileOfSorted } from "../engine/metric/range/functions";

export class SortedWindow {
  private values = new Float64Array(64);
  private length = 0;
  /** The values held are in order (else they are the span's values in no order). */
  private ordered = true;
  private lo = 0;
  private hi = 0;
  /** A run holding NaN: equality cannot find its values again, so every span is sorted whole. */
  private readonly resort: boolean;
  /** By run: sorted already. A run is sorted only when a step admits or retires it. */
  private readonly sorted: boolean[];

  /** `runs`: the window's own, sorted in place when needed. */
  constructor(private readonly runs: readonly Float64Array[]) {
    this.resort = runs.some((run) => run.some((v) => Number.isNaN(v)));
    this.sorted = runs.map(() => false);
  }

  /**
   * The values of runs [lo, hi), sorted: a view valid until the next call. Spans move forward only
   * (`lo` and `hi` never below the last call's).
   */
  span(lo: number, hi: number): Float64Array {
    if (!this.stepped(lo, hi)) {
      this.gather(lo, hi);
      this.order();
    }
    return this.values.subarray(0, this.length);
  }

  /**
   * `quantile`'s φ-quantile of the values of runs [lo, hi), as quantileOfSorted reads it from them
   * sorted. A span that shares little with the last one is not sorted: the two values the quantile
   * reads are selected (linear on average), which is all a window that no later step slides from
   * needs.
   */
  quantile(phi: number, lo: number, hi: number): number {
    if (!this.stepped(lo, hi)) {
      this.gather(lo, hi);
      // The selection orders as `<` does: NaN and −0 are left to the sort.
      if (this.resort || this.values.subarray(0, this.length).some((v) => v === 0 && 1 / v < 0)) this.order();
    }
    const values = this.values.subarray(0, this.length);
    return this.ordered ? quantileOfSorted(phi, values) : selectedQuantile(phi, values);
  }

  /** Moves to [lo, hi) a few runs at a time when it overlaps the last span; false when it must be gathered whole. */
  private stepped(lo: number, hi: number): boolean {
    if (lo < this.lo || hi < this.hi) throw new RangeError("a sorted window only slides forward");
    // Runs lost and gained, when the new span overlaps the last one.
    const stepwise = !this.resort && lo < this.hi && lo - this.lo + (hi - this.hi) <= MAX_STEPWISE_RUNS;
    if (stepwise) this.order();
    const slid = stepwise && this.slide(lo, hi);
    this.lo = lo;
    this.hi = hi;
    return slid;
  }

  /** Retires runs [this.lo, lo) and admits [this.hi, hi) one at a time; false when a value is not found. */
  private slide(lo: number, hi: number): boolean {
    for (let r = this.lo; r < lo; r++) if (!this.remove(this.run(r))) return false;
    for (let r = this.hi; r < hi; r++) this.insert(this.run(r));
    return true;
  }

  private run(r: number): Float64Array {
    if (!this.sorted[r]) this.runs[r]!.sort();
    this.sorted[r] = true;
    return this.runs[r]!;
  }

  /** Holds the values of runs [lo, hi), in order only when they are one sorted run. */
  private gather(lo: number, hi: number): void {
    let n = 0;
    for (let r = lo; r < hi; r++) n += this.runs[r]!.length;
    this.reserve(n);
    n = 0;
    for (let r = lo; r < hi; r++) {
      this.values.set(this.runs[r]!, n);
      n += this.runs[r]!.length;
    }
    this.length = n;
    this.ordered = n < 2 || (hi - lo === 1 && this.sorted[lo]!);
  }

  private order(): void {
    if (!this.ordered) this.values.subarray(0, this.length).sort();
    this.ordered = true;
  }

  /** Takes `run`'s values out (each once), keeping the rest in order. */
  private remove(run: Float64Array): boolean {
    const v = this.values;
    let kept = 0;
    let j = 0;
    for (let i = 0; i < this.length; i++) {
      const x = v[i]!;
      if (j < run.length && same(x, run[j]!)) j++;
      else v[kept++] = x;
    }
    this.length = kept;
    return j === run.length;
  }

  /** Merges `run`'s values in, from the back, so that nothing moves twice. */
  private insert(run: Float64Array): void {
    this.reserve(this.length + run.length);
    const v = this.values;
    let i = this.length - 1;
    let j = run.length - 1;
    let at = this.length + run.length - 1;
    while (j >= 0) {
      if (i >= 0 && before(run[j]!, v[i]!)) v[at--] = v[i--]!;
      else v[at--] = run[j--]!;
    }
    this.length += run.length;
  }

  private reserve(n: number): void {
    if (n <= this.values.length) return;
    const wider = new Float64Array(Math.max(n, this.values.length * 2));
    wider.set(this.values.subarray(0, this.length));
    this.values = wider;
  }
}

/**
 * quantileOfSorted's value over `values` in no order, from the two values it reads, selected in
 * place: the values hold no NaN and no −0, so `<` orders them as a sort does.
 */
function selectedQuantile(phi: number, values: Float64Array): number {
  const n = values.length;
  // Out of range or empty, the answer does not depend on the values.
  if (n === 0 || phi < 0 || phi > 1) return quantileOfSorted(phi, values);
  const rank = phi * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  select(values, lower);
  // Every value after the selected one is at least it: the next in order is the least of them.
  let next = values[lower]!;
  if (upper > lower) {
    next = values[upper]!;
    for (let i = upper + 1; i < n; i++) if (values[i]! < next) next = values[i]!;
  }
  return values[lower]! * (1 - weight) + next * weight;
}

/**
 * Puts the `k`-th smallest of `a` at `k`, the ones before it no greater and the ones after it no
 * less (Hoare's selection, median-of-three pivots).
 */
function select(a: Float64Array, k: number): void {
  let left = 0;
  let right = a.length - 1;
  const swap = (i: number, j: number) => {
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  };
  while (right > left) {
    const mid = (left + right) >>> 1;
    if (a[mid]! < a[left]!) swap(left, mid);
    if (a[right]! < a[left]!) swap(left, right);
    if (a[right]! < a[mid]!) swap(mid, right);
    const pivot = a[mid]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) swap(i++, j--);
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
}

/** Past this many runs gained and lost in one step, sorting the window whole is cheaper. */
const MAX_STEPWISE_RUNS = 8;

/** `a` sorts before `b` as a Float64Array sort orders them (−0 before 0); neither is NaN. */
function before(a: number, b: number): boolean {
  return a < b || (a === 0 && b === 0 && 1 / a < 1 / b);
}

function same(a: number, b: number): boolean {
  return a === b && (a !== 0 || 1 / a === 1 / b);
}

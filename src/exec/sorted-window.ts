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
export class SortedWindow {
  private values = new Float64Array(64);
  private length = 0;
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
    if (lo < this.lo || hi < this.hi) throw new RangeError("a sorted window only slides forward");
    // Runs lost and gained, when the new span overlaps the last one.
    const stepwise = lo < this.hi && lo - this.lo + (hi - this.hi) <= MAX_STEPWISE_RUNS;
    if (this.resort || !stepwise || !this.slide(lo, hi)) this.rebuild(lo, hi);
    this.lo = lo;
    this.hi = hi;
    return this.values.subarray(0, this.length);
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

  private rebuild(lo: number, hi: number): void {
    let n = 0;
    for (let r = lo; r < hi; r++) n += this.runs[r]!.length;
    this.reserve(n);
    n = 0;
    for (let r = lo; r < hi; r++) {
      this.values.set(this.runs[r]!, n);
      n += this.runs[r]!.length;
    }
    this.length = n;
    // One run sorted already needs no sort.
    if (hi - lo !== 1 || !this.sorted[lo]) this.values.subarray(0, n).sort();
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

/** Past this many runs gained and lost in one step, sorting the window whole is cheaper. */
const MAX_STEPWISE_RUNS = 8;

/** `a` sorts before `b` as a Float64Array sort orders them (−0 before 0); neither is NaN. */
function before(a: number, b: number): boolean {
  return a < b || (a === 0 && b === 0 && 1 / a < 1 / b);
}

function same(a: number, b: number): boolean {
  return a === b && (a !== 0 || 1 / a === 1 / b);
}

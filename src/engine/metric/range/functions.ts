/**
 * The range functions that need every point of a window (Loki keeps them as point lists too).
 * Timestamps are nanoseconds.
 */

/**
 * Prometheus quantile with linear interpolation between closest ranks; φ outside [0, 1] gives ∓Inf
 * and an empty window NaN. `values` is sorted in place (NaN first, as Loki's heap ordering does).
 */
export function quantile(phi: number, values: number[]): number {
  if (values.length === 0 || phi < 0 || phi > 1) return quantileOfSorted(phi, values);
  values.sort((a, b) =>
    Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : Number.isNaN(b) ? 1 : a < b ? -1 : a > b ? 1 : 0,
  );
  return quantileOfSorted(phi, values);
}

/** `quantile` of values already in its order (NaN first, then ascending). */
export function quantileOfSorted(phi: number, values: ArrayLike<number>): number {
  if (values.length === 0) return NaN;
  if (phi < 0) return -Infinity;
  if (phi > 1) return Infinity;
  const n = values.length;
  const rank = phi * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  return values[lower]! * (1 - weight) + values[upper]! * weight;
}

/**
 * `rate_counter`: Prometheus' extrapolated counter rate as Loki ports it. Loki feeds the port
 * nanosecond timestamps while the port assumes milliseconds (the range is converted to ms and
 * intervals are divided by 1000), so the extrapolation is skewed; we reproduce the arithmetic
 * exactly because the bar is Loki's numbers, not Prometheus'.
 */
export function counterRate(ts: readonly bigint[], vs: readonly number[], rangeNs: bigint): number {
  const n = vs.length;
  if (n < 2) return 0;
  let result = vs[n - 1]! - vs[0]!;
  let previous = 0;
  for (const v of vs) {
    if (v < previous) result += previous;
    previous = v;
  }
  return extrapolatedRate(result, vs[0]!, ts[0]!, ts[n - 1]!, n, rangeNs);
}

/**
 * The rest of `counterRate` once `result` (last − first plus the value before every reset, added
 * in time order) is known, so that a sliding window can supply it without a pass over its points.
 */
export function extrapolatedRate(
  increase: number,
  first: number,
  firstT: bigint,
  lastT: bigint,
  n: number,
  rangeNs: bigint,
): number {
  let result = increase;
  const rangeMs = rangeNs / 1_000_000n;
  // Loki: rangeStart = firstT − rangeMs, rangeEnd = lastT (mixed units, kept on purpose).
  let durationToStart = Number(rangeMs) / 1000;
  const durationToEnd = 0;
  const sampledInterval = Number(lastT - firstT) / 1000;
  const averageBetween = sampledInterval / (n - 1);
  if (result > 0 && first >= 0) {
    const durationToZero = sampledInterval * (first / result);
    if (durationToZero < durationToStart) durationToStart = durationToZero;
  }
  const threshold = averageBetween * 1.1;
  let extrapolateTo = sampledInterval;
  extrapolateTo += durationToStart < threshold ? durationToStart : averageBetween / 2;
  extrapolateTo += durationToEnd < threshold ? durationToEnd : averageBetween / 2;
  result = result * (extrapolateTo / sampledInterval);
  return result / (Number(rangeNs) / 1e9);
}

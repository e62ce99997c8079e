/**
 * The evaluation grid: Loki evaluates a metric query at t = start + k·step for every k with
 * t <= end, and the value at t covers the left-open window (t − offset − range, t − offset].
 */
import { ceilDiv, floorMod } from "../../core/go/intdiv";

/** The times a metric query asks for: its range and step, or one instant. */
export interface MetricQuery {
  start: bigint;
  end: bigint;
  step: bigint;
  instant: boolean;
}

export interface StepGrid {
  start: bigint;
  step: bigint;
  /** Number of evaluation times (1 for an instant query). */
  count: number;
}

export function makeGrid(q: MetricQuery): StepGrid {
  if (q.instant || q.step <= 0n) return { start: q.start, step: 1n, count: 1 };
  const count = q.end < q.start ? 0 : Number((q.end - q.start) / q.step) + 1;
  return { start: q.start, step: q.step, count };
}

export function timeAt(grid: StepGrid, k: number): bigint {
  return grid.start + BigInt(k) * grid.step;
}

/**
 * Loki's query frontend (split_queries_by_interval) rounds a range query's start down and its end
 * up to multiples of the step before evaluating, so every answer lives on the epoch-aligned grid.
 * Idempotent; instant queries are left alone.
 */
export function alignToStep(q: MetricQuery): MetricQuery {
  if (q.instant || q.step <= 0n) return q;
  const start = q.start - floorMod(q.start, q.step);
  const endMod = floorMod(q.end, q.step);
  const end = endMod === 0n ? q.end : q.end + (q.step - endMod);
  return { ...q, start, end };
}

/**
 * The steps whose window contains a sample at `ts`: ts + offset <= t < ts + offset + range.
 * Returns undefined when the sample falls between windows (range < step) or outside the grid.
 */
export function stepsCovering(grid: StepGrid, ts: bigint, range: bigint, offset: bigint): [number, number] | undefined {
  const rel = ts + offset - grid.start;
  let lo = ceilDiv(rel, grid.step);
  let hi = ceilDiv(rel + range, grid.step) - 1n;
  if (lo < 0n) lo = 0n;
  const last = BigInt(grid.count - 1);
  if (hi > last) hi = last;
  if (lo > hi) return undefined;
  return [Number(lo), Number(hi)];
}

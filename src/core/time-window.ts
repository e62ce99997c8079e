/** A span of time in nanoseconds since the epoch, as queries, cache extents and origin requests cover it. */
export interface TimeWindow {
  /** Inclusive start, ns. */
  start: bigint;
  /** Exclusive end, ns. */
  end: bigint;
}

/**
 * Integer division rounding toward −∞. JavaScript's bigint `/` and `%` truncate toward zero like
 * Go's, which puts pre-1970 instants (negative nanoseconds) in the wrong bucket, step or chunk;
 * time grids need the floored (and ceiled) forms.
 */

/** ⌊a / b⌋ for b ≠ 0. */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** a − b·⌊a / b⌋: the remainder with the divisor's sign (in [0, b) for b > 0). */
export function floorMod(a: bigint, b: bigint): bigint {
  const m = a % b;
  return m !== 0n && m < 0n !== b < 0n ? m + b : m;
}

/** ⌈a / b⌉ for b ≠ 0. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n === b > 0n ? q + 1n : q;
}

/**
 * The float functions addf/subf/mulf/divf compute in decimal (sprig uses shopspring/decimal):
 * each operand is taken at its shortest decimal form, so `addf 0.1 0.2` is exactly 0.3, and
 * division keeps 16 fractional digits, rounding half away from zero.
 */

import { FuncError } from "./funcs";

interface Decimal {
  coef: bigint;
  exp: number;
}

const DIVISION_PRECISION = 16;

export function decimalFromFloat(x: number): Decimal {
  if (Number.isNaN(x)) throw new FuncError("Cannot create a Decimal from NaN");
  if (!Number.isFinite(x)) throw new FuncError(`Cannot create a Decimal from ${x > 0 ? "+Inf" : "-Inf"}`);
  if (x === 0) return { coef: 0n, exp: 0 };
  const s = Math.abs(x).toExponential();
  const e = s.indexOf("e");
  const digits = s.slice(0, e).replace(".", "");
  const exp10 = Number(s.slice(e + 1));
  const coef = BigInt(digits);
  return { coef: x < 0 ? -coef : coef, exp: exp10 + 1 - digits.length };
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  if (a.exp === b.exp) return [a.coef, b.coef, a.exp];
  if (a.exp < b.exp) return [a.coef, b.coef * 10n ** BigInt(b.exp - a.exp), a.exp];
  return [a.coef * 10n ** BigInt(a.exp - b.exp), b.coef, b.exp];
}

export function decimalAdd(a: Decimal, b: Decimal): Decimal {
  const [x, y, exp] = align(a, b);
  return { coef: x + y, exp };
}

export function decimalSub(a: Decimal, b: Decimal): Decimal {
  const [x, y, exp] = align(a, b);
  return { coef: x - y, exp };
}

export function decimalMul(a: Decimal, b: Decimal): Decimal {
  return { coef: a.coef * b.coef, exp: a.exp + b.exp };
}

export function decimalDiv(a: Decimal, b: Decimal): Decimal {
  if (b.coef === 0n) throw new FuncError("decimal division by 0");
  const k = a.exp - b.exp + DIVISION_PRECISION;
  let num = a.coef;
  let den = b.coef;
  if (k >= 0) num *= 10n ** BigInt(k);
  else den *= 10n ** BigInt(-k);
  let q = num / den;
  const r = num % den;
  const abs = (v: bigint): bigint => (v < 0n ? -v : v);
  if (2n * abs(r) >= abs(den)) q += num < 0n !== den < 0n ? -1n : 1n;
  return { coef: q, exp: -DIVISION_PRECISION };
}

export function decimalToFloat(d: Decimal): number {
  return Number(`${d.coef}e${d.exp}`);
}

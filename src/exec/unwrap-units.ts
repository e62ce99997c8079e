/**
 * The Worker's half of a pushed unwrap with a conversion (plan/unwrap-units.ts, where the argument
 * for exactness is): each unit's aggregate, and a quantile's texts, converted with the function
 * local evaluation converts every value with, so the two cannot drift apart.
 */
import type { UnwrapConversion } from "../logql/ast";
import type { UnwrapStat } from "../logql/functions";
import { unwrapConverter } from "../engine/pipeline/extractor";
import { WHOLE_TEXT } from "../plan/unwrap-units";

export type Conversion = Exclude<UnwrapConversion, "">;

/**
 * A decimal of the shape's number part, as the origin sent it and the stats table read it (`x`,
 * the nearest double within a unit in the last place), written again in its shortest form. The
 * shape admits at most nine integer and six fraction digits, and nine fraction digits only under
 * 10^5 (seconds as Go's Duration.String() writes them): `x × 10^digits`, with nine digits under
 * 10^5 and six above, lies within a fraction of a unit of the decimal's integer count of
 * 10^-digits, so rounding recovers it. Shortest, because Go scales a fraction by
 * `unit / 10^digits`: `1.5us` and `1.500us` agree only while that is an integer, which the shape's
 * digit limits guarantee of the text as written.
 */
export function decimalText(x: number): string {
  const digits = Math.abs(x) < 100_000 ? 9 : 6;
  const scale = 10 ** digits;
  const units = Math.round(x * scale);
  const whole = Math.floor(units / scale);
  const frac = units - whole * scale;
  if (frac === 0) return String(whole);
  return `${whole}.${String(frac).padStart(digits, "0").replace(/0+$/, "")}`;
}

/** Converts texts of the shape; each unit's value of one, remembered. */
export class UnitConverter {
  private readonly convert: (v: string) => number;
  private readonly scales = new Map<string, number>();

  constructor(conversion: Conversion) {
    const parse = unwrapConverter(conversion);
    this.convert = (v) => {
      const r = parse(v);
      // The origin admits only values of the shape, every one of which converts.
      return r.ok ? r.value : NaN;
    };
  }

  /**
   * One stats row's value: `fn`'s aggregate `x` of the number parts of the values with unit text
   * `unit`, converted. A sum (or an average's sum) scales by the value of one unit; an extreme is
   * converted itself. A whole text (WHOLE_TEXT: its rows' numbers are 1) is its own value, added
   * once per row to a sum, taken as it is by an extreme.
   */
  aggregate(fn: UnwrapStat, x: number, unit: string): number {
    const extreme = fn === "min" || fn === "max";
    const whole = unit.startsWith(WHOLE_TEXT);
    if (extreme && !whole) return this.convert(decimalText(x) + unit);
    let scale = this.scales.get(unit);
    if (scale === undefined) {
      const one = whole ? unit.slice(WHOLE_TEXT.length) : `1${unit}`;
      this.scales.set(unit, (scale = this.convert(one)));
    }
    return extreme ? scale : x * scale;
  }

  /**
   * A quantile bucket's values from the list `values` sends (`[12ms,1.5s]`, unquoted by the
   * query: the shape holds no quote, comma or bracket), converted; undefined when the list is not
   * `count` values of the shape (its count then says the origin cut it short).
   */
  values(list: string, count: number): Float64Array | undefined {
    if (!list.startsWith("[") || !list.endsWith("]")) return undefined;
    const texts = list.length === 2 ? [] : list.slice(1, -1).split(",");
    if (texts.length !== count) return undefined;
    const out = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const v = this.convert(texts[i]!);
      if (Number.isNaN(v)) return undefined;
      out[i] = v;
    }
    return out;
  }
}

/**
 * A quantile bucket's values as the origin lists them (`["21.43","7","-0.5"]`, or without the
 * quotes when the query removes them: `[21.43,7,-0.5]`), read without
 * parsing the list as JSON and then each text as a number: a bucketed quantile answer is thousands
 * of such lists of hundreds of values, and those two general parses would be most of its cost.
 *
 * Only plain decimals of at most 15 digits are read here: their digits make an integer that a
 * double holds exactly, and dividing it by the power of ten (also exact) rounds once, to the
 * nearest double of the decimal, which is what `Number(text)` gives. Anything else in the list
 * (an exponent, more digits, an escape, a space) is left to the general parse.
 */

/** `list`'s `count` values, each as `Number` reads its text; undefined when `list` is not of that plain shape. */
export function plainDecimals(list: string, count: number): Float64Array | undefined {
  const values = new Float64Array(count);
  const end = list.length;
  if (list.charCodeAt(0) !== BRACKET_OPEN || list.charCodeAt(end - 1) !== BRACKET_CLOSE) return undefined;
  let at = 1;
  let n = 0;
  if (at === end - 1) return count === 0 ? values : undefined;
  for (;;) {
    if (n === count) return undefined;
    const quoted = list.charCodeAt(at) === QUOTE;
    if (quoted) at++;
    const negative = list.charCodeAt(at) === MINUS;
    if (negative) at++;
    let mantissa = 0;
    let digits = 0;
    let fraction = -1;
    for (;;) {
      const c = list.charCodeAt(at);
      if (c >= DIGIT_0 && c <= DIGIT_9) {
        mantissa = mantissa * 10 + (c - DIGIT_0);
        digits++;
        if (fraction >= 0) fraction++;
      } else if (c === DOT && fraction < 0 && digits > 0) fraction = 0;
      else break;
      at++;
    }
    // A number needs a digit on each side of its point, and at most 15 digits to be exact.
    if (digits === 0 || fraction === 0 || digits > MAX_DIGITS) return undefined;
    if (quoted && list.charCodeAt(at++) !== QUOTE) return undefined;
    const magnitude = fraction > 0 ? mantissa / POWERS_OF_TEN[fraction]! : mantissa;
    values[n++] = negative ? -magnitude : magnitude;
    const next = list.charCodeAt(at++);
    if (next === BRACKET_CLOSE) return at === end && n === count ? values : undefined;
    if (next !== COMMA) return undefined;
  }
}

const MAX_DIGITS = 15;
/** 10^0 … 10^15, each exact. */
const POWERS_OF_TEN: number[] = [1];
while (POWERS_OF_TEN.length <= MAX_DIGITS) POWERS_OF_TEN.push(POWERS_OF_TEN[POWERS_OF_TEN.length - 1]! * 10);
const [BRACKET_OPEN, BRACKET_CLOSE, QUOTE, MINUS, DOT, COMMA, DIGIT_0, DIGIT_9] = [...'[]"-.,09'].map((c) =>
  c.charCodeAt(0),
) as [number, number, number, number, number, number, number, number];

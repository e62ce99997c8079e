/**
 * The outcome of a Go parse: the value, or Go's error text verbatim (`strconv.ParseFloat: parsing
 * "x": invalid syntax`), because Loki shows those texts to users (`__error_details__`, 400 bodies).
 */
export type ParseResult<T = number> = { ok: true; value: T } | { ok: false; error: string };

/**
 * A failed parse whose message is built only when read. Go's messages quote the whole input, and
 * most callers only ask whether a value parses: quoting a 1 MB label value for nothing took 100 to
 * 300 ms (field-type detection tries five parsers on every value).
 */
export function failure(message: () => string): { ok: false; error: string } {
  return {
    ok: false,
    get error() {
      return message();
    },
  };
}

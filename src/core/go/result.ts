/**
 * The outcome of a Go parse: the value, or Go's error text verbatim (`strconv.ParseFloat: parsing
 * "x": invalid syntax`), because Loki shows those texts to users (`__error_details__`, 400 bodies).
 */
export type ParseResult<T = number> = { ok: true; value: T } | { ok: false; error: string };

/**
 * The error every LogQL parse failure becomes. `message` is exactly the body Loki sends with its
 * HTTP 400, so handlers can return it verbatim:
 *   `parse error at line 1, col 12: syntax error: unexpected $end, expecting } or ,`
 *   `parse error : grouping not allowed for rate aggregation` (errors with no position)
 */
export class LogQLParseError extends Error {
  override readonly name = "LogQLParseError";

  /** Loki's bare message, without the `parse error ...:` prefix. */
  readonly detail: string;
  /** 0 when Loki reports no position (and for some lexer errors, see lexer.ts). */
  readonly line: number;
  readonly col: number;

  /** `bare`: the message is `detail` alone (Loki's few non-parse query errors, e.g. series). */
  constructor(detail: string, line = 0, col = 0, bare = false) {
    super(
      bare
        ? detail
        : line === 0 && col === 0
          ? `parse error : ${detail}`
          : `parse error at line ${line}, col ${col}: ${detail}`,
    );
    this.detail = detail;
    this.line = line;
    this.col = col;
  }
}

/** A construction or validation error (Loki prints these with position 0,0). */
export function semanticError(detail: string): LogQLParseError {
  return new LogQLParseError(detail);
}

/**
 * A row whose line the origin sent as a JSON string literal with escapes: the literal is kept, and
 * decoded only when something reads `line`. A log answer whose stages all ran in the origin copies
 * the literal into the response as it is, so most such rows are never decoded at all.
 *
 * The same object serves as the row's entry when the pipeline leaves it unchanged (its `parsed` is
 * empty): no copy per row.
 */
import type { Labels, LogEntry, LogRow } from "./types";

/** `parsed` of every LiteralRow: nothing was parsed. Never written to. */
const NOTHING_PARSED: Labels = Object.freeze({}) as Labels;

export class LiteralRow implements LogRow, LogEntry {
  readonly parsed: Labels = NOTHING_PARSED;
  private decoded: string | undefined;

  constructor(
    public ts: bigint,
    /** The line's JSON literal, quotes included. */
    readonly rawLine: string,
    public stream: Labels,
    public metadata: Labels,
  ) {}

  get line(): string {
    return (this.decoded ??= JSON.parse(this.rawLine) as string);
  }

  set line(line: string) {
    this.decoded = line;
  }

  /**
   * The line, decoded for one reader that does not keep it: a kept entry holding its decoded line
   * beside its literal would hold the text twice, and an isolate's collector copies what survives.
   */
  lineOnce(): string {
    return this.decoded ?? (JSON.parse(this.rawLine) as string);
  }
}

/** `row`'s line for a reader that does not keep it (see LiteralRow.lineOnce). */
export function transientLine(row: { line: string }): string {
  return row instanceof LiteralRow ? row.lineOnce() : row.line;
}

/**
 * How long `row`'s line is, in UTF-16 units, read from its literal when it has one, so that no
 * literal is decoded for it: the literal's length less the quotes, which counts each escape
 * sequence as written (at most six units for one character). For the scan statistics and the
 * memory a kept entry holds, where an upper bound of the decoded length serves. Taken from the
 * literal whatever the row's class, so a row and its copy from the cache measure alike.
 */
export function lineLength(row: { line: string; rawLine?: string }): number {
  return row.rawLine !== undefined ? row.rawLine.length - 2 : row.line.length;
}

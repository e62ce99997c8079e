/**
 * The rows of a time-bucketed stats answer held compactly: a bucketed answer repeats a few hundred
 * bucket times and a few hundred (or thousand) groups over up to hundreds of thousands of rows, so
 * each distinct time and each distinct group (its text fields) is kept once, and a row is its time's
 * index, its group's index and its numeric results in typed arrays: a few numbers rather than a
 * parsed object with its own strings. Rows are added one at a time as the answer is decoded, so no
 * array of row objects is ever held.
 *
 * A result that is a text of each row's own (a quantile bucket's list of values) is a text column:
 * kept per row, not as a group, which would make every row a group of its own, its key and entry
 * made, hashed and copied for a text that is read once.
 */
import type { VLRow } from "./rows";

export class StatsTable {
  private readonly timeTexts: string[] = [];
  private readonly timeIds = new Map<string, number>();
  private readonly groupRows: VLRow[] = [];
  private readonly groupIds = new Map<string, number>();
  /** The names that are no group's: results, numeric and text. */
  private readonly results: ReadonlySet<string>;
  private timeAt = new Uint32Array(64);
  private groupAt = new Uint32Array(64);
  private columns: Float64Array[];
  private readonly textColumns: (string | undefined)[][];
  private count = 0;

  /**
   * `values`: the stats results read as numbers (a row lacking one reads 0: the origin always sends
   * every result); `texts`: results kept as each row's text (undefined where a row lacks one).
   * Every other field but `_time` is a group's text.
   */
  constructor(
    readonly values: readonly string[],
    readonly texts: readonly string[] = [],
  ) {
    this.results = new Set([...values, ...texts]);
    this.columns = values.map(() => new Float64Array(64));
    this.textColumns = texts.map(() => []);
  }

  get length(): number {
    return this.count;
  }

  /** Distinct bucket times (`_time` texts), indexed by `timeIndex`. */
  get times(): readonly string[] {
    return this.timeTexts;
  }

  /** Distinct groups (a row's text fields but `_time`), indexed by `groupIndex`. */
  get groups(): readonly VLRow[] {
    return this.groupRows;
  }

  add(row: VLRow): void {
    if (this.count === this.timeAt.length) this.grow();
    const i = this.count++;
    this.timeAt[i] = this.timeId(row._time ?? "");
    this.groupAt[i] = this.groupId(row);
    this.values.forEach((name, c) => {
      const v = row[name];
      this.columns[c]![i] = v === undefined ? 0 : Number(v);
    });
    this.texts.forEach((name, c) => this.textColumns[c]!.push(row[name]));
  }

  /** The index of the time `time`, added when new. */
  timeId(time: string): number {
    let t = this.timeIds.get(time);
    if (t === undefined) {
      this.timeIds.set(time, (t = this.timeTexts.length));
      this.timeTexts.push(time);
    }
    return t;
  }

  /** The index of `row`'s group (its text fields but `_time`), added when new. */
  private groupId(row: VLRow): number {
    return this.groupIdOf(this.groupKey(row), () => row);
  }

  /**
   * A group's key: its fields as JSON (`"name":"value"`, by commas, in the row's order). No two
   * groups share one, whatever their texts hold, and it is the very text of those fields in an
   * answer line that needs no escape, so a line can be looked up without being parsed
   * (stats-answer.ts).
   */
  groupKey(row: VLRow): string {
    let key = "";
    for (const name in row) {
      if (name === "_time" || this.results.has(name)) continue;
      key += `${key === "" ? "" : ","}${JSON.stringify(name)}:${JSON.stringify(row[name])}`;
    }
    return key;
  }

  private groupOf(row: VLRow): VLRow {
    const group: VLRow = {};
    for (const name in row) if (name !== "_time" && !this.results.has(name)) group[name] = row[name]!;
    return group;
  }

  /**
   * The index of the group whose key (as `groupKey` makes it) is `key`, added when new: `group` (a
   * row of that group) is asked for only then.
   */
  groupIdOf(key: string, group: () => VLRow): number {
    let g = this.groupIds.get(key);
    if (g === undefined) {
      this.groupIds.set(key, (g = this.groupRows.length));
      this.groupRows.push(this.groupOf(group()));
    }
    return g;
  }

  /**
   * Adds a row by its time's and group's indexes and its results in `values`' order, then its texts
   * in `texts`' order.
   */
  addIds(time: number, group: number, values: ArrayLike<number>, texts?: ArrayLike<string | undefined>): void {
    if (this.count === this.timeAt.length) this.grow();
    const i = this.count++;
    this.timeAt[i] = time;
    this.groupAt[i] = group;
    for (let c = 0; c < this.columns.length; c++) this.columns[c]![i] = values[c]!;
    for (let c = 0; c < this.textColumns.length; c++) this.textColumns[c]!.push(texts?.[c]);
  }

  /** Adds every row of `other` (whose value and text columns are the same), in order. */
  append(other: StatsTable): void {
    // Each distinct time and group of `other` is looked up here once, not once per row.
    const times = other.timeTexts.map((time) => this.timeId(time));
    const groups = other.groupRows.map((group) => this.groupId(group));
    for (let j = 0; j < other.count; j++) {
      if (this.count === this.timeAt.length) this.grow();
      const i = this.count++;
      this.timeAt[i] = times[other.timeAt[j]!]!;
      this.groupAt[i] = groups[other.groupAt[j]!]!;
      for (let c = 0; c < this.columns.length; c++) this.columns[c]![i] = other.columns[c]![j]!;
      for (let c = 0; c < this.textColumns.length; c++) this.textColumns[c]!.push(other.textColumns[c]![j]);
    }
  }

  timeIndex(i: number): number {
    return this.timeAt[i]!;
  }

  groupIndex(i: number): number {
    return this.groupAt[i]!;
  }

  /** Row `i`'s value of the result in column `column` (an index into `values`). */
  value(i: number, column: number): number {
    return this.columns[column]![i]!;
  }

  /** Row `i`'s text of the result in text column `column` (an index into `texts`), if it has one. */
  text(i: number, column: number): string | undefined {
    return this.textColumns[column]![i];
  }

  /** Row `i` as the origin sent it (numbers in their shortest text): to store, or for a caller that needs one row. */
  row(i: number): VLRow {
    const row: VLRow = { _time: this.timeTexts[this.timeAt[i]!]!, ...this.groupRows[this.groupAt[i]!]! };
    this.values.forEach((name, c) => (row[name] = String(this.columns[c]![i])));
    this.texts.forEach((name, c) => {
      const text = this.textColumns[c]![i];
      if (text !== undefined) row[name] = text;
    });
    return row;
  }

  private grow(): void {
    const size = this.timeAt.length * 2;
    const widen = <A extends Uint32Array | Float64Array>(a: A, make: (n: number) => A): A => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.timeAt = widen(this.timeAt, (n) => new Uint32Array(n));
    this.groupAt = widen(this.groupAt, (n) => new Uint32Array(n));
    this.columns = this.columns.map((c) => widen(c, (n) => new Float64Array(n)));
  }
}

/** Each row of an NDJSON answer, parsed one line at a time (no array of lines or rows is built). */
export function eachNdjsonRow(body: string, visit: (row: VLRow) => void): void {
  let from = 0;
  while (from < body.length) {
    let to = body.indexOf("\n", from);
    if (to < 0) to = body.length;
    if (to > from) {
      const row: unknown = JSON.parse(body.slice(from, to));
      if (typeof row !== "object" || row === null || Array.isArray(row)) throw new NotARow();
      visit(row as VLRow);
    }
    from = to + 1;
  }
}

/** A line of a rows answer that is JSON but not an object. */
export class NotARow extends Error {
  constructor() {
    super("a row that is not a JSON object");
  }
}

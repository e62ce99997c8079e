/**
 * A stats answer (NDJSON, one object per line) read into a StatsTable in one pass: reading it is
 * both its check (a line that is not a JSON object throws, as JSON.parse would) and its decoding.
 *
 * The origin writes each row as `{"name":"text",…}`, every value a string. A line of that plain
 * shape whose texts need no escape is read where it lies: its time and results are taken from the
 * text, and its group is looked up by its fields' very text, which is the group's key
 * (StatsTable.groupKey) — no row object, and no key built field by field, for the hundreds of
 * thousands of rows that share a few hundred groups; a text column's text (StatsTable.texts) is cut
 * from the answer as it lies. Any other line (an escape, a number that is
 * not a string, a repeated or index-like name, an empty object) is parsed as JSON and added as a
 * row: the same rows either way.
 */
import type { VLRow } from "./rows";
import { NotARow, type StatsTable } from "./stats-table";

/**
 * Adds each row of `body` to `table`, in order, calling `beforeRow` before each is added (it may
 * throw to stop the reading). A line that is not JSON throws SyntaxError, one that is not an object
 * NotARow, both before any later line is read.
 */
export function readStatsAnswer(
  body: string,
  table: StatsTable,
  beforeRow: () => void = () => {},
  /**
   * Where rows without `_time` go, when the query appends another's rows to its buckets (a
   * `union` pipe): not into the table, and not counted by `beforeRow`. Without it they are rows
   * of time "".
   */
  untimed?: VLRow[],
): void {
  const reader = new PlainLines(body, table, untimed !== undefined);
  let from = 0;
  while (from < body.length) {
    let to = body.indexOf("\n", from);
    if (to < 0) to = body.length;
    if (to > from && !reader.read(from, to, beforeRow)) {
      const row: unknown = JSON.parse(body.slice(from, to));
      if (typeof row !== "object" || row === null || Array.isArray(row)) throw new NotARow();
      if (untimed && !Object.hasOwn(row, "_time")) untimed.push(row as VLRow);
      else {
        beforeRow();
        table.add(row as VLRow);
      }
    }
    from = to + 1;
  }
}

/**
 * Characters a plain line's texts must not hold: an escape, a control character (JSON.parse refuses
 * it raw), and a surrogate (JSON.stringify, which makes the keys of parsed rows, escapes a lone one).
 */
const UNPLAIN = /[\u0000-\u0009\u000b-\u001f\\\ud800-\udfff]/g;
const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;
const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** More fields than this in a line: read as JSON. */
const MAX_FIELDS = 32;
/** Line shapes (their field names) kept at once. */
const MAX_SHAPES = 8;

class PlainLines {
  /** Where the next unplain character is, at or after the line being read (body.length: none). */
  private unplainAt = -1;
  /** Each field of the line being read: name start and end, value start and end (inside the quotes). */
  private readonly at = new Int32Array(MAX_FIELDS * 4);
  private readonly cells: Float64Array;
  /**
   * The line's texts of the table's text columns: cut from the answer, not copied, so they hold it
   * while the table keeps them (a quantile's lists of values are most of its answer anyway).
   */
  private readonly textCells: (string | undefined)[];
  private readonly timeIds: RawIds;
  private readonly groupIds: RawIds;
  /**
   * The field names of the plain lines whose names were checked, in order, and what each field of
   * a line so named holds, the last line's first: the origin writes a row's group fields only where
   * they are set, so an answer's lines come in a few shapes (most often one), and a line is matched
   * against them rather than its names checked and looked up again.
   */
  private readonly shapes: LineShape[] = [];
  /** Fields of the line being read (its shape's). */
  private fields = 0;
  // Made once, not once per line: a closure per row is most of what reading a line allocates.
  private readonly newTime = (time: string) => this.table.timeId(time);
  private readonly newGroupRow = () => this.groupRow(this.fields);
  private readonly newGroup = (key: string) => this.table.groupIdOf(key, this.newGroupRow);
  /** Where the group's one stretch starts in the line being read. */
  private stretchAt = 0;
  private readonly newStretchGroup = (key: string) => this.table.groupIdOf(key, () => this.stretchRow(key));

  constructor(
    private readonly body: string,
    private readonly table: StatsTable,
    /** Lines without `_time` are not read here (readStatsAnswer's `untimed`). */
    private readonly timedOnly = false,
  ) {
    this.cells = new Float64Array(table.values.length);
    this.textCells = table.texts.map(() => undefined);
    this.timeIds = new RawIds(body);
    this.groupIds = new RawIds(body);
  }

  /** Adds the line [from, to) when it is plain (true); false, having changed nothing, when it is not. */
  read(from: number, to: number, beforeRow: () => void): boolean {
    const { body, at } = this;
    if (this.unplainAt < from) {
      UNPLAIN.lastIndex = from;
      this.unplainAt = UNPLAIN.exec(body)?.index ?? body.length;
    }
    if (this.unplainAt < to) return false;
    if (body.charCodeAt(from) !== BRACE_OPEN || body.charCodeAt(to - 1) !== BRACE_CLOSE) return false;
    const shape = this.shapeOfLine(from, to);
    if (!shape) return false;

    const { valueField, textField, stretches } = shape;
    for (let c = 0; c < this.cells.length; c++) {
      const f = valueField[c]!;
      this.cells[c] = f < 0 ? 0 : this.number(at[f * 4 + 2]!, at[f * 4 + 3]!);
    }
    for (let c = 0; c < this.textCells.length; c++) {
      const f = textField[c]!;
      this.textCells[c] = f < 0 ? undefined : body.slice(at[f * 4 + 2]!, at[f * 4 + 3]!);
    }
    beforeRow();
    const { table } = this;
    const time = shape.timeField;
    const timeId = time < 0 ? table.timeId("") : this.timeIds.idOf(at[time * 4 + 2]!, at[time * 4 + 3]!, this.newTime);
    this.fields = shape.names.length;
    // The group's fields' text: one stretch of the line when they lie together, as the origin
    // writes them (several stretches are joined as the key joins fields).
    let groupId: number;
    if (stretches.length === 0) groupId = this.newGroup("");
    else if (stretches.length === 2) {
      this.stretchAt = at[stretches[0]! * 4]! - 1;
      groupId = this.groupIds.idOf(this.stretchAt, at[stretches[1]! * 4 + 3]! + 1, this.newStretchGroup);
    } else {
      let key = "";
      for (let s = 0; s < stretches.length; s += 2) {
        key += `${s === 0 ? "" : ","}${body.slice(at[stretches[s]! * 4]! - 1, at[stretches[s + 1]! * 4 + 3]! + 1)}`;
      }
      groupId = this.newGroup(detached(key));
    }
    table.addIds(timeId, groupId, this.cells, this.textCells);
    return true;
  }

  /**
   * The shape of the line [from, to), its fields' places in `at`: one already met (moved first), or
   * a new one when its names are plain; undefined for a line to be read as JSON.
   */
  private shapeOfLine(from: number, to: number): LineShape | undefined {
    const { shapes } = this;
    for (let i = 0; i < shapes.length; i++) {
      const shape = shapes[i]!;
      if (!this.sameNames(shape, from, to)) continue;
      if (i > 0) {
        shapes.splice(i, 1);
        shapes.unshift(shape);
      }
      return shape;
    }
    const fields = this.fieldsOf(from, to);
    if (fields < 0 || !this.namesPlain(fields)) return undefined;
    const shape = this.shapeOf(fields);
    if (this.timedOnly && shape.timeField < 0) return undefined;
    // A few shapes are kept: lines of more shapes than that (many optional fields) are matched
    // against the last ones met, and read field by field when none is theirs.
    if (shapes.length === MAX_SHAPES) shapes.pop();
    shapes.unshift(shape);
    return shape;
  }

  /**
   * Whether the line [from, to) is `{"name":"value",…}` with `shape`'s names in its order, each
   * field's place then in `at`. Its names are the shape's, so what was checked of them holds.
   */
  private sameNames(shape: LineShape, from: number, to: number): boolean {
    const { body, at } = this;
    const { names } = shape;
    let p = from + 1;
    for (let f = 0; f < names.length; f++) {
      const name = names[f]!;
      // A shape's names hold no quote: a name is the one matched when a quote follows it.
      if (body.charCodeAt(p) !== QUOTE || !body.startsWith(name, p + 1)) return false;
      const nameEnd = p + 1 + name.length;
      if (body.charCodeAt(nameEnd) !== QUOTE || body.charCodeAt(nameEnd + 1) !== COLON) return false;
      if (body.charCodeAt(nameEnd + 2) !== QUOTE) return false;
      const valueEnd = body.indexOf('"', nameEnd + 3);
      if (valueEnd < 0 || valueEnd >= to) return false;
      at[f * 4] = p + 1;
      at[f * 4 + 1] = nameEnd;
      at[f * 4 + 2] = nameEnd + 3;
      at[f * 4 + 3] = valueEnd;
      p = valueEnd + 1;
      const next = body.charCodeAt(p);
      if (f === names.length - 1) return next === BRACE_CLOSE && p === to - 1;
      if (next !== COMMA) return false;
      p++;
    }
    return false;
  }

  /** The fields of the line [from, to) put in `at`, as `{"name":"value",…}` reads: how many, or -1. */
  private fieldsOf(from: number, to: number): number {
    const { body, at } = this;
    let fields = 0;
    let p = from + 1;
    if (p === to - 1) return -1;
    for (;;) {
      if (fields === MAX_FIELDS || body.charCodeAt(p) !== QUOTE) return -1;
      const nameEnd = body.indexOf('"', p + 1);
      if (nameEnd < 0 || nameEnd >= to || body.charCodeAt(nameEnd + 1) !== COLON) return -1;
      if (body.charCodeAt(nameEnd + 2) !== QUOTE) return -1;
      const valueEnd = body.indexOf('"', nameEnd + 3);
      if (valueEnd < 0 || valueEnd >= to) return -1;
      const f = fields++ * 4;
      at[f] = p + 1;
      at[f + 1] = nameEnd;
      at[f + 2] = nameEnd + 3;
      at[f + 3] = valueEnd;
      p = valueEnd + 1;
      const next = body.charCodeAt(p);
      if (next === BRACE_CLOSE && p === to - 1) return fields;
      if (next !== COMMA) return -1;
      p++;
    }
  }

  /**
   * False for names JSON.parse would not keep in the line's order (index-like ones go first in an
   * object), or would merge (a repeated name), or `__proto__`: such a line is read as JSON.
   */
  private namesPlain(fields: number): boolean {
    for (let f = 0; f < fields; f++) {
      const c = this.body.charCodeAt(this.at[f * 4]!);
      if ((c >= DIGIT_0 && c <= DIGIT_9) || this.nameIs(f, "__proto__")) return false;
      for (let e = 0; e < f; e++) if (this.sameName(e, f)) return false;
    }
    return true;
  }

  /** What each of the `fields` fields in `at` holds: the time, a value or text column, or the group's text. */
  private shapeOf(fields: number): LineShape {
    const names: string[] = [];
    const valueField = new Int32Array(this.table.values.length).fill(-1);
    const textField = new Int32Array(this.table.texts.length).fill(-1);
    const stretches: number[] = [];
    let timeField = -1;
    for (let f = 0; f < fields; f++) {
      names.push(detached(this.body.slice(this.at[f * 4]!, this.at[f * 4 + 1]!)));
      if (this.nameIs(f, "_time")) {
        timeField = f;
        continue;
      }
      const column = this.columnOf(f, this.table.values);
      if (column >= 0) {
        valueField[column] = f;
        continue;
      }
      const textColumn = this.columnOf(f, this.table.texts);
      if (textColumn >= 0) {
        textField[textColumn] = f;
        continue;
      }
      // Group fields next to each other are one stretch of the line: [first field, last field].
      if (stretches.length > 0 && stretches[stretches.length - 1] === f - 1) stretches[stretches.length - 1] = f;
      else stretches.push(f, f);
    }
    return { names, timeField, valueField, textField, stretches };
  }

  /**
   * The group's fields as a row, its values cut from `key` (the group's one stretch of the line,
   * already copied to be kept), not copied from the answer again.
   */
  private stretchRow(key: string): VLRow {
    const { at, stretchAt } = this;
    const { names, stretches } = this.shapes[0]!;
    const row: VLRow = {};
    for (let f = stretches[0]!; f <= stretches[1]!; f++) {
      row[names[f]!] = key.slice(at[f * 4 + 2]! - stretchAt, at[f * 4 + 3]! - stretchAt);
    }
    return row;
  }

  /** The line's group fields as a row (only for a group the table has not seen). */
  private groupRow(fields: number): VLRow {
    const { body, at } = this;
    const row: VLRow = {};
    for (let f = 0; f < fields; f++) {
      row[detached(body.slice(at[f * 4]!, at[f * 4 + 1]!))] = detached(body.slice(at[f * 4 + 2]!, at[f * 4 + 3]!));
    }
    return row;
  }

  /** The column among `names` field `f` holds, or -1. */
  private columnOf(f: number, names: readonly string[]): number {
    for (let c = 0; c < names.length; c++) if (this.nameIs(f, names[c]!)) return c;
    return -1;
  }

  private nameIs(f: number, name: string): boolean {
    const start = this.at[f * 4]!;
    return this.at[f * 4 + 1]! - start === name.length && this.body.startsWith(name, start);
  }

  private sameName(e: number, f: number): boolean {
    const { body, at } = this;
    const length = at[e * 4 + 1]! - at[e * 4]!;
    if (at[f * 4 + 1]! - at[f * 4]! !== length) return false;
    for (let i = 0; i < length; i++) {
      if (body.charCodeAt(at[e * 4]! + i) !== body.charCodeAt(at[f * 4]! + i)) return false;
    }
    return true;
  }

  /** A value's text as Number reads it: digits alone (a count, a sum) without making a string. */
  private number(start: number, end: number): number {
    const { body } = this;
    if (end - start > 0 && end - start <= 15) {
      let n = 0;
      let i = start;
      for (; i < end; i++) {
        const c = body.charCodeAt(i);
        if (c < DIGIT_0 || c > DIGIT_9) break;
        n = n * 10 + (c - DIGIT_0);
      }
      if (i === end) return n;
    }
    return Number(body.slice(start, end));
  }
}

/** What the fields of a plain line with these names hold (PlainLines.shapeOf). */
interface LineShape {
  names: readonly string[];
  /** The `_time` field, or -1. */
  timeField: number;
  /** Per value column of the table, the field holding it (-1: none). */
  valueField: Int32Array;
  /** Per text column of the table, the field holding it (-1: none). */
  textField: Int32Array;
  /** The group's fields as stretches of adjacent fields, each its first and last field. */
  stretches: readonly number[];
}

/**
 * The table indexes of texts met in one answer: a text already met is looked up by its cut-out
 * text (which the engine need not copy), and only a new one is copied to be kept.
 */
class RawIds {
  private readonly ids = new Map<string, number>();

  constructor(private readonly body: string) {}

  /** The index of the text [start, end) of the answer: `make` gives it for a text not met before. */
  idOf(start: number, end: number, make: (text: string) => number): number {
    const cut = this.body.slice(start, end);
    let id = this.ids.get(cut);
    if (id === undefined) {
      const text = detached(cut);
      this.ids.set(text, (id = make(text)));
    }
    return id;
  }
}

/**
 * A copy of `text` that does not hold on to the answer it was cut from: an engine may keep a cut-out
 * text as a view into the whole answer, and a table keeping a few short texts must not keep
 * megabytes of answer alive with them.
 */
function detached(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

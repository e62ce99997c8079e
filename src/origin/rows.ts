/** VictoriaLogs rows → the engine's LogRow (stream labels, structured metadata, line, time). */
import type { Labels, LogRow } from "../engine/types";
import { parseVLTime, VLTimeReader } from "./timefmt";
import { BoundedMap } from "../util/bounded-map";
import { LiteralRow } from "../engine/literal-row";

export type VLRow = Record<string, string>;

/**
 * Parses VictoriaLogs' `_stream` (`{a="x",b="y"}`, Go-quoted values). Throws on malformed input:
 * a silently wrong label set would put entries in the wrong stream.
 */
export function parseStreamLabels(s: string): Labels {
  const labels: Labels = {};
  let i = 0;
  const n = s.length;
  if (s[i] !== "{") throw new Error(`malformed _stream ${JSON.stringify(s)}`);
  i++;
  while (i < n && s[i] !== "}") {
    const eq = s.indexOf("=", i);
    if (eq < 0 || s[eq + 1] !== '"') throw new Error(`malformed _stream ${JSON.stringify(s)}`);
    const name = s.slice(i, eq);
    let j = eq + 2;
    let value = "";
    let plainFrom = j;
    while (j < n && s[j] !== '"') {
      if (s[j] === "\\") {
        value += s.slice(plainFrom, j);
        const c = s[j + 1];
        if (c === "n") value += "\n";
        else if (c === "t") value += "\t";
        else if (c === "r") value += "\r";
        else if (c === "x") {
          value += String.fromCharCode(parseInt(s.slice(j + 2, j + 4), 16));
          j += 2;
        } else if (c === "u") {
          value += String.fromCharCode(parseInt(s.slice(j + 2, j + 6), 16));
          j += 4;
        } else value += c ?? "";
        j += 2;
        plainFrom = j;
      } else j++;
    }
    value += s.slice(plainFrom, j);
    labels[name] = value;
    i = j + 1;
    if (s[i] === ",") i++;
  }
  return labels;
}

/**
 * Converts already-parsed rows of one response, sharing parsed stream label sets between rows of
 * a stream. The fallback of RowScanner, and the reference it is tested against.
 */
export class RowDecoder {
  private readonly streams = new Map<string, Labels>();

  decode(row: VLRow): LogRow {
    const streamKey = row._stream ?? "{}";
    let stream = this.streams.get(streamKey);
    if (!stream) {
      stream = parseStreamLabels(streamKey);
      this.streams.set(streamKey, stream);
    }
    let metadata: Labels | undefined;
    for (const key in row) {
      if (key.charCodeAt(0) === 95 /* _ */ || hasOwn(stream, key)) continue;
      (metadata ??= {})[key] = row[key]!;
    }
    return {
      ts: parseVLTime(row._time ?? ""),
      line: row._msg ?? "",
      stream,
      metadata: metadata ?? {},
    };
  }
}

const QUOTE = 34; // "
/** The rest of a JSON string after its opening quote, through the closing quote (sticky: from lastIndex). */
const STRING_REST = /[^"\\]*(?:\\.[^"\\]*)*"/y;
const UNDERSCORE = 95; // _

/**
 * Reads VictoriaLogs NDJSON rows without building an object per row. VictoriaLogs writes every
 * field as a JSON string, so one left-to-right pass finds each value's extent with `indexOf`:
 * `_msg` is kept as its JSON literal (`rawLine`) for the encoder to copy, `_stream` is looked up by
 * its literal text, and only values with escapes are decoded by JSON.parse. Rows of any other shape
 * go through JSON.parse and RowDecoder, so the result never depends on which path ran.
 */
/**
 * Stream label sets by `_stream`'s JSON literal, shared by every request of the isolate (bounded,
 * oldest out first): a dashboard's queries read the same streams again and again. The value is a
 * function of the key alone, so sharing it across tenants reveals nothing. Label objects are never
 * mutated after this point.
 */
const sharedStreams = new BoundedMap<StreamEntry>(8192, 8 * 1024 * 1024, (_entry, literal) => 4 * literal.length);

/** A stream's labels, and their names as a set: the hot loop asks "is this field a stream label?". */
interface StreamEntry {
  labels: Labels;
  names: Set<string>;
}

/** How many distinct streams one scanner remembers by itself (a response rarely has more). */
const RESPONSE_STREAMS = 4096;

export class RowScanner {
  private readonly fallback = new RowDecoder();
  /** Rows come in runs of one stream (VictoriaLogs reads block by block): compare before hashing. */
  private lastLiteral = "";
  private lastStream: StreamEntry | undefined;
  /** Streams already met in this response (up to RESPONSE_STREAMS of them). */
  private readonly seen = new Map<string, StreamEntry>();
  private readonly times = new VLTimeReader();
  private readonly fields = new FieldWalker();

  /** Throws on a line that is not a JSON object (a cut line, a proxy's page): never a made-up row. */
  scan(text: string): LogRow {
    const fast = this.tryScan(text);
    if (fast) return fast;
    const row: unknown = JSON.parse(text);
    if (typeof row !== "object" || row === null || Array.isArray(row)) throw new Error("a row is not a JSON object");
    return this.fallback.decode(row as VLRow);
  }

  private tryScan(text: string): LogRow | undefined {
    const fields = this.fields;
    if (!fields.start(text)) return undefined;
    let rawLine: string | undefined;
    let lineEscaped = false;
    // Resolved as soon as `_stream` is read (VictoriaLogs sends it before the other fields), so
    // the fields that repeat stream labels are skipped without being sliced.
    let stream: StreamEntry | undefined;
    // Where `_time`'s value stands (its inside), read in place once the row is known to be whole.
    let timeStart = -1;
    let timeEnd = -1;
    let metadata: Labels | undefined;
    let fieldNames: string[] | undefined;
    let fieldValues: string[] | undefined;
    while (fields.next()) {
      const { keyStart: fieldStart, keyEnd, valueStart: vStart, valueEnd: vEnd } = fields;
      const k0 = text.charCodeAt(fieldStart);
      if (k0 === UNDERSCORE) {
        const key = text.slice(fieldStart, keyEnd);
        if (key === "_msg") {
          rawLine = text.slice(vStart, vEnd + 1);
          lineEscaped = fields.escaped;
        } else if (key === "_stream") {
          stream = this.stream(text.slice(vStart, vEnd + 1));
          if (fieldNames) {
            metadata = withoutStreamLabels(fieldNames, fieldValues!, stream, metadata);
            fieldNames = fieldValues = undefined;
          }
        } else if (key === "_time" && !fields.escaped) {
          timeStart = vStart + 1;
          timeEnd = vEnd;
        } else if (key === "_time") return undefined; // an escaped time: the slow path decodes it
        // other underscore fields (_stream_id, ...) are VictoriaLogs' own
      } else {
        const name = text.slice(fieldStart, keyEnd);
        if (stream === undefined || !stream.names.has(name)) {
          const value = fields.value();
          if (stream !== undefined) (metadata ??= {})[name] = value;
          else {
            // Before `_stream`: kept aside until it says which fields repeat stream labels.
            (fieldNames ??= []).push(name);
            (fieldValues ??= []).push(value);
          }
        }
      }
    }
    if (!fields.complete) return undefined;
    stream ??= this.stream('"{}"');
    if (fieldNames) metadata = withoutStreamLabels(fieldNames, fieldValues!, stream, metadata);
    const ts = timeStart < 0 ? this.times.read("") : this.times.readAt(text, timeStart, timeEnd);
    // A literal with escapes is decoded only if the line is read; without, its inside is the line.
    if (lineEscaped) return new LiteralRow(ts, rawLine!, stream.labels, metadata ?? {});
    const line = rawLine === undefined ? "" : rawLine.slice(1, -1);
    return { ts, line, rawLine, stream: stream.labels, metadata: metadata ?? {} };
  }

  /** Stream labels by `_stream`'s JSON literal: the cache key, decoded once per distinct stream. */
  private stream(literal: string): StreamEntry {
    // Rows come in runs of one stream: the previous row's literal is compared before hashing. (A
    // slice compared with `===`: `startsWith` at an offset, in place, compares several times slower.)
    if (literal === this.lastLiteral && this.lastStream) return this.lastStream;
    // This response's own streams first: a plain Map lookup, where the shared map's get also
    // reorders it for recency on every hit.
    let entry = this.seen.get(literal);
    if (!entry) {
      entry = sharedStreams.get(literal);
      if (!entry) {
        const labels = parseStreamLabels(JSON.parse(literal) as string);
        entry = { labels, names: new Set(Object.keys(labels)) };
        sharedStreams.set(literal, entry);
      }
      if (this.seen.size < RESPONSE_STREAMS) this.seen.set(literal, entry);
    }
    this.lastLiteral = literal;
    this.lastStream = entry;
    return entry;
  }
}

/** `metadata` with the fields (names[i] = values[i]) that are not labels of `stream` added. */
function withoutStreamLabels(
  names: string[],
  values: string[],
  stream: StreamEntry,
  metadata: Labels | undefined,
): Labels | undefined {
  for (let f = 0; f < names.length; f++) {
    const name = names[f]!;
    if (!stream.names.has(name)) (metadata ??= {})[name] = values[f]!;
  }
  return metadata;
}

function hasOwn(labels: Labels, name: string): boolean {
  return Object.hasOwn(labels, name);
}

/**
 * Chosen fields of flat NDJSON rows whose values are strings (VictoriaLogs' rows), read in place:
 * keys are compared where they stand and only the chosen values are sliced, so a row costs no object
 * and no key strings. Rows of any other shape go through JSON.parse, with the same result.
 */
export class FieldPicker {
  private readonly fields = new FieldWalker();

  constructor(private readonly names: readonly string[]) {}

  /**
   * The row's value of each name into `out` from `at` on, in the names' order ("" when absent).
   * Throws on a line that is not a JSON object.
   */
  pick(text: string, out: string[], at: number): void {
    const names = this.names;
    for (let k = 0; k < names.length; k++) out[at + k] = "";
    if (this.tryPick(text, out, at)) return;
    const row: unknown = JSON.parse(text);
    if (typeof row !== "object" || row === null || Array.isArray(row)) throw new Error("a row is not a JSON object");
    for (let k = 0; k < names.length; k++) {
      const value = Object.hasOwn(row, names[k]!) ? (row as Record<string, unknown>)[names[k]!] : undefined;
      out[at + k] = typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
    }
  }

  private tryPick(text: string, out: string[], at: number): boolean {
    const names = this.names;
    const fields = this.fields;
    if (!fields.start(text)) return false;
    while (fields.next()) {
      for (let k = 0; k < names.length; k++) if (fields.keyIs(names[k]!)) out[at + k] = fields.value();
    }
    return fields.complete;
  }
}

/**
 * Walks the fields of one flat JSON object whose values are all strings, as VictoriaLogs writes its
 * rows (no spaces): each step gives where a key and its value's literal stand, found with indexOf
 * (values with escapes by one sticky regex run), so the caller slices only what it keeps. Anything
 * else (an escaped key, a number, spaces) stops the walk with `complete` false, and the caller
 * takes the row through JSON.parse.
 */
class FieldWalker {
  private text = "";
  private at = 0;
  /** Position of the next backslash at or after `at`, or the text's length: values before it have no escapes. */
  private nextEscape = 0;
  private failed = false;
  /** The key is text[keyStart, keyEnd). */
  keyStart = 0;
  keyEnd = 0;
  /** The value's literal, quotes included, is text[valueStart, valueEnd]. */
  valueStart = 0;
  valueEnd = 0;
  /** Whether the value's literal holds escapes (so slicing its inside is not its value). */
  escaped = false;

  /** False when `text` does not open an object. */
  start(text: string): boolean {
    this.text = text;
    this.at = 1;
    this.failed = false;
    const esc = text.indexOf("\\", 1);
    this.nextEscape = esc < 0 ? text.length : esc;
    return text.charCodeAt(0) === 123; // "{"
  }

  /** Steps to the next field; false at the object's end or at anything unexpected. */
  next(): boolean {
    const text = this.text;
    const n = text.length;
    const i = this.at;
    if (i >= n || text.charCodeAt(i) === 125 /* } */) return false;
    if (text.charCodeAt(i) !== QUOTE) return this.fail();
    const keyEnd = text.indexOf('"', i + 1);
    if (keyEnd < 0 || keyEnd > this.nextEscape) return this.fail(); // escaped key: rare, the slow path
    if (text.charCodeAt(keyEnd + 1) !== 58 /* : */ || text.charCodeAt(keyEnd + 2) !== QUOTE) return this.fail();
    const valueStart = keyEnd + 2;
    let valueEnd = text.indexOf('"', valueStart + 1);
    let escaped = false;
    if (valueEnd > this.nextEscape) {
      // The value holds an escape: its end is the first quote not escaped, which one native regex
      // run finds (a JSON line in `_msg` has a dozen escaped quotes to step over).
      escaped = true;
      STRING_REST.lastIndex = valueStart + 1;
      if (!STRING_REST.test(text)) return this.fail();
      valueEnd = STRING_REST.lastIndex - 1;
      const esc = text.indexOf("\\", valueEnd);
      this.nextEscape = esc < 0 ? n : esc;
    }
    if (valueEnd < 0) return this.fail();
    const c = text.charCodeAt(valueEnd + 1);
    if (c !== 44 /* , */ && c !== 125) return this.fail();
    this.keyStart = i + 1;
    this.keyEnd = keyEnd;
    this.valueStart = valueStart;
    this.valueEnd = valueEnd;
    this.escaped = escaped;
    this.at = c === 44 ? valueEnd + 2 : valueEnd + 1;
    return true;
  }

  /** Whether the walk ended at the object's closing brace, the text's last character. */
  get complete(): boolean {
    return !this.failed && this.at === this.text.length - 1 && this.text.charCodeAt(this.at) === 125;
  }

  keyIs(name: string): boolean {
    return name.length === this.keyEnd - this.keyStart && this.text.startsWith(name, this.keyStart);
  }

  /** The current value: its literal's inside, decoded only when it has escapes. */
  value(): string {
    const { text, valueStart, valueEnd } = this;
    return this.escaped
      ? (JSON.parse(text.slice(valueStart, valueEnd + 1)) as string)
      : text.slice(valueStart + 1, valueEnd);
  }

  private fail(): false {
    this.failed = true;
    return false;
  }
}

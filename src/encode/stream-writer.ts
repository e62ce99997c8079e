/**
 * Loki's `streams` response written incrementally: entries go in one at a time, text comes out in
 * chunks of bounded size, so memory does not grow with the answer.
 *
 * Consecutive entries with the same label set share one stream object; a label set that comes back
 * later opens another object with the same labels. When all entries are known (a query's top
 * `limit`), `groupByLabelSet` orders them first so every label set gets exactly one object, as Loki
 * answers.
 */
import type { Labels, LogEntry } from "../engine/types";

export interface StreamsWriterOptions {
  categorize: boolean;
  /** Buffered characters that trigger a flush to the sink. */
  chunkChars?: number;
  /**
   * "query" (default): the query_range body, closed by `end(stats)`.
   * "tail": a tail frame `{"streams":[...]}`, closed by `endFrame()`.
   */
  envelope?: "query" | "tail";
}

export class StreamsJsonWriter {
  private buf = "";
  private openKey: string | undefined;
  private anyStream = false;
  private readonly chunkChars: number;
  private readonly categorize: boolean;
  /** The previous entry's label identity: consecutive rows of one stream skip the key computation. */
  private lastStream: Labels | undefined;
  private lastMetadata: Labels | undefined;
  private lastParsed: Labels | undefined;
  /** Stream labels pre-rendered by object identity (the row decoder shares one object per stream). */
  private readonly rendered = new WeakMap<Labels, RenderedLabels>();

  constructor(
    private readonly sink: (chunk: string) => void,
    opts: StreamsWriterOptions,
  ) {
    this.categorize = opts.categorize;
    this.chunkChars = opts.chunkChars ?? 64 * 1024;
    const flags = this.categorize ? `"encodingFlags":["categorize-labels"],` : "";
    this.buf =
      opts.envelope === "tail"
        ? `{"streams":[`
        : `{"status":"success","data":{"resultType":"streams",${flags}"result":[`;
  }

  push(e: LogEntry): void {
    this.writeEntry(e, this.keyOf(e));
  }

  /** An entry whose label set's key (from groupByLabelSet) the caller already has. */
  pushKeyed(e: LogEntry, key: string): void {
    // keyOf's shortcut compares with the previous push(): this entry must not count as one.
    this.lastStream = undefined;
    this.writeEntry(e, key);
  }

  /** All entries of one label set. */
  pushGroup(group: LabelSetGroup): void {
    for (const e of group.entries) this.pushKeyed(e, group.key);
  }

  private writeEntry(e: LogEntry, key: string): void {
    let head: string;
    if (key !== this.openKey) {
      head = `${this.openKey !== undefined ? "]}" : ""}${this.anyStream ? "," : ""}{"stream":${key},"values":[`;
      this.anyStream = true;
      this.openKey = key;
    } else {
      head = ",";
    }
    // One concatenation per entry: each `+=` on the buffer costs more than building the piece.
    const line = e.rawLine ?? JSON.stringify(e.line);
    this.buf += this.categorize ? `${head}["${e.ts}",${line},${categorizedExtra(e)}]` : `${head}["${e.ts}",${line}]`;
    if (this.buf.length >= this.chunkChars) this.flush();
  }

  /** Closes the document; `stats` is Loki's stats object, already JSON. */
  end(stats: string): void {
    if (this.openKey !== undefined) this.buf += "]}";
    this.buf += `],"stats":${stats}}}`;
    this.flush();
  }

  /**
   * Closes a tail frame; Loki puts `dropped_entries` (already JSON, only when some were dropped)
   * and then `encodingFlags` after `streams` there.
   */
  endFrame(droppedJson?: string): void {
    if (this.openKey !== undefined) this.buf += "]}";
    this.buf += "]";
    if (droppedJson !== undefined) this.buf += `,"dropped_entries":${droppedJson}`;
    this.buf += this.categorize ? `,"encodingFlags":["categorize-labels"]}` : "}";
    this.flush();
  }

  flush(): void {
    if (this.buf.length === 0) return;
    const chunk = this.buf;
    this.buf = "";
    this.sink(chunk);
  }

  private keyOf(e: LogEntry): string {
    const same =
      this.openKey !== undefined &&
      e.stream === this.lastStream &&
      (this.categorize ||
        (sameOrBothEmpty(e.metadata, this.lastMetadata) && sameOrBothEmpty(e.parsed, this.lastParsed)));
    this.lastStream = e.stream;
    this.lastMetadata = e.metadata;
    this.lastParsed = e.parsed;
    if (same) return this.openKey!;
    let base = this.rendered.get(e.stream);
    if (base === undefined) this.rendered.set(e.stream, (base = renderLabels(e.stream)));
    if (this.categorize || (isEmpty(e.metadata) && isEmpty(e.parsed))) return base.json;
    return mergedLabelsJson(base, e.metadata, e.parsed);
  }
}

/** The entries of one label set, and that label set as the JSON of a stream object's `stream`. */
export interface LabelSetGroup {
  key: string;
  entries: LogEntry[];
}

/**
 * Groups entries by label set (first-seen order of label sets, direction order within each),
 * giving Loki's one stream object per label set.
 */
export function groupByLabelSet(entries: readonly LogEntry[], categorize: boolean): LabelSetGroup[] {
  const groups = new Map<string, LogEntry[]>();
  // Entries of one stream share their stream object: render each stream's labels once.
  const rendered = new Map<Labels, RenderedLabels>();
  for (const e of entries) {
    let base = rendered.get(e.stream);
    if (base === undefined) rendered.set(e.stream, (base = renderLabels(e.stream)));
    const key =
      categorize || (isEmpty(e.metadata) && isEmpty(e.parsed))
        ? base.json
        : mergedLabelsJson(base, e.metadata, e.parsed);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(e);
  }
  return Array.from(groups, ([key, list]) => ({ key, entries: list }));
}

/** A whole tail frame for a batch of entries; `droppedJson` is its `dropped_entries`, if any. */
export function tailFrameJson(entries: readonly LogEntry[], categorize: boolean, droppedJson?: string): string {
  let out = "";
  const w = new StreamsJsonWriter((c) => (out += c), { categorize, envelope: "tail" });
  for (const g of groupByLabelSet(entries, categorize)) w.pushGroup(g);
  w.endFrame(droppedJson);
  return out;
}

function sameOrBothEmpty(a: Labels, b: Labels | undefined): boolean {
  return a === b || (isEmpty(a) && isEmpty(b));
}

/** A label set's sorted names and their `"name":"value"` members, rendered once per stream. */
interface RenderedLabels {
  names: string[];
  members: string[];
  json: string;
  /** Where the last entry's own labels went among these (see LabelsLayout). */
  layout?: LabelsLayout;
}

/**
 * Where the values of an entry's own labels (metadata and parsed, disjoint) go in the merged label
 * set of one stream: the text between them is the same for every entry with those names, so an
 * entry costs its values alone. Entries of a stream mostly carry the same names in the same order
 * (VictoriaLogs sends a row's fields in one order, a parser finds the same keys), so each stream
 * keeps the layout it last needed.
 */
interface LabelsLayout {
  /** The entry's own label names, metadata first, each in the order its object holds them. */
  names: string[];
  /** For each value slot in label order, the index of its name in `names`. */
  slots: number[];
  /** The text around the slots: `text[0]`, value of slot 0, `text[1]`, …, `text[slots.length]`. */
  text: string[];
}

function renderLabels(labels: Labels): RenderedLabels {
  const names = Object.keys(labels).sort();
  const members = names.map((n) => `${jsonString(n)}:${jsonString(labels[n]!)}`);
  return { names, members, json: `{${members.join(",")}}` };
}

function labelsLayout(base: RenderedLabels, names: string[]): LabelsLayout {
  const sorted = [...names];
  sortNames(sorted);
  const slots: number[] = [];
  const text: string[] = [];
  let piece = "{";
  let first = true;
  let i = 0;
  let j = 0;
  while (i < base.names.length || j < sorted.length) {
    if (!first) piece += ",";
    first = false;
    const a = base.names[i];
    const b = sorted[j];
    if (b === undefined || (a !== undefined && a < b)) {
      piece += base.members[i++];
    } else {
      if (a === b) i++; // overridden by the entry's own label
      text.push(`${piece}${jsonString(b)}:`);
      slots.push(names.indexOf(b));
      piece = "";
      j++;
    }
  }
  text.push(`${piece}}`);
  return { names, slots, text };
}

/** Whether `keys` (an object's own names, in order) are the layout's names. */
function sameNames(layout: LabelsLayout, keys: string[]): boolean {
  const names = layout.names;
  if (names.length !== keys.length) return false;
  for (let k = 0; k < keys.length; k++) if (names[k] !== keys[k]) return false;
  return true;
}

/**
 * The merged label set (stream, then metadata, then parsed; later wins) as sorted JSON: the entry's
 * own labels go into the stream's pre-rendered text where its layout for those names puts them.
 * Runs once per entry with labels of its own, so it builds no intermediate object.
 */
function mergedLabelsJson(base: RenderedLabels, metadata: Labels, parsed: Labels): string {
  let names: string[];
  let values: string[];
  if (isEmpty(parsed)) {
    names = Object.keys(metadata);
    values = Object.values(metadata);
  } else {
    names = [];
    values = [];
    for (const k in metadata) {
      if (Object.hasOwn(parsed, k)) continue;
      names.push(k);
      values.push(metadata[k]!);
    }
    for (const k in parsed) {
      names.push(k);
      values.push(parsed[k]!);
    }
  }
  let layout = base.layout;
  if (layout === undefined || !sameNames(layout, names)) base.layout = layout = labelsLayout(base, names);
  const { slots, text } = layout;
  let out = text[0]!;
  for (let k = 0; k < slots.length; k++) out += jsonString(values[slots[k]!]!) + text[k + 1]!;
  return out;
}

/** Sorts a few names in place (code-unit order, as Array.prototype.sort) without sort's scratch array. */
function sortNames(names: string[]): void {
  if (names.length > 12) {
    names.sort();
    return;
  }
  for (let k = 1; k < names.length; k++) {
    const name = names[k]!;
    let m = k - 1;
    while (m >= 0 && names[m]! > name) {
      names[m + 1] = names[m]!;
      m--;
    }
    names[m + 1] = name;
  }
}

/** Characters JSON must escape, and lone surrogates (which JSON.stringify escapes too). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function isEmpty(l: Labels | undefined): boolean {
  for (const _ in l) return false;
  return true;
}

function categorizedExtra(e: LogEntry): string {
  const meta = isEmpty(e.metadata) ? "" : `"structuredMetadata":${labelsJson(e.metadata)}`;
  const parsed = isEmpty(e.parsed) ? "" : `"parsed":${labelsJson(e.parsed)}`;
  return `{${meta}${meta && parsed ? "," : ""}${parsed}}`;
}

/** A small label set as JSON with sorted keys, without the arrays renderLabels keeps for reuse. */
function labelsJson(labels: Labels): string {
  const names = Object.keys(labels);
  if (names.length === 1) return `{${jsonString(names[0]!)}:${jsonString(labels[names[0]!]!)}}`;
  names.sort();
  let out = "{";
  for (let i = 0; i < names.length; i++) {
    out += `${i > 0 ? "," : ""}${jsonString(names[i]!)}:${jsonString(labels[names[i]!]!)}`;
  }
  return out + "}";
}

/**
 * A response body that pulls entries only as fast as the client reads (backpressure), so at most one
 * chunk is buffered. Entries come grouped by label set (a query's top `limit`, see groupByLabelSet)
 * or as batches from an async source (the rows of one network chunk each), so no entry costs an
 * await of its own. Cancelling the body (client gone) returns the source's iterator, which aborts
 * the origin.
 */
export function streamsResponseStream(
  entries: readonly LabelSetGroup[] | AsyncIterable<Iterable<LogEntry>>,
  categorize: boolean,
  stats: () => string,
  chunkChars = 64 * 1024,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const groups = Array.isArray(entries) ? (entries as readonly LabelSetGroup[]) : undefined;
  const asyncIt = groups ? undefined : (entries as AsyncIterable<Iterable<LogEntry>>)[Symbol.asyncIterator]();
  const pending: string[] = [];
  const writer = new StreamsJsonWriter((c) => pending.push(c), { categorize, chunkChars });
  let done = false;
  let g = 0;
  let i = 0;
  const finish = () => {
    writer.end(stats());
    done = true;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (pending.length === 0 && !done) {
        if (groups) {
          // Entry by entry, so one large group still leaves in bounded chunks.
          const group = groups[g];
          if (group === undefined) finish();
          else if (i < group.entries.length) writer.pushKeyed(group.entries[i++]!, group.key);
          else {
            g++;
            i = 0;
          }
        } else {
          const r = await asyncIt!.next();
          if (r.done) finish();
          else for (const e of r.value) writer.push(e);
        }
      }
      const chunk = pending.shift();
      if (chunk !== undefined) controller.enqueue(encoder.encode(chunk));
      if (done && pending.length === 0) controller.close();
    },
    async cancel(reason) {
      await asyncIt?.return?.(reason);
    },
  });
}

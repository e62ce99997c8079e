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
import { groupByLabelSet, isEmpty, labelSetJson, ownLabels, renderedLabels, type LabelSetGroup } from "./label-sets";
import { sortedLabelsJson } from "./labels";
import { Utf8Chunks } from "./utf8";

export interface StreamsWriterOptions {
  categorize: boolean;
  /** Buffered characters (bytes, for a byte TextOut) that trigger a flush to the sink. */
  chunkChars?: number;
  /**
   * "query" (default): the query_range body, closed by `end(stats)`.
   * "tail": a tail frame `{"streams":[...]}`, closed by `endFrame()`.
   */
  envelope?: "query" | "tail";
}

/** Where a writer's text goes: appended piece by piece, handed on in chunks (`flush`). */
export interface TextOut {
  write(piece: string): void;
  /** What has been written since the last flush (characters or bytes). */
  readonly size: number;
  flush(): void;
}

/** Text chunks as strings, for a sink that takes text (tail frames, tests). */
class StringOut implements TextOut {
  private buf = "";

  constructor(private readonly sink: (chunk: string) => void) {}

  get size(): number {
    return this.buf.length;
  }

  write(piece: string): void {
    this.buf += piece;
  }

  flush(): void {
    if (this.buf.length === 0) return;
    const chunk = this.buf;
    this.buf = "";
    this.sink(chunk);
  }
}

export class StreamsJsonWriter {
  private readonly out: TextOut;
  private openKey: string | undefined;
  private anyStream = false;
  private readonly chunkChars: number;
  private readonly categorize: boolean;
  /** The previous entry's label identity: consecutive rows of one stream skip the key computation. */
  private lastStream: Labels | undefined;
  private lastMetadata: Labels | undefined;
  private lastParsed: Labels | undefined;

  /** `sink`: text chunks as strings, or a TextOut of its own (bytes, see Utf8Chunks). */
  constructor(sink: ((chunk: string) => void) | TextOut, opts: StreamsWriterOptions) {
    this.out = typeof sink === "function" ? new StringOut(sink) : sink;
    this.categorize = opts.categorize;
    this.chunkChars = opts.chunkChars ?? 64 * 1024;
    const flags = this.categorize ? `"encodingFlags":["categorize-labels"],` : "";
    this.out.write(
      opts.envelope === "tail"
        ? `{"streams":[`
        : `{"status":"success","data":{"resultType":"streams",${flags}"result":[`,
    );
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
    this.out.write(
      this.categorize ? `${head}["${e.ts}",${line},${categorizedExtra(e)}]` : `${head}["${e.ts}",${line}]`,
    );
    if (this.out.size >= this.chunkChars) this.out.flush();
  }

  /** Closes the document; `stats` is Loki's stats object, already JSON. */
  end(stats: string): void {
    this.out.write(`${this.openKey !== undefined ? "]}" : ""}],"stats":${stats}}}`);
    this.out.flush();
  }

  /**
   * Closes a tail frame; Loki puts `dropped_entries` (already JSON, only when some were dropped)
   * and then `encodingFlags` after `streams` there.
   */
  endFrame(droppedJson?: string): void {
    let tail = this.openKey !== undefined ? "]}]" : "]";
    if (droppedJson !== undefined) tail += `,"dropped_entries":${droppedJson}`;
    tail += this.categorize ? `,"encodingFlags":["categorize-labels"]}` : "}";
    this.out.write(tail);
    this.out.flush();
  }

  flush(): void {
    this.out.flush();
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
    const base = renderedLabels(e.stream);
    return labelSetJson(base, this.categorize ? undefined : ownLabels(base, e.metadata, e.parsed));
  }
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

function categorizedExtra(e: LogEntry): string {
  const meta = isEmpty(e.metadata) ? "" : `"structuredMetadata":${sortedLabelsJson(e.metadata)}`;
  const parsed = isEmpty(e.parsed) ? "" : `"parsed":${sortedLabelsJson(e.parsed)}`;
  return `{${meta}${meta && parsed ? "," : ""}${parsed}}`;
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
  const groups = Array.isArray(entries) ? (entries as readonly LabelSetGroup[]) : undefined;
  const asyncIt = groups ? undefined : (entries as AsyncIterable<Iterable<LogEntry>>)[Symbol.asyncIterator]();
  const pending: Uint8Array[] = [];
  // Pieces go into byte chunks as they are written: no chunk of text is built to be copied again.
  const writer = new StreamsJsonWriter(new Utf8Chunks(chunkChars, (c) => pending.push(c)), { categorize, chunkChars });
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
      if (chunk !== undefined) controller.enqueue(chunk);
      if (done && pending.length === 0) controller.close();
    },
    async cancel(reason) {
      await asyncIt?.return?.(reason);
    },
  });
}

/**
 * The path the stream proof measures, shared by its Node run (proof.ts) and its workerd run
 * (workerd.ts): VictoriaLogs NDJSON bytes → NDJSON framing → RowScanner → the (empty) Worker
 * pipeline → the incremental Loki encoder → a byte-stream body. The production path of a log query
 * whose stages all ran in the origin (src/exec/logs.ts), without the query's top-`limit` cut.
 */
import { readLineBatches } from "../../src/origin/ndjson";
import { RowScanner } from "../../src/origin/rows";
import { compileLogPipeline } from "../../src/engine/pipeline";
import { streamsResponseStream } from "../../src/encode/stream-writer";
import type { LogEntry } from "../../src/engine/types";

/** The Loki answer for `source`; `afterBatch` is told how many rows each network chunk held. */
export function lokiBody(
  source: ReadableStream<Uint8Array>,
  afterBatch: (rows: number) => void,
): ReadableStream<Uint8Array> {
  async function* entries(): AsyncGenerator<LogEntry[]> {
    const scanner = new RowScanner();
    const pipeline = compileLogPipeline([]);
    for await (const batch of readLineBatches(source)) {
      const out: LogEntry[] = [];
      for (const line of batch) {
        const entry = pipeline.process(scanner.scan(line));
        if (entry) out.push(entry);
      }
      afterBatch(batch.length);
      yield out;
    }
  }
  return streamsResponseStream(entries(), false, () => '{"summary":{}}');
}

/** Reads `body` to its end, as a client would, and discards it; `afterChunk` sees each chunk's size. */
export async function drain(
  body: ReadableStream<Uint8Array>,
  afterChunk: (bytes: number) => void = () => {},
): Promise<number> {
  const reader = body.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.length;
    afterChunk(value.length);
  }
}

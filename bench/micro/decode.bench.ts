/**
 * The per-row hot path: VictoriaLogs NDJSON → LogRow → Loki streams JSON. Each benchmark handles
 * 1000 rows per iteration, so its mean time in milliseconds reads directly as µs per row.
 * Target: ≤ 1 µs per typical (≈ 250-byte) row for the whole path, bytes in to bytes out.
 */
import { bench, describe } from "vitest";
import { RowDecoder, RowScanner, type VLRow } from "../../src/origin/rows";
import { readLineBatches } from "../../src/origin/ndjson";
import { StreamsJsonWriter } from "../../src/encode/stream-writer";
import { compileLogPipeline } from "../../src/engine/pipeline";
import type { LogEntry } from "../../src/engine/types";
import { rowSource } from "../lib/synthetic";

const N = 1000;
const src = rowSource(42);
const lines = Array.from({ length: N }, () => src.next());
const ndjsonBytes = new TextEncoder().encode(lines.join("\n") + "\n");
const entries: LogEntry[] = (() => {
  const s = new RowScanner();
  return lines.map((l) => ({ ...s.scan(l), parsed: {} }));
})();
// The line filter runs in VictoriaLogs; what the Worker runs per row is an empty pipeline.
const pipeline = compileLogPipeline([]);

const avgBytes = Math.round(ndjsonBytes.length / N);
console.log(`decode.bench: ${N} rows per iteration, ${avgBytes} bytes per row on average`);

let sink = 0;
const drop = (c: string) => {
  sink += c.length;
};
const encoder = new TextEncoder();
const encodeAndDrop = (c: string) => {
  sink += encoder.encode(c).length;
};

function bytesStream(): ReadableStream<Uint8Array> {
  // 16 KiB pieces, as a network body arrives.
  let off = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (off >= ndjsonBytes.length) return c.close();
      c.enqueue(ndjsonBytes.subarray(off, off + 16384));
      off += 16384;
    },
  });
}

describe(`per ${N} rows (mean ms = µs per row)`, () => {
  bench("reference: JSON.parse only", () => {
    for (const l of lines) sink += (JSON.parse(l) as VLRow)._msg!.length;
  });

  bench("reference: JSON.parse + RowDecoder", () => {
    const d = new RowDecoder();
    for (const l of lines) sink += d.decode(JSON.parse(l) as VLRow).line.length;
  });

  bench("RowScanner.scan (line → LogRow)", () => {
    const s = new RowScanner();
    for (const l of lines) sink += s.scan(l).line.length;
  });

  bench("StreamsJsonWriter.push (LogEntry → Loki JSON)", () => {
    const w = new StreamsJsonWriter(drop, { categorize: false });
    for (const e of entries) w.push(e);
    w.end("{}");
  });

  bench("StreamsJsonWriter.push, categorize-labels", () => {
    const w = new StreamsJsonWriter(drop, { categorize: true });
    for (const e of entries) w.push(e);
    w.end("{}");
  });

  bench("line → LogRow → pipeline → Loki JSON (whole path from strings)", () => {
    const s = new RowScanner();
    const w = new StreamsJsonWriter(drop, { categorize: false });
    for (const l of lines) {
      const e = pipeline.process(s.scan(l));
      if (e) w.push(e);
    }
    w.end("{}");
  });

  for (const categorize of [false, true]) {
    bench(
      `bytes → lines → LogRow → pipeline → Loki JSON → bytes (whole path${categorize ? ", categorize-labels" : ""})`,
      async () => {
        const s = new RowScanner();
        const w = new StreamsJsonWriter(encodeAndDrop, { categorize });
        for await (const batch of readLineBatches(bytesStream())) {
          for (const l of batch) {
            const e = pipeline.process(s.scan(l));
            if (e) w.push(e);
          }
        }
        w.end("{}");
      },
    );
  }
});

export { sink };

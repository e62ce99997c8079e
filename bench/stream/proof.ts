/**
 * Bounded-memory proof for the streaming path: ≥ 1 GB of VictoriaLogs NDJSON goes through NDJSON
 * framing → RowScanner → the (empty) Worker pipeline → the incremental Loki encoder → a byte-stream
 * body that is read and discarded, as a client would. Reports throughput and how far the heap grew above its
 * starting point (target ≤ 32 MB, a quarter of a Worker isolate's 128 MB).
 *
 * Run through bench/stream/run.mjs (bundles this file and runs Node with --expose-gc).
 */
import { replayedNdjsonStream } from "../lib/synthetic";
import { drain, lokiBody } from "./path";

declare const process: {
  env: Record<string, string | undefined>;
  memoryUsage: { (): { heapUsed: number; rss: number }; rss(): number };
  getBuiltinModule?(id: "node:v8"): { getHeapStatistics(): { used_heap_size: number } };
  stdout: { write(s: string): void };
};
declare const gc: (() => void) | undefined;

/**
 * The heap in use, read after every network chunk. `process.memoryUsage()` also reads the RSS from
 * the kernel, which costs about 17 µs a call here: 3% of the time measured, at one call a chunk.
 * V8's own statistics give the same figure (`heapUsed` is `used_heap_size`) in well under 1 µs.
 */
const v8 = process.getBuiltinModule?.("node:v8");
const heapUsed = v8 ? () => v8.getHeapStatistics().used_heap_size : () => process.memoryUsage().heapUsed;
/** The RSS (reported, not a target) is read once every this many chunks. */
const RSS_EVERY = 32;

const MB = 1024 * 1024;
const totalBytes = Number(process.env.BENCH_STREAM_BYTES ?? 1024 * MB);
const TARGET_MB = 32;

async function main(): Promise<void> {
  let inBytes = 0;
  // The input pool is allocated before the baseline: only the transformer's memory is measured.
  const source = replayedNdjsonStream(totalBytes, { onChunk: (n) => (inBytes += n) });
  gc?.();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  let peakRss = base.rss;
  let rows = 0;
  let batches = 0;

  const started = performance.now();
  let lastReport = started;
  const body = lokiBody(source, (batchRows) => {
    rows += batchRows;
    const heap = heapUsed();
    if (heap > peakHeap) peakHeap = heap;
    if (++batches % RSS_EVERY === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
  });
  const outBytes = await drain(body, () => {
    const now = performance.now();
    if (now - lastReport > 5000) {
      lastReport = now;
      process.stdout.write(
        `[stream] ${(inBytes / MB).toFixed(0)} MB in, ${rows} rows, heap +${((peakHeap - base.heapUsed) / MB).toFixed(1)} MB\n`,
      );
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const growthMb = (peakHeap - base.heapUsed) / MB;
  const result = {
    inputMB: +(inBytes / MB).toFixed(1),
    outputMB: +(outBytes / MB).toFixed(1),
    rows,
    seconds: +seconds.toFixed(2),
    inputMBps: +(inBytes / MB / seconds).toFixed(1),
    rowsPerSecond: Math.round(rows / seconds),
    usPerRow: +((seconds * 1e6) / rows).toFixed(3),
    baseHeapMB: +(base.heapUsed / MB).toFixed(1),
    peakHeapGrowthMB: +growthMb.toFixed(1),
    peakRssMB: +(peakRss / MB).toFixed(1),
    targetHeapGrowthMB: TARGET_MB,
    withinTarget: growthMb <= TARGET_MB,
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

void main();

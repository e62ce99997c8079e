// `npm run bench:stream`: the bounded-memory proof (bench/stream/proof.ts). Bundles the TypeScript
// with esbuild (already installed as wrangler's own bundler), runs it in a fresh Node with
// --expose-gc and a 128 MB heap cap like a Worker isolate, and writes bench/results/stream.md.
// BENCH_STREAM_BYTES sets the input size (default 1 GiB; BENCH_QUICK=1: 200 MiB).

import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCappedNode } from "../lib/capped-node.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const quick = process.env.BENCH_QUICK === "1";
const bytes = process.env.BENCH_STREAM_BYTES ?? String((quick ? 200 : 1024) * 1024 * 1024);

const { exit, results } = await runCappedNode(join(root, "bench", "stream", "proof.ts"), { BENCH_STREAM_BYTES: bytes });
const r = results[0];
if (exit !== 0 || !r) {
  process.stderr.write(`[stream] the proof failed (exit ${exit})\n`);
  process.exit(1);
}

const md = [
  "# Streaming proof: NDJSON → Loki JSON in bounded memory",
  "",
  `Run ${new Date().toISOString()}, Node ${process.version}, heap capped at 128 MB (a Worker isolate's limit).`,
  "",
  "| input | output | rows | time | input throughput | per row | peak heap growth | target | peak RSS |",
  "|---|---|---|---|---|---|---|---|---|",
  `| ${r.inputMB} MB | ${r.outputMB} MB | ${r.rows.toLocaleString("en")} | ${r.seconds} s | ${r.inputMBps} MB/s | ${r.usPerRow} µs | ${r.peakHeapGrowthMB} MB | ≤ ${r.targetHeapGrowthMB} MB ${r.withinTarget ? "✅" : "❌"} | ${r.peakRssMB} MB |`,
  "",
  "Rows as VictoriaLogs sends them (its field order, `_stream_id`, about 350 bytes; 240 streams interleaved, trace ids as structured metadata).",
  "",
  "Path: bytes (64 KiB chunks, cut mid-row, replayed from a 16 MB pool of generated rows so the generator is not timed) →",
  "readLineBatches → RowScanner → empty pipeline → LogEntry →",
  "streamsResponseStream (StreamsJsonWriter, 64 KiB chunks, pulled by the reader) → discarded.",
  "",
].join("\n");
await mkdir(join(root, "bench", "results"), { recursive: true });
await writeFile(join(root, "bench", "results", "stream.md"), md);
process.stdout.write(`\n${md}\nwritten to bench/results/stream.md\n`);
if (!r.withinTarget) process.exit(2);

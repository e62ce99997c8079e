// `npm run bench:memory`: memory under concurrency (bench/memory/harness.ts). Starts a real
// VictoriaLogs with the compat dataset on 127.0.0.1, bundles the harness with esbuild, runs it in a
// fresh Node with --expose-gc and a 128 MB heap cap like a Worker isolate, stops VictoriaLogs by
// PID, and writes bench/results/memory.md. BENCH_CONCURRENCY sets the concurrency (default 50).

import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { startTestOrigin } from "../../test/support/origin.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const TARGET_MB = 64;

const origin = await startTestOrigin({ dataset: "compat" });
const dir = await mkdtemp(join(tmpdir(), "lokivl-memory-"));
try {
  const out = join(dir, "harness.mjs");
  await build({
    entryPoints: [join(root, "bench", "memory", "harness.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2022",
    outfile: out,
    logLevel: "warning",
  });
  const lines = [];
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", "--max-old-space-size=128", out], {
      env: { ...process.env, ORIGIN_URL: origin.url },
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      process.stdout.write(chunk);
      lines.push(...chunk.split("\n"));
    });
    child.on("exit", (c, signal) => resolve(signal ?? c));
  });
  const results = lines.filter((l) => l.startsWith("RESULT ")).map((l) => JSON.parse(l.slice("RESULT ".length)));
  const md = [
    "# Memory under concurrency",
    "",
    `Run ${new Date().toISOString()}, Node ${process.version}, heap capped at 128 MB (a Worker isolate's limit); the Worker's`,
    "app (`createApp().fetch`) against a real VictoriaLogs with the compat dataset (85,451 lines over 6 h), cache off, level",
    "discovery on. Each round sends its requests at once, each `limit=5000` over 6 h with a distinct window, and reads every",
    "answer to the end. Peak live heap: the largest heap after a full collection (forced every 50 ms) above the idle baseline;",
    "peak heap: the largest `heapUsed` sampled every 2 ms, garbage not yet collected included.",
    "",
    "| round | concurrent | statuses | entries returned | answer MB | seconds | peak live heap | target | peak heap |",
    "|---|---|---|---|---|---|---|---|---|",
    ...results.map(
      (r) =>
        `| ${r.name} | ${r.concurrency} | ${Object.entries(r.statuses)
          .map(([s, n]) => `${n}×${s}`)
          .join(
            ", ",
          )} | ${r.entries.toLocaleString("en")} | ${r.bodyMB} | ${r.seconds} | ${r.peakLiveGrowthMB} MB | ≤ ${TARGET_MB} MB ${r.peakLiveGrowthMB <= TARGET_MB ? "✅" : "❌"} | ${r.peakHeapGrowthMB} MB |`,
    ),
    ...(code !== 0
      ? ["", `The harness process ended with ${code} after ${results.length} round(s) (out of memory).`]
      : []),
    "",
  ].join("\n");
  await writeFile(join(root, "bench", "results", "memory.md"), md);
  process.stdout.write(`\n${md}\n[memory] wrote bench/results/memory.md\n`);
  if (code !== 0) process.exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true });
  await origin.stop();
}

// `npm run bench:memory`: memory under concurrency (bench/memory/harness.ts). Starts a real
// VictoriaLogs with the compat dataset on 127.0.0.1, runs the harness in a fresh Node with a 128 MB
// heap cap like a Worker isolate (bench/lib/capped-node.mjs), stops VictoriaLogs by PID, and
// writes bench/results/memory.md. BENCH_CONCURRENCY sets the concurrency (default 50).

import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startTestOrigin } from "../../test/support/origin.mjs";
import { runCappedNode } from "../lib/capped-node.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const TARGET_MB = 64;

const origin = await startTestOrigin({ dataset: "compat" });
try {
  const { exit, results } = await runCappedNode(join(root, "bench", "memory", "harness.ts"), {
    ORIGIN_URL: origin.url,
  });
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
    ...(exit !== 0
      ? ["", `The harness process ended with ${exit} after ${results.length} round(s) (out of memory).`]
      : []),
    "",
  ].join("\n");
  await writeFile(join(root, "bench", "results", "memory.md"), md);
  process.stdout.write(`\n${md}\n[memory] wrote bench/results/memory.md\n`);
  if (exit !== 0) process.exitCode = 1;
} finally {
  await origin.stop();
}

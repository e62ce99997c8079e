// Runs a TypeScript benchmark in a fresh Node whose heap is capped at 128 MB, a Worker isolate's
// limit: bundled with esbuild (already installed as wrangler's own bundler), started with
// --expose-gc, its output echoed. Lines it prints as `RESULT {json}` are returned parsed.

import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { bundleBench } from "./bundle.mjs";

/**
 * @param {string} entry the .ts file
 * @param {Record<string, string>} env added to this process's environment
 * @param {{ timeoutMs?: number }} [options] timeoutMs: the process is killed (SIGKILL) after this long
 * @returns {Promise<{ exit: number | string | null, results: any[] }>} exit code, or the signal that ended it
 */
export async function runCappedNode(entry, env, { timeoutMs } = {}) {
  const dir = await mkdtemp(join(tmpdir(), "lokivl-bench-"));
  try {
    const out = join(dir, basename(entry).replace(/\.ts$/, ".mjs"));
    await bundleBench(entry, out);
    const lines = [];
    const exit = await new Promise((resolve) => {
      const child = spawn(process.execPath, ["--expose-gc", "--max-old-space-size=128", out], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "inherit"],
      });
      child.stdout.setEncoding("utf8").on("data", (chunk) => {
        process.stdout.write(chunk);
        lines.push(...chunk.split("\n"));
      });
      // A process busy in one synchronous loop runs no timer of its own: it is stopped from here.
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.on("exit", (code, signal) => {
        clearTimeout(timer);
        resolve(signal ?? code);
      });
    });
    const results = lines.filter((l) => l.startsWith("RESULT ")).map((l) => JSON.parse(l.slice("RESULT ".length)));
    return { exit, results };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

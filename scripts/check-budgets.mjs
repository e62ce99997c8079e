// Budgets of the deployed Worker, checked by `npm test` (and so in CI): the gzip size of the bundle
// `wrangler deploy --dry-run` produces (Cloudflare limits Workers by compressed size: 3 MB Free,
// 10 MB Paid), and the CPU its startup takes (module top-level evaluation, which Cloudflare limits
// and which delays every cold request) in a local workerd, as a ratio to a reference module's
// measured in the same run (scripts/lib/startup-cpu.mjs says why). Limits live in budgets.json;
// `--measure` prints figures without checking them.
//
// Each startup figure is the least of several runs, interleaved with the reference's: load can only
// raise a run's CPU (caches, a sibling hyperthread), never lower it.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { canMeasureStartup, referenceModule, startupCpuMs } from "./lib/startup-cpu.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const measureOnly = process.argv.includes("--measure");
const STARTUP_RUNS = 7;
const work = mkdtempSync(join(tmpdir(), "loki-vl-budgets-"));
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1" };

/** @param {string[]} args */
function wrangler(args) {
  const result = spawnSync("npx", ["wrangler", ...args], { cwd: root, env, encoding: "utf8" });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`wrangler ${args.join(" ")} failed`);
  }
}

try {
  // The top-level environment: the same code as staging and production, which differ only in bindings.
  wrangler(["deploy", "--dry-run", "--outdir", join(work, "dist"), "--env="]);
  const bundle = readFileSync(join(work, "dist", "index.js"));
  const gzipKiB = gzipSync(bundle).length / 1024;

  /** @type {Record<string, number>} */
  const figures = { bundleGzipKiB: round(gzipKiB) };
  let startupLine = "startup not measured (needs Linux's per-thread CPU counters)";
  if (canMeasureStartup()) {
    const source = bundle.toString("utf8");
    const reference = referenceModule();
    const runtime = workerRuntime();
    const bundleRuns = [];
    const referenceRuns = [];
    for (let i = 0; i < STARTUP_RUNS; i++) {
      bundleRuns.push(await startupCpuMs(source, runtime));
      referenceRuns.push(await startupCpuMs(reference, runtime));
    }
    const bundleMs = Math.min(...bundleRuns);
    const referenceMs = Math.min(...referenceRuns);
    figures.startupCpuRatio = Math.round((bundleMs / referenceMs) * 100) / 100;
    startupLine =
      `startup CPU ${round(bundleMs)} ms, reference module ${round(referenceMs)} ms: ` +
      `ratio ${figures.startupCpuRatio} (least of ${bundleRuns.map(round).join(", ")} and ${referenceRuns.map(round).join(", ")})`;
  }

  process.stdout.write(
    `[budgets] bundle ${round(bundle.length / 1024)} KiB, gzip ${figures.bundleGzipKiB} KiB; ${startupLine}\n`,
  );
  if (!measureOnly) {
    /** @type {Record<string, number>} */
    const budgets = JSON.parse(readFileSync(join(root, "budgets.json"), "utf8")).limits;
    const over = Object.entries(figures).filter(([name, value]) => {
      const limit = budgets[name];
      if (typeof limit !== "number") throw new Error(`budgets.json has no limit for ${name}`);
      process.stdout.write(`[budgets] ${name}: ${value} (limit ${limit})\n`);
      return value > limit;
    });
    if (over.length > 0) {
      process.stderr.write(`[budgets] over budget: ${over.map(([n]) => n).join(", ")}\n`);
      process.exitCode = 1;
    }
  }
} catch (err) {
  process.stderr.write(`[budgets] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** The top-level environment's compatibility date and flags, as wrangler.toml sets them. */
function workerRuntime() {
  const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  const topLevel = toml.slice(0, toml.search(/^\[/m));
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(topLevel)?.[1];
  if (!date) throw new Error("wrangler.toml sets no compatibility_date");
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(topLevel)?.[1] ?? "";
  return { compatibilityDate: date, compatibilityFlags: [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1] ?? "") };
}

/** @param {number} x */
function round(x) {
  return Math.round(x * 10) / 10;
}

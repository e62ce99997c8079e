// Budgets of the deployed Worker, checked by `npm test` (and so in CI): the gzip size of the bundle
// `wrangler deploy --dry-run` produces (Cloudflare limits Workers by compressed size: 3 MB Free,
// 10 MB Paid) and the CPU time of its startup (module top-level evaluation, which Cloudflare limits
// and which delays every cold request), from the V8 CPU profile `wrangler check startup` records in
// a local workerd. Limits live in budgets.json; `--measure` prints figures without checking them.
//
// The profile samples coarsely (a handful of samples per startup) and this machine is shared, so one
// run can read high by a few ms: the figure is the least of five runs, which load can only raise.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { startupCpuMs } from "./lib/cpu-profile.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const measureOnly = process.argv.includes("--measure");
const STARTUP_RUNS = 5;
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

  const startups = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const outfile = join(work, `startup-${i}.cpuprofile`);
    wrangler(["check", "startup", "--env=", "--outfile", outfile]);
    startups.push(startupCpuMs(JSON.parse(readFileSync(outfile, "utf8"))));
  }
  const startupMs = Math.min(...startups);

  const figures = { bundleGzipKiB: round(gzipKiB), startupCpuMs: round(startupMs) };
  process.stdout.write(
    `[budgets] bundle ${round(bundle.length / 1024)} KiB, gzip ${figures.bundleGzipKiB} KiB; ` +
      `startup CPU ${figures.startupCpuMs} ms (least of ${startups.map(round).join(", ")})\n`,
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

/** @param {number} x */
function round(x) {
  return Math.round(x * 10) / 10;
}

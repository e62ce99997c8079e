/**
 * Bundling the Worker for `npm start` (scripts/lib/serve-worker.mjs): the local top-level
 * environment is named, so wrangler does not warn about the staging and production environments
 * of wrangler.toml on every start.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const out = mkdtempSync(join(tmpdir(), "loki-vl-bundle-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("bundleWorker", () => {
  it("bundles the top-level environment without wrangler's multiple-environments warning", () => {
    const script = `import { bundleWorker } from "./scripts/lib/serve-worker.mjs"; bundleWorker(process.cwd(), ${JSON.stringify(out)});`;
    const res = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(res.status, res.stderr).toBe(0);
    expect(existsSync(join(out, "index.js"))).toBe(true);
    expect(res.stderr).not.toMatch(/Multiple environments are defined/);
    expect(res.stderr).not.toMatch(/WARNING/);
  });
});

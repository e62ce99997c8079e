/**
 * The developer-facing commands, run as a newcomer runs them: `npm run loadtest -- --help`
 * answers with its usage, a machine with neither k6 nor Go gets one line saying what to install
 * (no stack trace), and `npm run dev` is `npm start`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../../scripts/lib/victorialogs.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const work = mkdtempSync(join(tmpdir(), "loki-vl-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const loadtest = (args: string[], env: Record<string, string | undefined> = process.env) =>
  spawnSync(process.execPath, ["scripts/loadtest.mjs", ...args], { cwd: root, encoding: "utf8", env });

describe("npm run loadtest", () => {
  it("prints its usage for --help and exits 0", () => {
    for (const args of [["--help"], ["-h"], ["--url", "https://x.example", "--help"]]) {
      const res = loadtest(args);
      expect(res.status, res.stderr).toBe(0);
      expect(res.stdout).toMatch(/^usage: npm run loadtest -- --url /);
      expect(res.stdout).toContain("--workloads");
      expect(res.stderr).toBe("");
    }
  });

  it("without k6 and without Go, fails with one line that says what to install", async () => {
    const env = {
      HOME: work,
      XDG_CACHE_HOME: join(work, "cache"),
      PATH: join(work, "nothing-here"),
      K6_RELEASES_URL: `http://127.0.0.1:${await freePort()}`,
    };
    const res = loadtest(["--url", "http://127.0.0.1:9", "--duration", "1s"], env);
    expect(res.status).toBe(1);
    expect(res.stderr).not.toMatch(/^\s+at /m);
    const last = res.stderr.trimEnd().split("\n").pop();
    expect(last).toMatch(
      /^\[loadtest\] k6 is not installed and Go is not there to build it: install k6 .* or set K6_BIN$/,
    );
  });
});

describe("npm run dev", () => {
  it("is npm start, arguments included", () => {
    const res = spawnSync("npm", ["run", "--silent", "dev", "--", "--not-an-option"], { cwd: root, encoding: "utf8" });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain("[start] usage: npm start [-- --var NAME:value ...]");
  });
});

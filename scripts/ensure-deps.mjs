// Runs before `npm start` and `npm test`: install dependencies only when they are missing or
// older than the lockfile, so the common case costs a couple of stat() calls.

import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** @param {string} path */
function mtimeMs(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

const lockfile = mtimeMs(join(root, "package-lock.json"));
const manifest = mtimeMs(join(root, "package.json"));
// npm rewrites node_modules/.package-lock.json on every install: the best "installed at" stamp.
const installed = mtimeMs(join(root, "node_modules", ".package-lock.json")) ?? mtimeMs(join(root, "node_modules"));

const reference = lockfile ?? manifest ?? 0;
if (installed !== undefined && installed >= reference) process.exit(0);

const args = lockfile !== undefined ? ["ci"] : ["install"];
const why =
  installed === undefined
    ? "node_modules is missing"
    : `node_modules is older than ${lockfile !== undefined ? "package-lock.json" : "package.json"}`;
process.stderr.write(`[ensure-deps] ${why}: running npm ${args.join(" ")}\n`);
const result = spawnSync("npm", [...args, "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
if (result.error) {
  process.stderr.write(`[ensure-deps] could not run npm: ${result.error.message}\n`);
  process.exit(1);
}
process.exit(result.status ?? 1);

#!/usr/bin/env node
// Regenerates test/fixtures/go/*.json and src/core/go/isprint-table.ts by running the Go program
// in scripts/go-fixtures, which records what Go's strconv and time packages, Prometheus'
// model.ParseDuration and go-humanize return for edge and seeded random inputs. The outputs are
// committed, so tests and CI never need Go; run this after upgrading the Go behaviour followed.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const program = join(root, "scripts", "go-fixtures");
const fixtures = join(root, "test", "fixtures", "go");
const table = join(root, "src", "core", "go", "isprint-table.ts");

const run = spawnSync("go", ["run", ".", fixtures, table], { cwd: program, stdio: "inherit" });
if (run.error) {
  console.error(`go-fixtures: cannot run Go (${run.error.message}); install Go to regenerate the fixtures`);
  process.exit(1);
}
if (run.status !== 0) process.exit(run.status ?? 1);
const fmt = spawnSync("npx", ["prettier", "--write", table], { cwd: root, stdio: "inherit" });
process.exit(fmt.status ?? 1);

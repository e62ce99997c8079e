// The k6 binary for the benchmark and the load test: $K6_BIN, `k6` on PATH, a cached build
// (~/.cache/k6bin, the shared ~/.cache/lokivl, or our cache); built once from the Go module proxy
// (`go install go.k6.io/k6@v1.8.1`, ≈ 8 min on 2 cores) and never per run.

import { spawn } from "node:child_process";
import { constants, existsSync } from "node:fs";
import { access, mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { cacheDir } from "./victorialogs.mjs";

export const K6_VERSION = "v1.8.1";

/** @param {string} p */
const executable = async (p) => {
  try {
    await access(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** @returns {Promise<string>} */
export async function obtainK6() {
  if (process.env.K6_BIN) {
    if (await executable(process.env.K6_BIN)) return process.env.K6_BIN;
    throw new Error(`K6_BIN=${process.env.K6_BIN} is not executable`);
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && (await executable(join(dir, "k6")))) return join(dir, "k6");
  }
  for (const cached of [join(homedir(), ".cache", "k6bin", "k6"), join(homedir(), ".cache", "lokivl", "bin", "k6")])
    if (await executable(cached)) return cached;
  const binDir = join(cacheDir(), `k6-${K6_VERSION}`);
  const bin = join(binDir, "k6");
  if (await executable(bin)) return bin;

  await mkdir(binDir, { recursive: true });
  process.stderr.write(`[k6] building k6 ${K6_VERSION} into ${binDir} (once; ≈ 8 min on 2 cores)\n`);
  await new Promise((resolve, reject) => {
    const child = spawn("go", ["install", `go.k6.io/k6@${K6_VERSION}`], {
      env: { ...process.env, GOBIN: binDir, CGO_ENABLED: "0" },
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("error", (err) => reject(new Error(`could not run go (install Go or set K6_BIN): ${err.message}`)));
    child.on("exit", (code) =>
      code === 0 ? resolve(undefined) : reject(new Error(`go install k6 failed (exit ${code})`)),
    );
  });
  if (!existsSync(bin)) throw new Error(`go install finished but ${bin} is missing`);
  return bin;
}

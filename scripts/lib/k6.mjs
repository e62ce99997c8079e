// The k6 binary for the benchmark and the load test: $K6_BIN, `k6` on PATH, our cache, else the
// official release archive (checksum verified; Linux) or, where that cannot be had, a build from
// the Go module proxy (`go install go.k6.io/k6@v1.8.1`, ≈ 8 min on 2 cores). Never per run.

import { spawn } from "node:child_process";
import { constants, existsSync } from "node:fs";
import { access, mkdir } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { downloadOrBuild, goPlatform } from "./release-archive.mjs";
import { cacheDir } from "./victorialogs.mjs";

export const K6_VERSION = "v1.8.1";
const K6_RELEASES_URL = "https://github.com/grafana/k6/releases/download";

const log = (/** @type {string} */ msg) => process.stderr.write(`[k6] ${msg}\n`);

/** @param {string} p */
const executable = async (p) => {
  try {
    await access(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The release archive to try before building ($K6_RELEASES_URL replaces the GitHub download base;
 * "off" skips the download), or why there is none. k6 publishes .tar.gz archives for Linux only.
 * @param {Record<string, string | undefined>} [env]
 * @returns {{ release?: import("./release-archive.mjs").ReleaseArchive, skipReason?: string }}
 */
export function k6Release(env = process.env) {
  const baseUrl = env.K6_RELEASES_URL || K6_RELEASES_URL;
  if (baseUrl === "off") return { skipReason: "K6_RELEASES_URL=off" };
  const { os, arch } = goPlatform();
  if (os !== "linux" || !["amd64", "arm64"].includes(arch))
    return { skipReason: `no .tar.gz release archive for ${os}-${arch}` };
  return {
    release: {
      name: `k6 ${K6_VERSION}`,
      baseUrl,
      tag: K6_VERSION,
      archive: `k6-${K6_VERSION}-linux-${arch}.tar.gz`,
      checksums: `k6-${K6_VERSION}-checksums.txt`,
      member: "k6",
    },
  };
}

/** @param {string} bin */
async function buildK6(bin) {
  const binDir = join(bin, "..");
  await new Promise((resolve, reject) => {
    const child = spawn("go", ["install", `go.k6.io/k6@${K6_VERSION}`], {
      env: { ...process.env, GOBIN: binDir, CGO_ENABLED: "0" },
      stdio: ["ignore", "inherit", "inherit"],
    });
    // Announced once Go has started: without Go, the error below is the only line.
    child.on("spawn", () => log(`building k6 ${K6_VERSION} into ${binDir} (once; ≈ 8 min on 2 cores)`));
    child.on("error", (err) =>
      reject(
        /** @type {NodeJS.ErrnoException} */ (err).code === "ENOENT"
          ? new Error(
              "k6 is not installed and Go is not there to build it: install k6 (https://grafana.com/docs/k6/latest/set-up/install-k6/) or Go (https://go.dev/dl/), or set K6_BIN",
            )
          : new Error(`could not run go: ${err.message}`),
      ),
    );
    child.on("exit", (code) =>
      code === 0 ? resolve(undefined) : reject(new Error(`go install go.k6.io/k6@${K6_VERSION} failed (exit ${code})`)),
    );
  });
  if (!existsSync(bin)) throw new Error(`go install finished but ${bin} is missing`);
}

/** @returns {Promise<string>} */
export async function obtainK6() {
  if (process.env.K6_BIN) {
    if (await executable(process.env.K6_BIN)) return process.env.K6_BIN;
    throw new Error(`K6_BIN=${process.env.K6_BIN} is not executable`);
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && (await executable(join(dir, "k6")))) return join(dir, "k6");
  }
  const binDir = join(cacheDir(), `k6-${K6_VERSION}`);
  const bin = join(binDir, "k6");
  if (await executable(bin)) return bin;

  await mkdir(binDir, { recursive: true });
  await downloadOrBuild({ ...k6Release(), target: bin, build: buildK6, log });
  return bin;
}

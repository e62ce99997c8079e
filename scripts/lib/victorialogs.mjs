// Getting, running and loading a local VictoriaLogs: the default origin for `npm start` and the
// tests. The binary comes from the official release archive where GitHub is reachable, and is
// otherwise built from the Go module proxy (CI machines may have only Node, npm and Go).

import { spawn } from "node:child_process";
import { constants as fsConstants, openSync, closeSync } from "node:fs";
import { access, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { killGroup, registerCleanup, stopChild, isAlive } from "./cleanup.mjs";
import { downloadOrBuild, goPlatform } from "./release-archive.mjs";

/** The VictoriaMetrics monorepo release whose ./app/victoria-logs we build (VictoriaLogs 1.2x). */
export const VICTORIA_METRICS_VERSION = "v1.121.0";
const MODULE = "github.com/VictoriaMetrics/VictoriaMetrics";
/**
 * The official VictoriaLogs release of that code. VictoriaMetrics v1.121.0 (2025-07-04) carries
 * VictoriaLogs v1.24.0 (2025-06-20) plus the two fixes its CHANGELOG lists under "tip" (rate_sum
 * with time filters given as HTTP arguments; the web UI's autocomplete), neither on a path the
 * Worker uses. Releases of that time are tagged `vX-victorialogs` in the VictoriaMetrics repository;
 * later ones moved to github.com/VictoriaMetrics/VictoriaLogs with plain `vX` tags.
 */
export const VICTORIA_LOGS_RELEASE = "v1.24.0-victorialogs";
const VICTORIA_LOGS_RELEASES_URL = "https://github.com/VictoriaMetrics/VictoriaMetrics/releases/download";

const log = (/** @type {string} */ msg) => process.stderr.write(`[victorialogs] ${msg}\n`);
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @param {string} path */
async function isExecutable(path) {
  try {
    await access(path, fsConstants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** @param {string} name */
async function findOnPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && (await isExecutable(join(dir, name)))) return join(dir, name);
  }
  return undefined;
}

export function cacheDir() {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "loki-vl-worker");
}

/**
 * The release archive to try before building ($VICTORIA_LOGS_RELEASES_URL replaces the GitHub
 * download base, e.g. with a mirror; "off" skips the download), or why there is none.
 * @param {Record<string, string | undefined>} [env]
 * @returns {{ release?: import("./release-archive.mjs").ReleaseArchive, skipReason?: string }}
 */
export function victoriaLogsRelease(env = process.env) {
  const baseUrl = env.VICTORIA_LOGS_RELEASES_URL || VICTORIA_LOGS_RELEASES_URL;
  if (baseUrl === "off") return { skipReason: "VICTORIA_LOGS_RELEASES_URL=off" };
  const { os, arch } = goPlatform();
  if (!["linux", "darwin"].includes(os) || !["amd64", "arm64"].includes(arch))
    return { skipReason: `no release archive for ${os}-${arch}` };
  const stem = `victoria-logs-${os}-${arch}-${VICTORIA_LOGS_RELEASE}`;
  return {
    release: {
      name: `VictoriaLogs ${VICTORIA_LOGS_RELEASE}`,
      baseUrl,
      tag: VICTORIA_LOGS_RELEASE,
      archive: `${stem}.tar.gz`,
      checksums: `${stem}_checksums.txt`,
      member: "victoria-logs-prod",
    },
  };
}

/**
 * Path of a runnable victoria-logs binary, obtaining and caching it on first use.
 * Order: $VICTORIA_LOGS_BIN, `victoria-logs` on PATH, our cache, then the release archive
 * (checksum verified) or, where that cannot be had, a build from source.
 * @returns {Promise<string>}
 */
export async function obtainVictoriaLogs() {
  const fromEnv = process.env.VICTORIA_LOGS_BIN;
  if (fromEnv) {
    if (await isExecutable(fromEnv)) return fromEnv;
    throw new Error(`VICTORIA_LOGS_BIN=${fromEnv} is not an executable file`);
  }
  const onPath = await findOnPath("victoria-logs");
  if (onPath) return onPath;

  const cached = join(cacheDir(), `victoria-logs-${VICTORIA_METRICS_VERSION}`);
  if (await isExecutable(cached)) return cached;

  await buildUnderLock(cached);
  return cached;
}

/**
 * Downloads or builds into `target` unless another process already is; then waits for its result.
 * The lock holds the builder's PID so that a crashed build does not block forever.
 * @param {string} target
 */
async function buildUnderLock(target) {
  await mkdir(cacheDir(), { recursive: true });
  const lockPath = `${target}.lock`;
  let announced = false;
  for (;;) {
    if (await isExecutable(target)) return;
    let fd;
    try {
      fd = openSync(lockPath, "wx");
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== "EEXIST") throw err;
      const holder = Number.parseInt(await readFile(lockPath, "utf8").catch(() => ""), 10);
      if (Number.isFinite(holder) && holder > 0 && !isAlive(holder)) {
        log(`removing stale build lock of PID ${holder}`);
        await rm(lockPath, { force: true });
        continue;
      }
      if (!announced) {
        log(`another process (PID ${holder || "?"}) is obtaining VictoriaLogs; waiting for it`);
        announced = true;
      }
      await sleep(1000);
      continue;
    }
    try {
      await writeFile(lockPath, String(process.pid));
      closeSync(fd);
      fd = undefined;
      if (await isExecutable(target)) return; // finished by someone between our check and the lock
      await downloadOrBuild({ ...victoriaLogsRelease(), target, build: buildVictoriaLogs, log });
      return;
    } finally {
      if (fd !== undefined) closeSync(fd);
      await rm(lockPath, { force: true });
    }
  }
}

/**
 * Runs a command, streaming its stderr to ours, and resolves with its stdout.
 * @param {string} cmd @param {string[]} args @param {import("node:child_process").SpawnOptions} options
 * @returns {Promise<string>}
 */
function run(cmd, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...options, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk) => (out += chunk));
    child.on("error", (err) =>
      reject(
        /** @type {NodeJS.ErrnoException} */ (err).code === "ENOENT"
          ? new Error(`'${cmd}' not found: install Go (https://go.dev/dl/) or set VICTORIA_LOGS_BIN`)
          : err,
      ),
    );
    child.on("exit", (code, signal) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(" ")} failed (${signal ?? `exit ${code}`})`)),
    );
  });
}

/** @param {string} target */
async function buildVictoriaLogs(target) {
  // `go install` cannot build it (replace directives in go.mod): download the module source and
  // build inside it, with the module cache read-only and no VCS stamping.
  const env = { ...process.env, GOFLAGS: "-mod=readonly -buildvcs=false", CGO_ENABLED: "0" };
  const started = Date.now();
  log(`building VictoriaLogs from ${MODULE}@${VICTORIA_METRICS_VERSION} (cold Go module cache: ~2.5 min)`);
  log("downloading module source...");
  const info = JSON.parse(
    await run("go", ["mod", "download", "-json", `${MODULE}@${VICTORIA_METRICS_VERSION}`], { env }),
  );
  if (!info.Dir) throw new Error(`go mod download gave no source directory: ${info.Error ?? JSON.stringify(info)}`);
  log(`compiling ./app/victoria-logs (source ready after ${Math.round((Date.now() - started) / 1000)} s)...`);
  const partial = `${target}.partial-${process.pid}`;
  try {
    await run("go", ["build", "-o", partial, "./app/victoria-logs"], { env, cwd: info.Dir });
    await rename(partial, target); // atomic: a concurrent reader never sees half a binary
  } finally {
    await rm(partial, { force: true });
  }
  log(`built ${target} in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** @returns {Promise<number>} a TCP port that was free on 127.0.0.1 a moment ago */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** @param {string} path @param {number} [lines] */
async function tail(path, lines = 20) {
  const text = await readFile(path, "utf8").catch(() => "");
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/**
 * @typedef {object} RunningVictoriaLogs
 * @property {string} url base URL, e.g. http://127.0.0.1:9428
 * @property {number} pid
 * @property {string} logFile
 * @property {Promise<number | null>} exited resolves with the exit code when the process ends
 * @property {() => Promise<void>} stop SIGTERM, SIGKILL after 5 s; resolves once it is gone
 */

/**
 * Starts VictoriaLogs detached (own process group), waits for /health, and registers it for cleanup
 * when this process exits or is interrupted.
 * @param {{ dataDir: string, port?: number, binary?: string, healthTimeoutMs?: number }} options
 * @returns {Promise<RunningVictoriaLogs>}
 */
export async function startVictoriaLogs({ dataDir, port = 0, binary, healthTimeoutMs = 30_000 }) {
  const bin = binary ?? (await obtainVictoriaLogs());
  await mkdir(dataDir, { recursive: true });
  // A fixed port either works or does not; a picked one can be taken between pick and bind.
  const attempts = port === 0 ? 3 : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(bin, dataDir, port || (await freePort()), healthTimeoutMs);
    } catch (err) {
      if (attempt >= attempts || !/address already in use/i.test(String(err))) throw err;
    }
  }
}

/** @param {string} bin @param {string} dataDir @param {number} port @param {number} healthTimeoutMs */
async function startOnce(bin, dataDir, port, healthTimeoutMs) {
  const logFile = join(dataDir, "victoria-logs.log");
  const logFd = openSync(logFile, "a");
  const child = spawn(
    bin,
    [`-storageDataPath=${join(dataDir, "data")}`, `-httpListenAddr=127.0.0.1:${port}`, "-retentionPeriod=100y"],
    { detached: true, stdio: ["ignore", logFd, logFd] },
  );
  closeSync(logFd);
  child.unref(); // callers decide how long to live; stop() or the exit hook ends it
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) => {
    child.on("exit", (code) => resolve(code));
    child.on("error", () => resolve(null));
  });
  const pid = child.pid;
  if (pid === undefined) {
    await exited;
    throw new Error(`could not start ${bin}`);
  }
  const url = `http://127.0.0.1:${port}`;

  /** @type {Promise<void> | undefined} */
  let stopping;
  const stop = () => (stopping ??= stopChild(child, exited).finally(() => unregister()));
  const unregister = registerCleanup({ stop, killNow: () => killGroup(pid, "SIGKILL", { groupOnly: true }) });

  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + healthTimeoutMs;
  for (;;) {
    if (gone) {
      await stop();
      throw new Error(
        `VictoriaLogs exited during startup (code ${child.exitCode}); ${logFile}:\n${await tail(logFile)}`,
      );
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      if (res.ok && (await res.text()).trim() === "OK") break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `VictoriaLogs did not answer ${url}/health with OK within ${healthTimeoutMs / 1000} s; ${logFile}:\n${await tail(logFile)}`,
      );
    }
    await sleep(100);
  }
  return { url, pid, logFile, exited, stop };
}

/**
 * Headers selecting a VictoriaLogs tenant: "7", "7:1" or { accountID, projectID }.
 * @param {string | { accountID: number | string, projectID?: number | string } | undefined} tenant
 * @returns {Record<string, string>}
 */
export function tenantHeaders(tenant) {
  if (tenant === undefined || tenant === "") return {};
  const [accountID, projectID = "0"] =
    typeof tenant === "string" ? tenant.split(":") : [String(tenant.accountID), String(tenant.projectID ?? 0)];
  return { AccountID: String(accountID), ProjectID: String(projectID) };
}

/**
 * POSTs Loki push bodies (JSON) to VictoriaLogs, keeping the line as the message verbatim.
 * Counts entries per stream on the way, so that a caller can wait for the streams to be searchable.
 * @param {string} url VictoriaLogs base URL
 * @param {Iterable<string> | AsyncIterable<string>} bodies
 * @param {{ tenant?: Parameters<typeof tenantHeaders>[0] }} [options]
 * @returns {Promise<{ batches: number, entries: number, streams: StreamCounts }>}
 */
export async function pushLokiBatches(url, bodies, { tenant } = {}) {
  const endpoint = `${url}/insert/loki/api/v1/push?disable_message_parsing=1`;
  const headers = { "Content-Type": "application/json", ...tenantHeaders(tenant) };
  /** @type {StreamCounts} */
  const streams = new Map();
  let batches = 0;
  let entries = 0;
  for await (const body of bodies) {
    /** @type {{ streams: { stream: Record<string, string>, values: unknown[] }[] }} */
    const parsed = JSON.parse(body);
    for (const { stream, values } of parsed.streams) {
      const key = JSON.stringify(Object.entries(stream).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      const seen = streams.get(key);
      if (seen) seen.entries += values.length;
      else streams.set(key, { labels: stream, entries: values.length });
      entries += values.length;
    }
    const res = await fetch(endpoint, { method: "POST", headers, body });
    if (!res.ok) {
      throw new Error(
        `push batch ${batches + 1} to ${endpoint}: HTTP ${res.status}: ${(await res.text()).slice(0, 500)}`,
      );
    }
    await res.arrayBuffer();
    batches++;
  }
  return { batches, entries, streams };
}

/** @typedef {Map<string, { labels: Record<string, string>, entries: number }>} StreamCounts */

/**
 * A LogsQL filter that selects exactly the given streams: their stream filters joined by `or`.
 * @param {Iterable<Record<string, string>>} labelSets
 */
export function streamsFilter(labelSets) {
  const one = (/** @type {Record<string, string>} */ labels) =>
    `{${Object.entries(labels)
      .map(([k, v]) => `${JSON.stringify(k)}=${JSON.stringify(v)}`)
      .join(",")}}`;
  return `(${[...labelSets].map(one).join(" or ")})`;
}

/**
 * @param {string} url @param {string} query LogsQL @param {{ start?: string, end?: string, tenant?: Parameters<typeof tenantHeaders>[0] }} range
 * @returns {Promise<number>}
 */
export async function countRows(url, query, { start, end, tenant } = {}) {
  const form = new URLSearchParams({ query: `${query} | stats count() as rows` });
  if (start) form.set("start", start);
  if (end) form.set("end", end);
  const res = await fetch(`${url}/select/logsql/query`, { method: "POST", body: form, headers: tenantHeaders(tenant) });
  const text = await res.text();
  if (!res.ok) throw new Error(`count query failed: HTTP ${res.status}: ${text.slice(0, 500)}`);
  const first = text.split("\n").find((line) => line.trim() !== "");
  return first ? Number(JSON.parse(first).rows) : 0;
}

/**
 * Waits until `query` counts at least `expectedCount` rows. Rows are searchable about a second
 * after ingestion, but a stream filter finds a new stream only once VictoriaLogs has flushed its
 * stream index (about 10 s later). So with `streams` (from pushLokiBatches) it then waits until
 * stream filters for a sample of up to 64 of them count all their rows; without, it sleeps
 * `settleMs`.
 * @param {string} url
 * @param {number} expectedCount
 * @param {{ query?: string, start?: string, end?: string, tenant?: Parameters<typeof tenantHeaders>[0], timeoutMs?: number, settleMs?: number, streams?: StreamCounts }} [options]
 * @returns {Promise<number>} the count reached
 */
export async function waitForRows(
  url,
  expectedCount,
  { query = "*", start, end, tenant, timeoutMs = 60_000, settleMs = 3000, streams } = {},
) {
  const deadline = Date.now() + timeoutMs;
  const waitFor = async (/** @type {string} */ q, /** @type {number} */ expected) => {
    for (;;) {
      const count = await countRows(url, q, { start, end, tenant });
      if (count >= expected) return count;
      if (Date.now() > deadline) {
        throw new Error(
          `VictoriaLogs shows ${count} of ${expected} rows for ${q.slice(0, 200)} after ${timeoutMs / 1000} s`,
        );
      }
      await sleep(250);
    }
  };
  let count = await waitFor(query, expectedCount);
  if (streams && streams.size > 0) {
    const all = [...streams.values()];
    const stride = Math.max(1, Math.floor(all.length / 64));
    const sample = all.filter((_, i) => i % stride === 0).slice(0, 64);
    await waitFor(
      streamsFilter(sample.map((s) => s.labels)),
      sample.reduce((n, s) => n + s.entries, 0),
    );
  } else {
    await sleep(settleMs);
  }
  // Counted again once everything pushed is visible: the first count can be reached by rows that
  // were already there before the push, so only this one tells a surplus.
  count = await countRows(url, query, { start, end, tenant });
  if (count > expectedCount) log(`warning: expected ${expectedCount} rows, found ${count} (data loaded twice?)`);
  return count;
}

// Installing a tool's binary from its official release archive (a .tar.gz beside a SHA-256
// checksums file), with building from source as the fallback. A download takes seconds where a Go
// build takes minutes; a machine without internet access fails the first request at once and
// builds as before.

import { createHash } from "node:crypto";
import { chmod, rename, rm, writeFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";

/** The small checksums file comes first: an unreachable host shows within this time. */
const CHECKSUMS_TIMEOUT_MS = 10_000;
/** The archive (tens of MB) on a slow link; a build is only a few minutes, so waiting longer buys nothing. */
const ARCHIVE_TIMEOUT_MS = 180_000;

/**
 * @typedef {object} ReleaseArchive
 * @property {string} name for messages, e.g. "k6 v1.8.1"
 * @property {string} baseUrl ends before the tag: `${baseUrl}/${tag}/${file}`
 * @property {string} tag
 * @property {string} archive file name of the .tar.gz
 * @property {string} checksums file name of the checksums file (lines "<sha256>  <file name>")
 * @property {string} member base name of the binary inside the archive
 */

/**
 * The SHA-256 the checksums file gives for `file`, or undefined when it lists no such file.
 * @param {string} text @param {string} file
 */
export function checksumFor(text, file) {
  for (const line of text.split("\n")) {
    const m = /^([0-9a-fA-F]{64})\s+\*?(\S+)\s*$/.exec(line.trim());
    if (m?.[1] && m[2] === file) return m[1].toLowerCase();
  }
  return undefined;
}

/** @param {string} text octal, NUL- or space-terminated */
const octal = (text) => Number.parseInt(text.replace(/[\0 ]+$/, "").trim() || "0", 8);
/** @param {Buffer} buf @param {number} start @param {number} length */
const cString = (buf, start, length) => {
  const field = buf.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString("utf8");
};

/**
 * The contents of the regular file whose base name is `member` in an (uncompressed) tar archive,
 * or undefined. Reads ustar names with their prefix, GNU long names ('L') and pax paths ('x');
 * nothing else of tar is needed for a release archive that holds one binary.
 * @param {Buffer} tar @param {string} member
 * @returns {Buffer | undefined}
 */
export function extractFromTar(tar, member) {
  let offset = 0;
  /** @type {string | undefined} */
  let longName;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break; // end-of-archive blocks
    const size = octal(cString(header, 124, 12));
    const type = String.fromCharCode(header[156] ?? 0);
    const dataStart = offset + 512;
    const data = tar.subarray(dataStart, dataStart + size);
    if (data.length < size) throw new Error("the archive is truncated");
    offset = dataStart + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = cString(data, 0, data.length);
      continue;
    }
    if (type === "x") {
      // pax records: "<length> <key>=<value>\n"; only the path matters here.
      const path = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString("utf8"))?.[1];
      if (path !== undefined) longName = path;
      continue;
    }
    const prefix = cString(header, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${cString(header, 0, 100)}` : cString(header, 0, 100));
    longName = undefined;
    const isFile = type === "0" || type === "\0";
    if (isFile && name.split("/").pop() === member) return Buffer.from(data);
  }
  return undefined;
}

/**
 * @param {string} url @param {number} timeoutMs
 * @returns {Promise<Buffer>}
 */
async function download(url, timeoutMs) {
  let res;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "follow" });
  } catch (err) {
    const cause = /** @type {{ cause?: { code?: string, message?: string } }} */ (err).cause;
    const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
    throw new Error(`${url}: ${why}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`${url}: HTTP ${res.status}`);
  }
  return Buffer.from(await res.arrayBuffer());
}

/**
 * Downloads the release archive, checks its SHA-256 against the release's checksums file, and
 * writes the binary to `target` (executable, renamed into place so a reader never sees half of it).
 * Throws, writing nothing, when anything fails.
 * @param {ReleaseArchive} release @param {string} target
 */
export async function installFromRelease(release, target) {
  const base = `${release.baseUrl.replace(/\/+$/, "")}/${release.tag}`;
  const sums = (await download(`${base}/${release.checksums}`, CHECKSUMS_TIMEOUT_MS)).toString("utf8");
  const expected = checksumFor(sums, release.archive);
  if (!expected) throw new Error(`${release.checksums} lists no checksum for ${release.archive}`);
  const archive = await download(`${base}/${release.archive}`, ARCHIVE_TIMEOUT_MS);
  const actual = createHash("sha256").update(archive).digest("hex");
  if (actual !== expected) {
    throw new Error(`${release.archive} has SHA-256 ${actual}, but ${release.checksums} says ${expected}: refused`);
  }
  let tar;
  try {
    tar = gunzipSync(archive);
  } catch (err) {
    throw new Error(`${release.archive} is not gzip data: ${err instanceof Error ? err.message : String(err)}`);
  }
  const binary = extractFromTar(tar, release.member);
  if (!binary) throw new Error(`${release.archive} holds no file named ${release.member}`);
  const partial = `${target}.partial-${process.pid}`;
  try {
    await writeFile(partial, binary);
    await chmod(partial, 0o755);
    await rename(partial, target);
  } finally {
    await rm(partial, { force: true });
  }
}

/**
 * Puts the binary at `target`: from the release archive when `release` is given and the download
 * and checksum succeed, otherwise by `build(target)`. The reason a download was not used is logged.
 * @param {{ release?: ReleaseArchive, skipReason?: string, target: string,
 *   build: (target: string) => Promise<void>, log: (msg: string) => void }} o
 * @returns {Promise<"downloaded" | "built">}
 */
export async function downloadOrBuild({ release, skipReason, target, build, log }) {
  if (release) {
    const started = Date.now();
    try {
      await installFromRelease(release, target);
      log(`installed ${release.name} from ${release.archive} (SHA-256 verified) in ${Date.now() - started} ms`);
      return "downloaded";
    } catch (err) {
      log(`no release download (${err instanceof Error ? err.message : String(err)}); building from source instead`);
    }
  } else if (skipReason) {
    log(`no release download (${skipReason}); building from source`);
  }
  await build(target);
  return "built";
}

/** Release archive names use Go's OS and architecture names. */
export function goPlatform() {
  /** @type {Record<string, string>} */
  const arch = { x64: "amd64", arm64: "arm64" };
  return { os: process.platform, arch: arch[process.arch] ?? process.arch };
}

/**
 * Installing VictoriaLogs and k6 from their release archives (scripts/lib/release-archive.mjs),
 * against a local HTTP server standing in for GitHub's release downloads: a verified archive is
 * extracted and cached, a checksum mismatch is refused and the build runs instead, an unreachable
 * host falls back to the build at once.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { k6Release, obtainK6 } from "../../../scripts/lib/k6.mjs";
import { checksumFor, downloadOrBuild, extractFromTar } from "../../../scripts/lib/release-archive.mjs";
import { freePort, obtainVictoriaLogs, victoriaLogsRelease } from "../../../scripts/lib/victorialogs.mjs";

const work = mkdtempSync(join(tmpdir(), "loki-vl-release-"));
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

/** A .tar.gz made by the system's tar, holding `path` (relative) with `content`. */
function tarGz(name: string, path: string, content: string, tarArgs: string[] = []): Buffer {
  const dir = join(work, `src-${name}`);
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), content, { mode: 0o755 });
  const out = join(work, name);
  const res = spawnSync("tar", [...tarArgs, "-czf", out, "-C", dir, path]);
  expect(res.status, String(res.stderr)).toBe(0);
  return readFileSync(out);
}

// The release server: files by URL path, and the paths asked for.
const files = new Map<string, Buffer>();
const requested: string[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    requested.push(req.url ?? "");
    const body = files.get(req.url ?? "");
    if (!body) {
      res.writeHead(404).end("Not Found");
      return;
    }
    res.writeHead(200, { "Content-Type": "application/octet-stream" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/download`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

const savedEnv = { ...process.env };
afterEach(() => {
  process.env = { ...savedEnv };
  files.clear();
  requested.length = 0;
});

/** A fresh cache directory, nothing on PATH, downloads from the local server. */
function isolate(extra: Record<string, string>) {
  const cache = mkdtempSync(join(work, "cache-"));
  process.env = { ...savedEnv, XDG_CACHE_HOME: cache, PATH: join(work, "empty-path"), ...extra };
  delete process.env.K6_BIN;
  delete process.env.VICTORIA_LOGS_BIN;
  return cache;
}

describe("checksum files and tar archives", () => {
  it("picks the archive's row among the release's checksum lines", () => {
    const a = "a".repeat(64);
    const b = "B".repeat(64);
    const text = `${a}  victoria-logs-prod\n${b}  victoria-logs-linux-amd64-v1.24.0-victorialogs.tar.gz\n`;
    expect(checksumFor(text, "victoria-logs-linux-amd64-v1.24.0-victorialogs.tar.gz")).toBe("b".repeat(64));
    expect(checksumFor(text, "other.tar.gz")).toBeUndefined();
    expect(checksumFor(`${a} *k6.tar.gz`, "k6.tar.gz")).toBe(a);
  });

  it("finds a member by base name inside a directory, and reports a missing one", () => {
    const gz = tarGz("t.tar.gz", "k6-v1.8.1-linux-amd64/k6", "#!/bin/sh\necho hi\n");
    const tar = gunzipSync(gz);
    expect(extractFromTar(tar, "k6")?.toString()).toBe("#!/bin/sh\necho hi\n");
    expect(extractFromTar(tar, "victoria-logs-prod")).toBeUndefined();
  });

  it("reads names longer than ustar's 100 bytes, as GNU and pax archives store them", () => {
    const long = `${"d".repeat(120)}/k6`;
    for (const [name, args] of [
      ["long-default.tar.gz", []],
      ["long-pax.tar.gz", ["--format=pax"]],
    ] as const) {
      const tar = gunzipSync(tarGz(name, long, "long\n", [...args]));
      expect(extractFromTar(tar, "k6")?.toString(), name).toBe("long\n");
    }
  });
});

describe("k6 from its release archive", () => {
  it("downloads, verifies, extracts and caches the binary; the next call uses the cache", async () => {
    const { release } = k6Release({ K6_RELEASES_URL: base });
    if (!release) throw new Error("k6 has a release archive for this platform");
    const script = "#!/bin/sh\necho fake k6\n";
    const archive = tarGz(release.archive, `k6-v1.8.1-linux-amd64/k6`, script);
    const cache = isolate({ K6_RELEASES_URL: base });
    files.set(`/download/v1.8.1/${release.archive}`, archive);
    files.set(`/download/v1.8.1/k6-v1.8.1-checksums.txt`, Buffer.from(`${sha256(archive)}  ${release.archive}\n`));

    const bin = await obtainK6();
    expect(bin).toBe(join(cache, "loki-vl-worker", "k6-v1.8.1", "k6"));
    expect(readFileSync(bin, "utf8")).toBe(script);
    accessSync(bin, constants.X_OK);
    expect(spawnSync(bin, [], { encoding: "utf8" }).stdout).toBe("fake k6\n");
    expect(requested).toEqual([`/download/v1.8.1/k6-v1.8.1-checksums.txt`, `/download/v1.8.1/${release.archive}`]);

    requested.length = 0;
    expect(await obtainK6()).toBe(bin);
    expect(requested).toEqual([]);
  });
});

describe("VictoriaLogs from its release archive", () => {
  it("downloads the v1.24.0-victorialogs archive, verifies it and caches victoria-logs-prod", async () => {
    const { release } = victoriaLogsRelease({ VICTORIA_LOGS_RELEASES_URL: base });
    if (!release) throw new Error("VictoriaLogs has a release archive for this platform");
    expect(release.tag).toBe("v1.24.0-victorialogs");
    expect(release.archive).toMatch(/^victoria-logs-(linux|darwin)-(amd64|arm64)-v1\.24\.0-victorialogs\.tar\.gz$/);
    const script = "#!/bin/sh\necho fake victoria-logs\n";
    const archive = tarGz(release.archive, "victoria-logs-prod", script);
    const cache = isolate({ VICTORIA_LOGS_RELEASES_URL: base });
    const sums = `${sha256(Buffer.from(script))}  victoria-logs-prod\n${sha256(archive)}  ${release.archive}\n`;
    files.set(`/download/${release.tag}/${release.archive}`, archive);
    files.set(`/download/${release.tag}/${release.checksums}`, Buffer.from(sums));

    const bin = await obtainVictoriaLogs();
    expect(bin).toBe(join(cache, "loki-vl-worker", "victoria-logs-v1.121.0"));
    expect(readFileSync(bin, "utf8")).toBe(script);
    accessSync(bin, constants.X_OK);
  });
});

describe("falling back to the build", () => {
  /** A build double that records its call and writes a recognisable file. */
  const fakeBuild = () => {
    const calls: string[] = [];
    const build = async (target: string) => {
      calls.push(target);
      writeFileSync(target, "built\n", { mode: 0o755 });
    };
    return { calls, build };
  };

  it("refuses an archive whose SHA-256 differs from the checksums file, writes nothing, and builds", async () => {
    const { release } = victoriaLogsRelease({ VICTORIA_LOGS_RELEASES_URL: base });
    if (!release) throw new Error("VictoriaLogs has a release archive for this platform");
    const archive = tarGz(`bad-${release.archive}`, "victoria-logs-prod", "#!/bin/sh\necho tampered\n");
    files.set(`/download/${release.tag}/${release.archive}`, archive);
    files.set(`/download/${release.tag}/${release.checksums}`, Buffer.from(`${"0".repeat(64)}  ${release.archive}\n`));
    const target = join(mkdtempSync(join(work, "t-")), "victoria-logs");
    const { calls, build } = fakeBuild();
    const logs: string[] = [];

    const how = await downloadOrBuild({ release, target, build, log: (m: string) => logs.push(m) });
    expect(how).toBe("built");
    expect(calls).toEqual([target]);
    expect(readFileSync(target, "utf8")).toBe("built\n");
    expect(logs.join("\n")).toMatch(/has SHA-256 [0-9a-f]{64}, but .*_checksums\.txt says 0{64}: refused/);
  });

  it("builds when the checksums file does not list the archive", async () => {
    const { release } = k6Release({ K6_RELEASES_URL: base });
    if (!release) throw new Error("k6 has a release archive for this platform");
    files.set(
      `/download/v1.8.1/k6-v1.8.1-checksums.txt`,
      Buffer.from(`${"1".repeat(64)}  k6-v1.8.1-linux-s390x.tar.gz\n`),
    );
    const target = join(mkdtempSync(join(work, "t-")), "k6");
    const { calls, build } = fakeBuild();
    const logs: string[] = [];
    expect(await downloadOrBuild({ release, target, build, log: (m: string) => logs.push(m) })).toBe("built");
    expect(calls).toEqual([target]);
    expect(logs.join("\n")).toContain(`lists no checksum for ${release.archive}`);
    expect(requested.some((p) => p.endsWith(".tar.gz"))).toBe(false);
  });

  it("builds at once when the release host cannot be reached", async () => {
    const closed = `http://127.0.0.1:${await freePort()}/download`;
    const { release } = victoriaLogsRelease({ VICTORIA_LOGS_RELEASES_URL: closed });
    if (!release) throw new Error("VictoriaLogs has a release archive for this platform");
    const target = join(mkdtempSync(join(work, "t-")), "victoria-logs");
    const { calls, build } = fakeBuild();
    const logs: string[] = [];
    const started = Date.now();
    expect(await downloadOrBuild({ release, target, build, log: (m: string) => logs.push(m) })).toBe("built");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(calls).toEqual([target]);
    expect(logs.join("\n")).toMatch(/no release download \(.*ECONNREFUSED\); building from source instead/);
  });

  it("skips the download when the base URL is off", async () => {
    expect(victoriaLogsRelease({ VICTORIA_LOGS_RELEASES_URL: "off" })).toEqual({
      skipReason: "VICTORIA_LOGS_RELEASES_URL=off",
    });
    expect(k6Release({ K6_RELEASES_URL: "off" })).toEqual({ skipReason: "K6_RELEASES_URL=off" });
  });
});

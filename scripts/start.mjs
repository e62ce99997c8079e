// `npm start`: the Worker on http://127.0.0.1:${PORT:-3100}, backed by ORIGIN_URL when given, else
// by an embedded VictoriaLogs with demo data (kept in .wrangler/victorialogs between runs). The
// Worker's other variables and secrets (AUTH_TOKEN, TENANTS, TENANCY, ...) pass through from the
// environment (scripts/serve.mjs), and `npm start -- --var NAME:value` arguments are passed on.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isShuttingDown, killGroup, registerCleanup, runAllCleanups, stopChild } from "./lib/cleanup.mjs";
import { loadDemoData } from "./lib/datasets.mjs";
import { startVictoriaLogs } from "./lib/victorialogs.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const port = Number(process.env.PORT || 3100);
const say = (/** @type {string} */ msg) => process.stdout.write(`[start] ${msg}\n`);
const workerArgs = process.argv.slice(2);
for (let i = 0; i < workerArgs.length; i += 2) {
  if (workerArgs[i] !== "--var" || !/^[A-Z_]+:/.test(workerArgs[i + 1] ?? "")) {
    process.stderr.write("[start] usage: npm start [-- --var NAME:value ...]\n");
    process.exit(2);
  }
}

/** The URL without user and password, for messages. */
function withoutCredentials(/** @type {string} */ raw) {
  try {
    const url = new URL(raw);
    url.username = "";
    url.password = "";
    return url.toString();
  } catch {
    return "(not a valid URL)";
  }
}

/** @returns {Promise<{ url: string, exited?: Promise<number | null>, stop?: () => Promise<void> }>} */
async function prepareOrigin() {
  if (process.env.ORIGIN_URL) {
    say(`using the origin in ORIGIN_URL: ${withoutCredentials(process.env.ORIGIN_URL)}`);
    return { url: process.env.ORIGIN_URL };
  }
  const dataDir = join(root, ".wrangler", "victorialogs");
  const marker = join(dataDir, "demo-data.json");
  const firstRun = !existsSync(marker);
  if (firstRun) {
    // No marker means no data or a load that was interrupted: start clean rather than half-loaded.
    await rm(join(dataDir, "data"), { recursive: true, force: true });
  }
  await mkdir(dataDir, { recursive: true });
  const vl = await startVictoriaLogs({ dataDir, port: Number(process.env.VICTORIA_LOGS_PORT || 0) });
  say(`VictoriaLogs ${vl.url} (PID ${vl.pid}, data in ${dataDir}, log ${vl.logFile})`);
  if (firstRun) {
    say("first run: loading 6 hours of demo data ending now...");
    const loaded = await loadDemoData(vl.url, { end: Date.now() });
    await writeFile(marker, JSON.stringify({ ...loaded, loadedAt: new Date().toISOString() }, null, 2));
    say(`loaded ${loaded.entries} entries (${loaded.start} .. ${loaded.end}); delete ${dataDir} to reload`);
  } else {
    await topUpDemoData(vl.url, marker);
  }
  return vl;
}

/**
 * Demo data loaded on an earlier day would leave Grafana's default "last hour" empty: extend it to
 * now (at most the last 6 hours) each time the embedded origin starts again.
 * @param {string} url
 * @param {string} marker
 */
async function topUpDemoData(url, marker) {
  /** @type {{ end?: string, entries?: number }} */
  const previous = JSON.parse(await readFile(marker, "utf8"));
  const now = Date.now();
  const lastEnd = Date.parse(previous.end ?? "");
  if (Number.isNaN(lastEnd) || now - lastEnd < 60_000) return;
  const hours = Math.min(now - lastEnd, 6 * 3_600_000) / 3_600_000;
  say(`demo data ends ${previous.end}: adding ${hours.toFixed(1)} h up to now...`);
  const loaded = await loadDemoData(url, { end: now, hours, seed: 7 + (Math.floor(now / 3_600_000) % 1000) });
  await writeFile(
    marker,
    JSON.stringify(
      {
        ...previous,
        entries: (previous.entries ?? 0) + loaded.entries,
        end: loaded.end,
        toppedUpAt: new Date().toISOString(),
      },
      null,
      2,
    ),
  );
  say(`added ${loaded.entries} entries (${loaded.start} .. ${loaded.end})`);
}

/**
 * The Worker in workerd (scripts/serve.mjs: Miniflare, configured from wrangler.toml) in its own
 * process group, so workerd is stopped with it; stdin detached, since a background process group
 * reading the terminal would be stopped by SIGTTIN.
 * @param {string} originUrl
 */
function startWorker(originUrl) {
  // ORIGIN_URL goes through the environment: it may hold credentials, and arguments show in `ps`.
  const args = ["scripts/serve.mjs", "--port", String(port), ...workerArgs];
  const child = spawn(process.execPath, args, {
    cwd: root,
    detached: true,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      ORIGIN_URL: originUrl,
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_SEND_METRICS: "false",
    },
  });
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : null)));
    child.on("error", (err) => {
      process.stderr.write(`[start] could not start the Worker: ${err.message}\n`);
      resolve(127);
    });
  });
  const pid = child.pid;
  /** @type {Promise<void> | undefined} */
  let stopping;
  const stop = () => (stopping ??= stopChild(child, exited).finally(() => unregister()));
  const unregister = registerCleanup({
    stop,
    killNow: () => pid !== undefined && killGroup(pid, "SIGKILL", { groupOnly: true }),
  });
  return { exited, stop };
}

/**
 * Resolves once anything answers HTTP on the Worker's port (even an error status), or with
 * undefined when a child exits first. No deadline: the first bundle of a large project can take a while.
 */
async function waitForWorker(/** @type {Promise<unknown>} */ exited) {
  let gone = false;
  void exited.then(() => (gone = true));
  let hinted = false;
  const started = Date.now();
  while (!gone) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(2000) });
      return { status: res.status, body: (await res.text()).trim().slice(0, 200) };
    } catch {
      if (!hinted && Date.now() - started > 60_000) {
        hinted = true;
        say(`the Worker does not answer on port ${port} yet (see the output above); still waiting`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return undefined;
}

async function main() {
  const origin = await prepareOrigin();
  const worker = startWorker(origin.url);

  // Either child ending on its own is a failure: take the other one down and report it. Watched
  // from the start, since the Worker may never become ready.
  /** @type {Promise<string>[]} */
  const watchers = [worker.exited.then((code) => `the Worker exited (${code === null ? "killed" : `code ${code}`})`)];
  if (origin.exited)
    watchers.push(origin.exited.then((code) => `VictoriaLogs exited (${code === null ? "killed" : `code ${code}`})`));
  const firstExit = Promise.race(watchers);

  void waitForWorker(firstExit).then((ready) => {
    if (!ready || isShuttingDown()) return;
    const base = `http://127.0.0.1:${port}`;
    say(`Loki API: ${base}   (/ready answered ${ready.status}${ready.body ? ` ${JSON.stringify(ready.body)}` : ""})`);
    say(`try: curl -G ${base}/loki/api/v1/labels`);
    if (process.env.TENANTS || process.env.AUTH_TOKEN || workerArgs.some((a) => /^(TENANTS|AUTH_TOKEN):/.test(a)))
      say("credentials are configured: add -u <tenant>:<token> (TENANTS) or -H 'Authorization: Bearer <token>'");
    say(
      `Grafana: add a Loki data source with URL ${base} (from a Docker container: http://host.docker.internal:${port})`,
    );
    say("Ctrl-C stops everything started here.");
  });

  const reason = await firstExit;
  if (isShuttingDown()) return; // our own Ctrl-C/SIGTERM handling stopped it and will exit
  process.stderr.write(`[start] ${reason}; stopping everything\n`);
  await runAllCleanups();
  process.exit(1);
}

main().catch(async (err) => {
  if (isShuttingDown()) return;
  process.stderr.write(`[start] ${err instanceof Error ? err.message : String(err)}\n`);
  await runAllCleanups();
  process.exit(1);
});

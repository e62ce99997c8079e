// `npm run bench:e2e`: generated dataset → real VictoriaLogs → the Worker in workerd (Miniflare);
// k6 runs each workload against the Worker AND against VictoriaLogs direct (equivalent LogsQL) in
// the same run; results go to bench/results/e2e-<mode>.md and .svg. Everything on 127.0.0.1.
//
// BENCH_QUICK=1: 200k lines, 10 s per workload and target (a few minutes in all).
// Otherwise: 1.2M lines over 3 days, 30 s each. BENCH_WORKLOADS=small,cold picks a subset;
// BENCH_DURATION=20s overrides the duration; BENCH_PUSHDOWN=off runs the Worker with PUSHDOWN=off. The loaded VictoriaLogs data is kept in the cache
// directory and reused by later runs with the same size.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { registerCleanup, runAllCleanups } from "../../scripts/lib/cleanup.mjs";
import { obtainK6 } from "../../scripts/lib/k6.mjs";
import { serveWorker } from "../../scripts/lib/serve-worker.mjs";
import {
  cacheDir,
  freePort,
  pushLokiBatches,
  startVictoriaLogs,
  waitForRows,
} from "../../scripts/lib/victorialogs.mjs";
import { benchDataset } from "./generate.mjs";
import { figuresOf, markdown, svg } from "./report.mjs";
import { COLD_APPS, coldLogRequest, randomWindow, WORKLOADS } from "./workloads.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const quick = process.env.BENCH_QUICK === "1";
const mode = quick ? "quick" : "full";
const LINES = Number(process.env.BENCH_LINES || (quick ? 200_000 : 1_200_000));
const DAYS = 3;
// Fixed, so that the cached data stays valid between runs.
const END_MS = Date.UTC(2026, 2, 4);
const duration = process.env.BENCH_DURATION || (quick ? "10s" : "30s");
const selected = (process.env.BENCH_WORKLOADS || "small,heavy,long_range,compute,compute_uncached,cold")
  .split(",")
  .map((s) => s.trim());
const say = (m) => process.stdout.write(`[bench] ${m}\n`);

async function prepareOrigin() {
  const dataDir = join(cacheDir(), `bench-vl-${LINES}-${DAYS}d`);
  const marker = join(dataDir, "loaded.json");
  const fresh = !existsSync(marker);
  if (fresh) await rm(join(dataDir, "data"), { recursive: true, force: true });
  await mkdir(dataDir, { recursive: true });
  const vl = await startVictoriaLogs({ dataDir });
  say(`VictoriaLogs ${vl.url} (data in ${dataDir})`);
  const ds = benchDataset({ lines: LINES, days: DAYS, endMs: END_MS });
  if (fresh) {
    const t0 = Date.now();
    say(`loading ${LINES.toLocaleString("en")} lines over ${DAYS} days (${ds.streams} streams)...`);
    let bytes = 0;
    const counted = (function* () {
      for (const body of ds.bodies()) {
        bytes += body.length;
        yield body;
      }
    })();
    const { streams } = await pushLokiBatches(vl.url, counted);
    const iso = (ns) => new Date(Number(ns / 1_000_000n)).toISOString();
    await waitForRows(vl.url, LINES, {
      start: iso(ds.startNs - 1_000_000_000n),
      end: iso(ds.endNs + 1_000_000_000n),
      timeoutMs: 300_000,
      streams,
    });
    await writeFile(marker, JSON.stringify({ lines: LINES, bytes, loadedAt: new Date().toISOString() }));
    say(`loaded ${(bytes / 1e6).toFixed(0)} MB of push bodies in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  return { vl, dataStart: Number(ds.startNs / 1_000_000_000n), dataEnd: Number(ds.endNs / 1_000_000_000n) };
}

/** The Worker in workerd via Miniflare (as `npm start` serves it), in this process. */
async function startWorker(originUrl) {
  const port = await freePort();
  // Empty caches, KV and Durable Objects at every run, as a new deployment starts: what earlier
  // runs left there would serve this run's requests (and, run after run, grew to gigabytes that
  // slowed the local runtime's storage down).
  const stateDir = join(root, ".wrangler", "bench");
  await rm(stateDir, { recursive: true, force: true });
  const worker = await serveWorker({
    root,
    port,
    // BENCH_PUSHDOWN=off measures local evaluation of the same queries.
    vars: { ORIGIN_URL: originUrl, ...(process.env.BENCH_PUSHDOWN ? { PUSHDOWN: process.env.BENCH_PUSHDOWN } : {}) },
    stateDir,
  });
  const unregister = registerCleanup({ stop: () => worker.dispose(), killNow: () => {} });
  return { url: worker.url, stop: () => worker.dispose().finally(() => unregister()) };
}

/**
 * A Worker that only forwards each request to VictoriaLogs, in the same runtime and Miniflare set-up
 * as ours: what the local runtime itself costs (its HTTP entry and one subrequest). The Worker's
 * own overhead is its latency minus this one's, on the same requests.
 */
async function startBareProxy(originUrl) {
  const { Miniflare } = await import("miniflare");
  const { unstable_getMiniflareWorkerOptions } = await import("wrangler");
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(root, "wrangler.toml"));
  const port = await freePort();
  const mf = new Miniflare({
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    modules: true,
    script: `export default {
      async fetch(req, env) {
        const u = new URL(req.url);
        const res = await fetch(env.ORIGIN_URL + u.pathname + u.search, { method: req.method, body: req.body });
        return new Response(res.body, { status: res.status, headers: res.headers });
      },
    };`,
    bindings: { ORIGIN_URL: originUrl },
    host: "127.0.0.1",
    port,
  });
  const url = (await mf.ready).toString().replace(/\/$/, "");
  const unregister = registerCleanup({ stop: () => mf.dispose(), killNow: () => {} });
  return { url, stop: () => mf.dispose().finally(() => unregister()) };
}

/** One k6 run; returns its figures. */
async function k6run(k6, workload, target, base, data, work) {
  if (!base.startsWith("http://127.0.0.1:")) throw new Error(`refusing non-local target ${base}`);
  const summaryFile = join(work, `${workload}-${target}.json`);
  const env = {
    ...process.env,
    K6_NO_USAGE_REPORT: "true",
    BASE: base,
    TARGET: target,
    WORKLOAD: workload,
    DATA_START: String(data.dataStart),
    DATA_END: String(data.dataEnd),
    DURATION: duration,
  };
  const args = [
    "run",
    "--quiet",
    "--no-usage-report",
    "--summary-export",
    summaryFile,
    join(root, "bench", "e2e", "k6", "workload.js"),
  ];
  const code = await new Promise((resolve) => {
    const child = spawn(k6, args, { env, stdio: ["ignore", "ignore", "inherit"] });
    child.on("exit", (c) => resolve(c));
  });
  if (code !== 0 && !existsSync(summaryFile)) throw new Error(`k6 ${workload}/${target} failed (exit ${code})`);
  return figuresOf(JSON.parse(await readFile(summaryFile, "utf8")));
}

/** Warms both targets (JIT, connections, VictoriaLogs caches for metadata) so cold means "no cache for this window". */
async function warmUp(base, vlUrl) {
  await fetch(`${base}/loki/api/v1/labels`)
    .then((r) => r.arrayBuffer())
    .catch(() => {});
  await fetch(`${vlUrl}/select/logsql/stream_field_names?query=*`)
    .then((r) => r.arrayBuffer())
    .catch(() => {});
}

/**
 * Sends every request template to both targets before measuring (a query that one side rejects
 * would otherwise be measured as a fast failure), three times in sequence: the median is the
 * unloaded latency of that one request, which tells where the time goes.
 */
async function probeTemplates(workerUrl, vlUrl, proxyUrl, data) {
  // Unloaded means nothing else in flight: the previous request's cache writes (waitUntil, which
  // the local runtime emulates on this machine's CPU and disk) finish before the next is timed.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 400));
  const problems = [];
  const probes = [];
  // The floor: a request that touches no data (the Worker's /ready, VictoriaLogs' /health).
  const floor = async (url) => {
    const times = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await fetch(url).then((r) => r.arrayBuffer());
      times.push(performance.now() - t0);
    }
    return times.sort((a, b) => a - b)[2];
  };
  probes.push({
    workload: "floor",
    name: "/ready vs /health (no data)",
    workerMs: await floor(`${workerUrl}/ready`),
    vlMs: await floor(`${vlUrl}/health`),
  });
  probes.push({
    workload: "floor",
    name: "bare forwarding Worker → /health vs /health",
    workerMs: await floor(`${proxyUrl}/health`),
    vlMs: await floor(`${vlUrl}/health`),
  });
  // A full 5,000-entry log answer, many times in sequence: Worker time ÷ VictoriaLogs time on the
  // median of each (the row path end to end: decode, pipeline, encode).
  // Cache-Control: no-cache makes the Worker read past its results cache, as VictoriaLogs does.
  const big = async (url, headers = {}) => {
    const times = [];
    for (let i = 0; i < 15; i++) {
      await settle();
      const t0 = performance.now();
      const res = await fetch(url, { headers: { ...headers, "Cache-Control": "no-cache" } });
      const body = await res.text();
      times.push(performance.now() - t0);
      if (res.status !== 200) problems.push(`5,000-entry log answer: HTTP ${res.status}: ${body.slice(0, 300)}`);
    }
    return times.sort((a, b) => a - b)[7];
  };
  const window = { start: String(data.dataEnd - 6 * 3600), end: String(data.dataEnd) };
  const vlPath = `/select/logsql/query?${new URLSearchParams({ query: '{cluster="us-east-1"} | sort by (_time desc) | limit 5000', ...window })}`;
  const lokiUrl = `${workerUrl}/loki/api/v1/query_range?${new URLSearchParams({ query: '{cluster="us-east-1"}', limit: "5000", ...window })}`;
  // As Grafana asks: gzip, which VictoriaLogs applies itself and the local runtime applies to the
  // Worker's answer.
  probes.push({
    workload: "log",
    name: "5,000-entry log answer, median of 15",
    workerMs: await big(lokiUrl),
    vlMs: await big(`${vlUrl}${vlPath}`),
  });
  // Uncompressed, the Worker against the same VictoriaLogs answer through the bare forwarding
  // Worker (which passes it on uncompressed): the difference is the Worker's own work, without the
  // runtime's compression of its answer, which the bare Worker does not pay (see UNCOMPRESSED).
  probes.push({
    workload: "log",
    name: "5,000-entry log answer, uncompressed, median of 15",
    workerMs: await big(lokiUrl, UNCOMPRESSED),
    vlMs: await big(`${vlUrl}${vlPath}`, UNCOMPRESSED),
  });
  probes.push({
    workload: "log",
    name: "5,000-entry VictoriaLogs answer via the bare forwarding Worker, uncompressed, median of 15",
    workerMs: await big(`${proxyUrl}${vlPath}`, UNCOMPRESSED),
    vlMs: probes[probes.length - 1].vlMs,
  });
  for (const name of selected) {
    const w = WORKLOADS[name];
    if (!w) throw new Error(`unknown workload ${name}`);
    // Probes read past the Worker's caches anyway: a workload that differs only by that has none of its own.
    if (w.noCache) continue;
    for (const t of w.templates) {
      const req = t({ start: data.dataEnd - w.window[1], end: data.dataEnd });
      const ms = {};
      for (const [target, base] of [
        ["loki", workerUrl],
        ["vl", vlUrl],
      ]) {
        const times = [];
        for (let i = 0; i < 3; i++) {
          await settle();
          const t0 = performance.now();
          // Unloaded single requests, each evaluated anew (no-cache: the Worker's results caches are left out).
          const res = await fetch(requestUrl(base, req[target]), { headers: { "Cache-Control": "no-cache" } });
          const body = await res.text();
          times.push(performance.now() - t0);
          if (res.status !== 200) {
            problems.push(`${name} / ${req.name} / ${target}: HTTP ${res.status}: ${body.slice(0, 300)}`);
            break;
          }
        }
        ms[target] = times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
      }
      probes.push({ workload: name, name: req.name, workerMs: ms.loki, vlMs: ms.vl });
    }
  }
  if (problems.length > 0) throw new Error(`requests that do not answer 200:\n  ${problems.join("\n  ")}`);
  return probes;
}

/**
 * The Worker's own work on cold log queries, paired: over random 15-minute windows (the cold
 * workload's requests, which no cache holds), the Worker's request and the bare forwarding Worker
 * carrying the equivalent LogsQL to VictoriaLogs go back to back, in alternating order, and the
 * median of the differences is the Worker's own work. VictoriaLogs' time, which varies more from one
 * request to the next than the Worker's work, cancels within a pair. At limit 1 it is what a
 * request costs whatever its answer; the step to limit 100 is what 99 more rows cost (read, kept,
 * written).
 */
async function pairedOwnWork(workerUrl, proxyUrl, data, pairs = 300, warm = 50) {
  const timed = async (url, headers) => {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`paired own work: HTTP ${res.status}: ${new TextDecoder().decode(body)}`);
    return performance.now() - t0;
  };
  const results = [];
  for (const limit of [1, 100]) {
    const diffs = [];
    for (let i = 0; i < warm + pairs; i++) {
      const w = randomWindow(WORKLOADS.cold, data.dataStart, data.dataEnd);
      const req = coldLogRequest(COLD_APPS[i % COLD_APPS.length], w, limit);
      // Uncompressed answers on both sides, as k6 asks for them (see UNCOMPRESSED).
      const worker = () => timed(requestUrl(workerUrl, req.loki), { ...UNCOMPRESSED, "Cache-Control": "no-cache" });
      const forwarded = () => timed(requestUrl(proxyUrl, req.vl), UNCOMPRESSED);
      // Which goes first alternates: the second of a pair finds VictoriaLogs' caches warm.
      let wMs, fMs;
      if (i % 2 === 0) {
        wMs = await worker();
        fMs = await forwarded();
      } else {
        fMs = await forwarded();
        wMs = await worker();
      }
      if (i >= warm) diffs.push(wMs - fMs);
    }
    diffs.sort((a, b) => a - b);
    results.push({ limit, pairs: diffs.length, ownMs: diffs[Math.floor(diffs.length / 2)] });
  }
  return results;
}

/**
 * Headers asking for an uncompressed answer. Node's fetch asks for gzip otherwise, which the local
 * runtime applies to the Worker's JSON but not to the NDJSON the bare forwarding Worker passes on:
 * a comparison of the two would charge the runtime's compression (0.5 ms on a one-entry answer) to
 * the Worker's own work.
 */
const UNCOMPRESSED = { "Accept-Encoding": "identity" };

/** A template's request (`[path, params]`) as a URL on `base`. */
function requestUrl(base, [path, params]) {
  return `${base}${path}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`;
}

async function main() {
  const k6 = await obtainK6();
  say(`k6: ${k6}`);
  const data = await prepareOrigin();
  const worker = await startWorker(data.vl.url);
  say(`Worker ${worker.url}`);
  const proxy = await startBareProxy(data.vl.url);
  say(`bare forwarding Worker ${proxy.url}`);
  await warmUp(worker.url, data.vl.url);
  await warmUp(proxy.url, data.vl.url);
  const probes = await probeTemplates(worker.url, data.vl.url, proxy.url, data);
  say("every request answers 200 on both targets");
  const ownWork = await pairedOwnWork(worker.url, proxy.url, data);
  say(`own work, paired: ${ownWork.map((o) => `limit ${o.limit} ${o.ownMs.toFixed(2)} ms`).join(", ")}`);
  const work = await mkdtemp(join(tmpdir(), "lokivl-bench-"));
  const rows = [];
  try {
    for (const name of selected) {
      const w = WORKLOADS[name];
      if (!w) throw new Error(`unknown workload ${name}`);
      say(`${name}: Worker for ${duration}...`);
      const wf = await k6run(k6, name, "worker", worker.url, data, work);
      say(`${name}: VictoriaLogs direct for ${duration}...`);
      const vf = await k6run(k6, name, "vl", data.vl.url, data, work);
      say(
        `${name}: Worker p50 ${wf.p50.toFixed(1)} ms, ${wf.rps.toFixed(1)} req/s | VL p50 ${vf.p50.toFixed(1)} ms, ${vf.rps.toFixed(1)} req/s | failed ${wf.failed}/${vf.failed}`,
      );
      /** @type {import("./report.mjs").Row} */
      const row = { workload: name, describe: w.describe, worker: wf, vl: vf };
      if (name === "cold") {
        say(`${name}: bare forwarding Worker for ${duration}...`);
        row.proxy = await k6run(k6, name, "proxy", proxy.url, data, work);
        say(`${name}: bare forwarding Worker p50 ${row.proxy.p50.toFixed(1)} ms`);
      }
      rows.push(row);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  // The row-path and memory proofs in the same run, so the speed targets below come from one run.
  const proofs = process.env.BENCH_PROOFS === "0" ? undefined : await runProofs();
  const when = new Date().toISOString();
  const md = markdown(
    rows,
    probes,
    { mode, lines: LINES, days: DAYS, durationS: parseInt(duration, 10), when },
    proofs,
    ownWork,
  );
  await mkdir(join(root, "bench", "results"), { recursive: true });
  await writeFile(join(root, "bench", "results", `e2e-${mode}.md`), md);
  await writeFile(
    join(root, "bench", "results", `e2e-${mode}.svg`),
    svg(rows, `Worker vs VictoriaLogs direct (${mode}, ${when.slice(0, 10)})`),
  );
  process.stdout.write(`\n${md}\nwritten to bench/results/e2e-${mode}.md and .svg\n`);
}

/**
 * `bench:stream` (NDJSON → Loki per row, 256 MiB) and `bench:memory` (50 concurrent 5,000-entry
 * queries in a 128 MB heap), each in its own process; their `RESULT` lines, or undefined for one
 * that failed to report.
 */
async function runProofs() {
  const run = (script, env) =>
    new Promise((resolve) => {
      say(`${script}...`);
      let out = "";
      const child = spawn(process.execPath, [join(root, script)], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "inherit"],
      });
      child.stdout.setEncoding("utf8").on("data", (chunk) => (out += chunk));
      child.on("exit", () =>
        resolve(
          out
            .split("\n")
            .filter((l) => l.startsWith("RESULT "))
            .map((l) => JSON.parse(l.slice("RESULT ".length))),
        ),
      );
    });
  const [stream, streamWorkerd] = await run("bench/stream/run.mjs", { BENCH_STREAM_BYTES: String(256 * 1024 * 1024) });
  const memory = await run("bench/memory/run.mjs", {});
  return { stream, streamWorkerd, memory };
}

main()
  .then(() => runAllCleanups())
  .catch(async (err) => {
    process.stderr.write(`[bench] ${err instanceof Error ? err.stack : String(err)}\n`);
    await runAllCleanups();
    process.exit(1);
  });

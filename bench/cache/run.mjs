// `npm run bench:cache`: a six-panel Grafana dashboard over the last 3 hours, refreshed every 30 s,
// against the Worker (workerd via Miniflare, as `npm start` serves it) in front of a real
// VictoriaLogs, with a counting proxy between the two. Live lines are pushed the whole time.
// Reports, per refresh, the origin requests and bytes the Worker caused; cold and warm latency
// (and the same refresh through a Worker with CACHE=off); 16 concurrent identical cold requests;
// a restarted Worker that kept only KV; and warm throughput against VictoriaLogs direct running
// the same queries' LogsQL, in the same run. Results: bench/results/cache-dashboard.md.
//
// BENCH_REFRESHES (default 8) and BENCH_REFRESH_S (default 30) set the replay; everything listens
// on 127.0.0.1 and stops when the run ends.

import { createServer } from "node:http";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { registerCleanup, runAllCleanups } from "../../scripts/lib/cleanup.mjs";
import { loadDemoData } from "../../scripts/lib/datasets.mjs";
import { serveWorker } from "../../scripts/lib/serve-worker.mjs";
import { freePort, pushLokiBatches, startVictoriaLogs } from "../../scripts/lib/victorialogs.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const REFRESHES = Number(process.env.BENCH_REFRESHES || 8);
const REFRESH_MS = Number(process.env.BENCH_REFRESH_S || 30) * 1000;
const RANGE_MS = 3 * 3_600_000;
const say = (m) => process.stdout.write(`[bench:cache] ${m}\n`);

/** A proxy in front of VictoriaLogs that counts requests and response bytes. */
async function countingProxy(target) {
  const counts = { requests: 0, bytes: 0 };
  /** Bytes by kind of request (endpoint, and stats or rows for queries), for the report. */
  const byKind = new Map();
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    counts.requests++;
    const form = new URLSearchParams(Buffer.concat(chunks).toString());
    const path = (req.url ?? "").split("?")[0];
    const kind = path.endsWith("/query")
      ? form.get("query")?.includes("| stats")
        ? "stats query"
        : "log rows"
      : path.split("/").pop();
    const k = byKind.get(kind) ?? { requests: 0, bytes: 0 };
    byKind.set(kind, k);
    k.requests++;
    try {
      const upstream = await fetch(target + req.url, {
        method: req.method,
        headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== "host" && k !== "connection")),
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      res.writeHead(upstream.status, { "Content-Type": upstream.headers.get("Content-Type") ?? "text/plain" });
      for await (const chunk of upstream.body ?? []) {
        counts.bytes += chunk.length;
        k.bytes += chunk.length;
        res.write(chunk);
      }
      res.end();
    } catch (err) {
      res.writeHead(502).end(String(err));
    }
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  registerCleanup({ stop: () => new Promise((r) => server.close(() => r())), killNow: () => server.close() });
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    snapshot: () => ({ ...counts, byKind: new Map([...byKind].map(([kind, v]) => [kind, { ...v }])) }),
  };
}

/**
 * Live traffic at the demo's own density (about one line a second in all), on streams like the
 * demo's, stamped now: so the last minutes of the range hold what the earlier hours hold per minute.
 */
function startFeeder(vlUrl) {
  let stop = false;
  let n = 0;
  const apps = ["checkout", "nginx", "api-gateway", "auth"];
  const loop = (async () => {
    while (!stop) {
      const now = Date.now();
      n++;
      const i = n % apps.length;
      const app = apps[i];
      const level = n % 17 === 0 ? "error" : "info";
      const streams = [
        {
          stream: { cluster: "live-1", namespace: i < 3 ? "shop" : "platform", app, pod: `${app}-live-0` },
          values: [
            [
              String(BigInt(now) * 1_000_000n),
              `level=${level} msg="live request ${n}" status=${level === "error" ? 500 : 200}`,
              { level },
            ],
          ],
        },
      ];
      await pushLokiBatches(vlUrl, [JSON.stringify({ streams })]).catch(() => {});
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return () => {
    stop = true;
    return loop;
  };
}

/** The dashboard's requests as Grafana sends them at `nowMs`: metric ranges aligned to the step, logs in ms. */
function dashboard(nowMs) {
  const metric = (query, stepS) => {
    const step = stepS * 1000;
    const start = Math.floor((nowMs - RANGE_MS) / step) * step;
    const end = Math.ceil(nowMs / step) * step;
    return {
      path: "/loki/api/v1/query_range",
      params: { query, start: String(start * 1e6), end: String(end * 1e6), step: `${stepS}s` },
    };
  };
  const ns = (ms) => String(BigInt(ms) * 1_000_000n);
  return [
    { panel: "rate by app", ...metric('sum by (app) (count_over_time({namespace="shop"}[1m]))', 30) },
    { panel: "errors by app", ...metric('sum by (app) (rate({namespace="shop"} |= "error" [1m]))', 30) },
    { panel: "bytes by cluster", ...metric('sum by (cluster) (bytes_over_time({namespace=~".+"}[1m]))', 60) },
    {
      panel: "logs volume",
      ...metric('sum by (level, detected_level) (count_over_time({app="checkout"} | drop __error__ [30s]))', 30),
    },
    {
      panel: "error logs",
      path: "/loki/api/v1/query_range",
      params: {
        query: '{app="checkout"} |= "error"',
        start: ns(nowMs - RANGE_MS),
        end: ns(nowMs),
        limit: "100",
        direction: "backward",
      },
    },
    {
      panel: "app variable",
      path: "/loki/api/v1/label/app/values",
      params: { start: ns(nowMs - RANGE_MS), end: ns(nowMs) },
    },
  ];
}

/**
 * The LogsQL each panel costs VictoriaLogs when asked directly (the Worker's uncached plan): the
 * baseline for throughput.
 */
function direct(nowMs) {
  const iso = (ms) => new Date(ms).toISOString();
  const window = `_time:[${iso(nowMs - RANGE_MS)}, ${iso(nowMs)})`;
  const q = (query, extra = {}) => ({
    path: "/select/logsql/query",
    params: { query: `${window} ${query}`, ...extra },
  });
  return [
    q('{namespace="shop"} | stats by (_time:30s, app) count() as n'),
    q('{namespace="shop"} _msg:~"error" | stats by (_time:30s, app) count() as n'),
    q('{namespace=~".+"} | len(_msg) as l | stats by (_time:60s, cluster) sum(l) as b'),
    q('{app="checkout"} | stats by (_time:30s, level, detected_level) count() as n'),
    q('{app="checkout"} _msg:~"error" | sort by (_time desc) | limit 100'),
    {
      path: "/select/logsql/stream_field_values",
      params: { query: window + " *", field: "app", start: iso(nowMs - RANGE_MS), end: iso(nowMs) },
    },
  ];
}

async function timed(base, req, headers = {}) {
  const t0 = performance.now();
  const res = await fetch(`${base}${req.path}?${new URLSearchParams(req.params)}`, { headers });
  const body = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${req.panel ?? req.path}: HTTP ${res.status}: ${body.slice(0, 300)}`);
  return { ms, body };
}

/** One dashboard refresh: every panel at once, as Grafana does. */
async function refresh(base, nowMs) {
  const panels = dashboard(nowMs);
  const results = await Promise.all(panels.map((p) => timed(base, p)));
  return { ms: Math.max(...results.map((r) => r.ms)), panels: results.map((r) => r.ms) };
}

/** Closed-loop throughput: `concurrency` clients sending `requests()` in turn for `seconds`. */
async function throughput(base, requests, seconds, concurrency = 6) {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const client = async (offset) => {
    let i = offset;
    while (performance.now() < until) {
      const list = requests();
      await timed(base, list[i % list.length]);
      i++;
      done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, k) => client(k)));
  return done / ((performance.now() - t0) / 1000);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)];
};

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), "lokivl-bench-cache-"));
  registerCleanup({ stop: () => rm(dataDir, { recursive: true, force: true }), killNow: () => {} });
  const vl = await startVictoriaLogs({ dataDir: join(dataDir, "vl") });
  registerCleanup({ stop: () => vl.stop(), killNow: () => {} });
  say(`VictoriaLogs ${vl.url}; loading six hours of demo logs ending now...`);
  const loaded = await loadDemoData(vl.url, { end: Date.now() });
  say(`${loaded.entries} demo lines loaded`);
  const stopFeeder = startFeeder(vl.url);
  const proxy = await countingProxy(vl.url);

  // Miniflare's state (KV, Cache API, Durable Objects) lives under the project: workerd resolves the
  // bundle relative to it.
  const workDir = join(root, ".wrangler", `bench-cache-${process.pid}`);
  registerCleanup({ stop: () => rm(workDir, { recursive: true, force: true }), killNow: () => {} });
  const stateDir = join(workDir, "worker");
  let worker = await serveWorker({ root, port: await freePort(), vars: { ORIGIN_URL: proxy.url }, stateDir });
  const uncached = await serveWorker({
    root,
    port: await freePort(),
    vars: { ORIGIN_URL: vl.url, CACHE: "off" },
    stateDir: join(workDir, "uncached"),
  });
  registerCleanup({ stop: () => uncached.dispose(), killNow: () => {} });
  // JIT and connections warm on both, on a query no panel uses.
  for (const w of [worker, uncached]) await fetch(`${w.url}/loki/api/v1/labels`).then((r) => r.arrayBuffer());

  say(`replaying ${REFRESHES} refreshes, every ${REFRESH_MS / 1000} s`);
  const rounds = [];
  for (let i = 0; i < REFRESHES; i++) {
    const started = Date.now();
    const before = proxy.snapshot();
    const cached = await refresh(worker.url, started);
    const after = proxy.snapshot();
    const plain = await refresh(uncached.url, started);
    const kinds = {};
    for (const [kind, v] of after.byKind) {
      const b = before.byKind.get(kind) ?? { requests: 0, bytes: 0 };
      if (v.requests > b.requests) kinds[kind] = { requests: v.requests - b.requests, bytes: v.bytes - b.bytes };
    }
    rounds.push({
      requests: after.requests - before.requests,
      bytes: after.bytes - before.bytes,
      kinds,
      cachedMs: cached.ms,
      uncachedMs: plain.ms,
    });
    say(
      `refresh ${i + 1}: ${rounds[i].requests} origin requests, ${rounds[i].bytes} bytes, ${cached.ms.toFixed(1)} ms (uncached ${plain.ms.toFixed(1)} ms) ${JSON.stringify(kinds)}`,
    );
    if (i + 1 < REFRESHES) await new Promise((r) => setTimeout(r, Math.max(0, started + REFRESH_MS - Date.now())));
  }

  // A cold refresh on a warm runtime: the same panels on a grid no refresh used (nothing cached).
  const coldPanels = dashboard(Date.now()).map((p) =>
    p.params.step ? { ...p, params: { ...p.params, step: "15s" } } : { ...p, params: { ...p.params, limit: "99" } },
  );
  const coldRefresh = await Promise.all(coldPanels.map((p) => timed(worker.url, p)));
  const coldWarmRuntimeMs = Math.max(...coldRefresh.map((r) => r.ms));
  say(`cold refresh on a warm runtime: ${coldWarmRuntimeMs.toFixed(1)} ms`);

  // Sixteen identical cold metric requests at once (a step no refresh used, so nothing is cached).
  const coldQuery = dashboard(Date.now())[0];
  coldQuery.params.step = "45s";
  const beforeCold = proxy.snapshot();
  await Promise.all(Array.from({ length: 16 }, () => timed(worker.url, coldQuery)));
  const coalesced = proxy.snapshot().requests - beforeCold.requests;
  say(`16 concurrent identical cold requests: ${coalesced} origin request(s)`);

  // A restarted Worker somewhere else: same KV, no Cache API entries.
  await worker.dispose();
  await rm(join(stateDir, "cache"), { recursive: true, force: true });
  worker = await serveWorker({ root, port: await freePort(), vars: { ORIGIN_URL: proxy.url }, stateDir });
  registerCleanup({ stop: () => worker.dispose(), killNow: () => {} });
  const beforeRestart = proxy.snapshot();
  await refresh(worker.url, Date.now());
  const restart = {
    requests: proxy.snapshot().requests - beforeRestart.requests,
    bytes: proxy.snapshot().bytes - beforeRestart.bytes,
  };
  say(`after a restart with KV only: ${restart.requests} origin requests, ${restart.bytes} bytes`);

  say("warm throughput: the dashboard's requests through the Worker, then their LogsQL on VictoriaLogs direct");
  const workerRps = await throughput(worker.url, () => dashboard(Date.now()), 15);
  const vlRps = await throughput(vl.url, () => direct(Date.now()), 15);
  await stopFeeder();

  const first = rounds[0];
  const steady = rounds.slice(1);
  const steadyBytes = median(steady.map((r) => r.bytes));
  const figures = {
    refreshes: rounds,
    firstRefresh: first,
    steadyMedian: { requests: median(steady.map((r) => r.requests)), bytes: steadyBytes },
    steadyBytesRatio: steadyBytes / first.bytes,
    coldMs: first.cachedMs,
    coldWarmRuntimeMs,
    warmP50Ms: median(steady.map((r) => r.cachedMs)),
    uncachedP50Ms: median(rounds.map((r) => r.uncachedMs)),
    coalesced16: coalesced,
    restart,
    workerRps,
    vlRps,
  };
  await writeFile(join(root, "bench", "results", "cache-dashboard.md"), report(figures));
  say(`steady refreshes cost ${(figures.steadyBytesRatio * 100).toFixed(1)}% of the first refresh's bytes`);
  say(`warm throughput ${workerRps.toFixed(1)} req/s vs VictoriaLogs direct ${vlRps.toFixed(1)} req/s`);
}

function report(f) {
  const rows = f.refreshes
    .map(
      (r, i) =>
        `| ${i + 1} | ${r.requests} | ${r.bytes.toLocaleString("en")} | ${((r.bytes / f.firstRefresh.bytes) * 100).toFixed(1)}% | ${r.cachedMs.toFixed(1)} | ${r.uncachedMs.toFixed(1)} |`,
    )
    .join("\n");
  return `# Results cache: a dashboard refreshing every ${REFRESH_MS / 1000} s

Six panels over the last 3 hours, as Grafana's Loki data source sends them (metric ranges aligned to
the step, the log panel with millisecond bounds): four metric panels (\`sum by\` of
\`count_over_time\`, \`rate\` with a line filter, \`bytes_over_time\`, and the logs-volume form with
\`| drop __error__\`), one log panel (\`limit=100\`) and one \`label/app/values\` variable. Demo data
(six hours ending at the start of the run) plus live lines pushed every second. A counting proxy sits
between the Worker and VictoriaLogs. Generated by \`npm run bench:cache\` on ${new Date().toISOString().slice(0, 10)}.

| Refresh | Origin requests | Origin bytes | Of first refresh | Worker ms | Worker with CACHE=off ms |
| --- | --- | --- | --- | --- | --- |
${rows}

| Figure | Value |
| --- | --- |
| Steady-state refresh (median of refreshes 2–${f.refreshes.length}) | ${f.steadyMedian.requests} origin requests, ${f.steadyMedian.bytes.toLocaleString("en")} bytes = **${(f.steadyBytesRatio * 100).toFixed(1)}%** of the first refresh's bytes (target ≤ 10%) |
| Refresh latency: first (cold runtime and cache) / cold cache on a warm runtime / warm p50 / CACHE=off p50 | ${f.coldMs.toFixed(1)} ms / ${f.coldWarmRuntimeMs.toFixed(1)} ms / ${f.warmP50Ms.toFixed(1)} ms / ${f.uncachedP50Ms.toFixed(1)} ms |
| 16 concurrent identical cold metric requests | **${f.coalesced16}** origin request(s) |
| Restarted Worker (KV kept, Cache API empty), one refresh | ${f.restart.requests} origin requests, ${f.restart.bytes.toLocaleString("en")} bytes |
| Warm throughput, the dashboard's requests (6 clients, 15 s) | Worker ${f.workerRps.toFixed(1)} req/s; VictoriaLogs direct on the same queries' LogsQL ${f.vlRps.toFixed(1)} req/s: **${(f.workerRps / f.vlRps).toFixed(2)}×** |

What a steady refresh still asks for: the chunks after the freshness horizon (the last 10 minutes,
rounded out to chunk boundaries) of each metric panel, the log panel's newest window, and the label
values of the recent bucket. Everything older comes from the isolate's memory, the Cache API, or KV
after a restart.

Latencies are Miniflare's, on a shared 2-core machine: one workerd process runs the Worker, the
coalescing Durable Object and the local Cache API and KV (SQLite and files), so every cache lookup
and write is local I/O in the process that also serves the requests, and panels asked at once
queue behind each other's storage work. A warm refresh still makes one Durable Object round trip per
metric panel (the recent chunks are coalesced across isolates). The origin figures (requests and
bytes) do not depend on the runtime; the latencies do.
`;
}

main()
  .then(() => runAllCleanups())
  .catch(async (err) => {
    process.stderr.write(`[bench:cache] ${err instanceof Error ? err.stack : err}\n`);
    await runAllCleanups();
    process.exit(1);
  });

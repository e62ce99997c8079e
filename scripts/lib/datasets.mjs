// Data for the local origin: the compatibility dataset (the exact data real Loki answered on) and
// a generated demo dataset that ends "now" so that Grafana shows something on first start.

import { createReadStream } from "node:fs";
import { access } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createGunzip } from "node:zlib";
import { countRows, pushLokiBatches, streamsFilter, waitForRows } from "./victorialogs.mjs";
import { prng } from "./prng.mjs";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const COMPAT_FILE = "dataset-seed7.ndjson.gz";
/** The corpus README's figure; a different count means the wrong file, not a loading problem. */
export const COMPAT_ENTRY_COUNT = 85_451;

/** test/fixtures/compat, or ../shared/compat when the fixtures have not been copied in yet. */
export async function compatDatasetPath() {
  const candidates = [
    join(repoRoot, "test", "fixtures", "compat", COMPAT_FILE),
    join(repoRoot, "..", "shared", "compat", COMPAT_FILE),
  ];
  for (const path of candidates) {
    try {
      await access(path);
      return path;
    } catch {
      // try the next one
    }
  }
  throw new Error(`compat dataset not found; looked in:\n  ${candidates.join("\n  ")}`);
}

/**
 * Push bodies of an .ndjson.gz file (one Loki push JSON per line), counting entries and the time
 * range on the way through so the caller knows what to wait for.
 * @param {string} path
 * @param {{ entries: number, minNs: bigint, maxNs: bigint }} stats filled in while iterating
 */
async function* pushBodiesFromFile(path, stats) {
  const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    /** @type {{ streams: { values: [string, string, unknown?][] }[] }} */
    const body = JSON.parse(line);
    for (const stream of body.streams) {
      for (const [ts] of stream.values) {
        const ns = BigInt(ts);
        stats.entries++;
        if (stats.minNs === -1n || ns < stats.minNs) stats.minNs = ns;
        if (ns > stats.maxNs) stats.maxNs = ns;
      }
    }
    yield line;
  }
}

/** @param {bigint} ns RFC3339 with nanoseconds, the precision VictoriaLogs takes exactly */
function nsToRfc3339(ns) {
  const ms = Number(ns / 1_000_000n);
  const frac = (ns % 1_000_000_000n).toString().padStart(9, "0");
  return `${new Date(ms).toISOString().slice(0, 19)}.${frac}Z`;
}

/**
 * Loads the compat dataset into VictoriaLogs at `url` and waits until every entry is visible.
 * @param {string} url
 * @param {{ tenant?: string }} [options]
 * @returns {Promise<{ entries: number, start: string, end: string }>}
 */
export async function loadCompatDataset(url, { tenant } = {}) {
  const path = await compatDatasetPath();
  const stats = { entries: 0, minNs: -1n, maxNs: 0n };
  const { streams } = await pushLokiBatches(url, pushBodiesFromFile(path, stats), { tenant });
  if (stats.entries !== COMPAT_ENTRY_COUNT) {
    throw new Error(`${path} holds ${stats.entries} entries, expected ${COMPAT_ENTRY_COUNT}`);
  }
  const start = nsToRfc3339(stats.minNs);
  const end = nsToRfc3339(stats.maxNs);
  await waitForRows(url, stats.entries, { start, end, tenant, streams });
  return { entries: stats.entries, start, end };
}

// ---------------------------------------------------------------------------------------------
// Demo data

/** 32-bit string hash, used to give every stream its own independent, seed-derived generator. */
function hash32(/** @type {string} */ text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** Seeded helpers over one PRNG stream. */
function makeRandom(/** @type {number} */ seed) {
  const next = prng(seed);
  return {
    next,
    int: (/** @type {number} */ lo, /** @type {number} */ hi) => lo + Math.floor(next() * (hi - lo + 1)),
    /** @template T @param {readonly T[]} items @returns {T} */
    pick: (items) => /** @type {any} */ (items[Math.floor(next() * items.length)]),
    chance: (/** @type {number} */ p) => next() < p,
    hex: (/** @type {number} */ digits) => {
      let out = "";
      for (let i = 0; i < digits; i++) out += "0123456789abcdef"[Math.floor(next() * 16)];
      return out;
    },
  };
}
/** @typedef {ReturnType<typeof makeRandom>} Random */

const ESC = "\u001b";
const RED = `${ESC}[31m`;
const YELLOW = `${ESC}[33m`;
const RESET = `${ESC}[0m`;

const PATHS = [
  "/api/v1/products",
  "/api/v1/products/{id}",
  "/api/v1/cart",
  "/api/v1/checkout",
  "/api/v1/users/me",
  "/healthz",
  "/api/v1/search",
];
const USER_AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
  "curl/8.5.0",
  "okhttp/4.12.0",
  "Grafana-Synthetic-Monitoring/1.0",
];
const UPSTREAMS = ["catalog", "cart", "checkout", "users", "search"];
const COUNTRIES = ["DE", "FR", "US", "GB", "JP", "BR", "IN"];
const CURRENCIES = ["EUR", "USD", "GBP", "JPY"];
const TENANTS = ["acme", "globex", "initech", "umbrella"];
const JOBS = ["email-digest", "invoice-render", "search-reindex", "thumbnail", "cart-expiry"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** @param {Random} r @param {number} errorRate */
function level(r, errorRate) {
  const x = r.next();
  if (x < errorRate) return "error";
  if (x < errorRate * 3) return "warn";
  if (x < 0.97) return "info";
  return "debug";
}

/** @param {Random} r */
const clientIp = (r) => `10.${r.int(0, 3)}.${r.int(0, 255)}.${r.int(1, 254)}`;

/** @param {number} base @param {Random} r latency with a long tail, in ms */
const latency = (base, r) =>
  Math.round((base * (0.4 + r.next()) + (r.chance(0.03) ? base * 8 * r.next() : 0)) * 100) / 100;

/**
 * @typedef {object} LineContext
 * @property {Random} r
 * @property {number} ms entry time in ms since the epoch
 * @property {number} errorRate
 * @typedef {(ctx: LineContext) => { line: string, metadata?: Record<string, string> }} LineMaker
 */

/** @type {LineMaker} */
function apiGatewayLine({ r, errorRate }) {
  const lvl = level(r, errorRate);
  const method = r.pick(["GET", "GET", "GET", "POST", "PUT", "DELETE"]);
  const path = r.pick(PATHS).replace("{id}", String(r.int(1, 5000)));
  const status =
    lvl === "error"
      ? r.pick([500, 502, 503, 504])
      : lvl === "warn"
        ? r.pick([400, 401, 404, 429])
        : r.pick([200, 200, 200, 201, 204, 304]);
  const ms = latency(lvl === "error" ? 900 : 60, r);
  const entry = {
    level: lvl,
    msg: lvl === "error" ? "upstream request failed" : lvl === "warn" ? "client error" : "request completed",
    http: { method, path, status, latency_ms: ms, bytes: r.int(120, 250_000), user_agent: r.pick(USER_AGENTS) },
    client: { ip: clientIp(r), user_id: `u${r.int(1, 800)}` },
    upstream: { name: r.pick(UPSTREAMS), duration: `${Math.round(ms * 0.8)}ms` },
    ...(lvl === "error"
      ? { error: r.pick(["context deadline exceeded", "connection reset by peer", "no healthy upstream"]) }
      : {}),
  };
  return { line: JSON.stringify(entry), metadata: { trace_id: r.hex(32), span_id: r.hex(16) } };
}

/** @type {LineMaker} */
function checkoutLine({ r, errorRate }) {
  const lvl = level(r, errorRate);
  const items = r.int(1, 6);
  const order = {
    id: `ord-${r.hex(10)}`,
    items,
    total: Math.round(items * r.int(500, 9000)) / 100,
    currency: r.pick(CURRENCIES),
  };
  const customer = { id: `c${r.int(1, 3000)}`, country: r.pick(COUNTRIES), returning: r.chance(0.6) };
  /** @type {Record<string, unknown>} */
  let entry;
  if (lvl === "error") {
    const [code, message] = r.pick([
      ["PAYMENT_DECLINED", "card declined by issuer"],
      ["INVENTORY", "could not reserve stock"],
      ["TIMEOUT", "payment provider timed out after 10s"],
    ]);
    entry = {
      level: lvl,
      msg: "checkout failed",
      order,
      customer,
      error: { code, message, retryable: code === "TIMEOUT" },
    };
  } else if (lvl === "warn") {
    entry = {
      level: lvl,
      msg: "payment retry",
      order,
      customer,
      payment: { provider: r.pick(["stripe", "adyen"]), attempt: r.int(2, 3) },
    };
  } else {
    entry = {
      level: lvl,
      msg: r.pick(["order placed", "cart priced", "payment authorized"]),
      order,
      customer,
      payment: { provider: r.pick(["stripe", "adyen", "paypal"]), status: "authorized" },
      duration_ms: latency(180, r),
    };
  }
  return { line: JSON.stringify(entry), metadata: { trace_id: r.hex(32), span_id: r.hex(16) } };
}

/** @param {string} value */
const logfmtValue = (value) => (/[\s"=]/.test(value) || value === "" ? JSON.stringify(value) : value);
/** @param {Record<string, string | number | boolean>} fields */
const logfmt = (fields) =>
  Object.entries(fields)
    .map(([k, v]) => `${k}=${logfmtValue(String(v))}`)
    .join(" ");

/** @param {Random} r @returns {Record<string, string> | undefined} */
const maybeTenant = (r) => (r.chance(0.2) ? { tenant: r.pick(TENANTS) } : undefined);

/** @param {string} lvl */
const colourPrefix = (lvl) => (lvl === "error" ? `${RED}ERROR${RESET} ` : `${YELLOW}WARN${RESET} `);

/** @type {LineMaker} */
function workerLine({ r, ms, errorRate }) {
  const lvl = level(r, errorRate);
  const job = r.pick(JOBS);
  /** @type {Record<string, string | number | boolean>} */
  const fields = { ts: new Date(ms).toISOString(), level: lvl, caller: `jobs/${job}.go:${r.int(20, 400)}` };
  if (lvl === "error")
    Object.assign(fields, {
      msg: "job failed",
      job,
      attempt: r.int(1, 5),
      err: r.pick(["timeout after 30s", "smtp: 451 try again later", "s3: SlowDown"]),
    });
  else if (lvl === "warn")
    Object.assign(fields, { msg: "job retried", job, attempt: r.int(2, 4), backoff: `${r.int(1, 30)}s` });
  else
    Object.assign(fields, {
      msg: r.pick(["job finished", "job started", "queue polled"]),
      job,
      queue: r.pick(["default", "bulk", "critical"]),
      duration: `${(latency(1200, r) / 1000).toFixed(3)}s`,
    });
  const text = logfmt(fields);
  // Real workers colour their problems; these lines exercise `| decolorize` and line filters.
  const line = lvl === "error" || (lvl === "warn" && r.chance(0.5)) ? colourPrefix(lvl) + text : text;
  const metadata = maybeTenant(r);
  return metadata ? { line, metadata } : { line };
}

/** @type {LineMaker} */
function authLine({ r, errorRate }) {
  const lvl = level(r, errorRate);
  const user = `u${r.int(1, 800)}`;
  /** @type {Record<string, string | number | boolean>} */
  const fields = { level: lvl };
  if (lvl === "error") Object.assign(fields, { msg: "token signing failed", user, err: "kms: key not available" });
  else if (lvl === "warn")
    Object.assign(fields, {
      msg: "login failed",
      user,
      reason: r.pick(["bad password", "mfa timeout", "locked"]),
      ip: clientIp(r),
    });
  else
    Object.assign(fields, {
      msg: r.pick(["login succeeded", "token refreshed", "session ended"]),
      user,
      method: r.pick(["password", "sso", "passkey"]),
      mfa: r.chance(0.7),
      ip: clientIp(r),
      latency: `${Math.round(latency(40, r))}ms`,
    });
  const text = logfmt(fields);
  const line = lvl === "error" ? colourPrefix(lvl) + text : text;
  const metadata = maybeTenant(r);
  return metadata ? { line, metadata } : { line };
}

/** @param {number} ms */
function nginxTime(ms) {
  const d = new Date(ms);
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}

/** @type {LineMaker} */
function nginxLine({ r, ms, errorRate }) {
  const lvl = level(r, errorRate);
  const status =
    lvl === "error"
      ? r.pick([500, 502, 504])
      : lvl === "warn"
        ? r.pick([404, 404, 403, 499])
        : r.pick([200, 200, 200, 301, 304]);
  const path = r.chance(0.3)
    ? r.pick(["/static/app.js", "/static/app.css", "/favicon.ico", "/img/logo.svg"])
    : r.pick(PATHS).replace("{id}", String(r.int(1, 5000)));
  const query = r.chance(0.15) ? `?page=${r.int(1, 20)}` : "";
  const user = r.chance(0.05) ? `u${r.int(1, 800)}` : "-";
  const referer = r.chance(0.4) ? `"https://shop.example.com/"` : `"-"`;
  const line = `${clientIp(r)} - ${user} [${nginxTime(ms)}] "${r.pick(["GET", "GET", "POST"])} ${path}${query} HTTP/1.1" ${status} ${r.int(0, 80_000)} ${referer} "${r.pick(USER_AGENTS)}"`;
  return { line };
}

/** @type {{ namespace: string, app: string, linesPerPodHour: number, errorRate: number, make: LineMaker }[]} */
const APPS = [
  { namespace: "shop", app: "api-gateway", linesPerPodHour: 240, errorRate: 0.02, make: apiGatewayLine },
  { namespace: "shop", app: "checkout", linesPerPodHour: 120, errorRate: 0.03, make: checkoutLine },
  { namespace: "shop", app: "nginx", linesPerPodHour: 300, errorRate: 0.01, make: nginxLine },
  { namespace: "platform", app: "worker", linesPerPodHour: 90, errorRate: 0.04, make: workerLine },
  { namespace: "platform", app: "auth", linesPerPodHour: 60, errorRate: 0.02, make: authLine },
];
const CLUSTERS = ["eu-west-1", "us-east-1"];
const PODS_PER_APP = 2;
const WINDOW_MS = 15 * 60 * 1000;

/**
 * Loki push bodies (JSON strings) covering `hours` hours before `end`, one body per 15 minutes.
 * Same seed and end → same bodies. About 3,200 lines per hour over 20 streams; one checkout
 * deployment in eu-west-1 has an error burst 90 to 60 minutes before `end`, so there is an incident
 * to find.
 * @param {{ end?: number, hours?: number, seed?: number }} [options] end in ms since the epoch
 * @returns {Generator<string>}
 */
export function* generateDemoData({ end = Date.now(), hours = 6, seed = 7 } = {}) {
  const start = end - hours * 3_600_000;
  const incident = { cluster: CLUSTERS[0], app: "checkout", from: end - 90 * 60_000, to: end - 60 * 60_000 };
  const streams = [];
  for (const cluster of CLUSTERS) {
    for (const spec of APPS) {
      const podHash = makeRandom(hash32(`${seed}/${cluster}/${spec.app}`)).hex(6);
      for (let i = 0; i < PODS_PER_APP; i++) {
        const labels = {
          cluster,
          namespace: spec.namespace,
          app: spec.app,
          service_name: spec.app,
          pod: `${spec.app}-${podHash}-${i}`,
          container: spec.app,
          job: `${spec.namespace}/${spec.app}`,
        };
        const r = makeRandom(hash32(`${seed}/${labels.pod}/${cluster}`));
        streams.push({ labels, spec, r, nextMs: start + r.next() * 2000, subNs: 0 });
      }
    }
  }
  for (let windowStart = start; windowStart < end; windowStart += WINDOW_MS) {
    const windowEnd = Math.min(windowStart + WINDOW_MS, end);
    const body = [];
    for (const stream of streams) {
      /** @type {[string, string, Record<string, string>?][]} */
      const values = [];
      const meanGapMs = 3_600_000 / stream.spec.linesPerPodHour;
      while (stream.nextMs < windowEnd) {
        const ms = Math.floor(stream.nextMs);
        const inIncident =
          stream.labels.cluster === incident.cluster &&
          stream.spec.app === incident.app &&
          ms >= incident.from &&
          ms < incident.to;
        const { line, metadata } = stream.spec.make({
          r: stream.r,
          ms,
          errorRate: inIncident ? 0.35 : stream.spec.errorRate,
        });
        // Sub-millisecond digits make timestamps distinct and exercise nanosecond handling.
        const ns = (BigInt(ms) * 1_000_000n + BigInt(stream.r.int(0, 999_999))).toString();
        values.push(metadata ? [ns, line, metadata] : [ns, line]);
        // Exponential gaps (a Poisson process), denser during the incident.
        const rate = inIncident ? 3 : 1;
        stream.nextMs += (-Math.log(1 - stream.r.next()) * meanGapMs) / rate;
      }
      if (values.length > 0) body.push({ stream: stream.labels, values });
    }
    if (body.length > 0) yield JSON.stringify({ streams: body });
  }
}

/**
 * Pushes demo data into VictoriaLogs and waits until it is visible. Only the demo streams are
 * counted, before and after the push: lines a user pushed into the same origin are theirs, and
 * demo rows already present in the range mean the same data is being loaded twice.
 * @param {string} url
 * @param {{ end?: number, hours?: number, seed?: number, tenant?: string }} [options]
 * @returns {Promise<{ entries: number, start: string, end: string }>}
 */
export async function loadDemoData(url, { end = Date.now(), hours = 6, seed = 7, tenant } = {}) {
  const bodies = [...generateDemoData({ end, hours, seed })];
  const range = { start: new Date(end - hours * 3_600_000).toISOString(), end: new Date(end).toISOString() };
  /** @type {Map<string, Record<string, string>>} */
  const labelSets = new Map();
  for (const body of bodies)
    for (const { stream } of /** @type {{ streams: { stream: Record<string, string> }[] }} */ (JSON.parse(body))
      .streams)
      labelSets.set(JSON.stringify(stream), stream);
  const query = streamsFilter(labelSets.values());
  const before = await countRows(url, query, { ...range, tenant });
  if (before > 0)
    process.stderr.write(
      `[victorialogs] warning: ${before} demo rows were already in ${range.start} .. ${range.end} (data loaded twice?)\n`,
    );
  const { entries, streams } = await pushLokiBatches(url, bodies, { tenant });
  await waitForRows(url, before + entries, { ...range, tenant, streams, query });
  return { entries, ...range };
}

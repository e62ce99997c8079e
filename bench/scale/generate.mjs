// The scale benchmark's dataset: the compat dataset's shape (JSON, logfmt and nginx apps, 48
// streams over two clusters and two namespaces, service_name among the stream labels, trace ids as
// structured metadata) at any size, over any number of days, the same rows for the same seed.
// Rows come out as VictoriaLogs jsonline batches in time order, a few thousand at a time: ten
// million rows are never held at once.

import { prng } from "../../scripts/lib/prng.mjs";

const JSON_APPS = ["api-gateway", "checkout", "payments"];
const LOGFMT_APPS = ["worker", "auth"];
const TEXT_APPS = ["nginx"];
/** Stream labels, in the order VictoriaLogs is told they make the stream. */
export const STREAM_FIELDS = ["cluster", "namespace", "app", "service_name", "pod", "container", "job"];

const LEVELS = /** @type {const} */ ([
  ["debug", 0.2],
  ["info", 0.6],
  ["warn", 0.12],
  ["error", 0.08],
]);
const METHODS = /** @type {const} */ ([
  ["GET", 0.7],
  ["POST", 0.2],
  ["PUT", 0.06],
  ["DELETE", 0.04],
]);
const PATHS = [
  "/api/v1/orders",
  "/api/v1/users",
  "/api/v1/cart",
  "/api/v2/payments",
  "/healthz",
  "/login",
  "/static/app.js",
];
const JOBS = ["resize", "email", "invoice", "sync", "cleanup"];
const MSGS_OK = ["request served", "cache hit", "user authenticated", "order created", "payment captured"];
const MSGS_ERR = [
  "upstream timeout",
  "connection refused",
  "invalid token",
  "database deadlock detected",
  "out of memory: kill process",
];
const AGENTS = ["Mozilla/5.0 (X11; Linux x86_64)", "curl/8.5.0", "Grafana/11.5.0", "kube-probe/1.30"];
const NOTES = ["café ☕ ok", "日本語のログ", 'quoted "value" here', "back\\slash path C:\\tmp"];
const TENANTS = ["acme", "globex", "initech"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Helpers over one seeded PRNG. */
export function random(seed) {
  const next = prng(seed);
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    pick: (items) => items[Math.floor(next() * items.length)],
    weighted: (pairs) => {
      let x = next();
      for (const [v, w] of pairs) {
        x -= w;
        if (x < 0) return v;
      }
      return pairs[pairs.length - 1][0];
    },
    hex: (digits) => {
      let out = "";
      for (let i = 0; i < digits; i++) out += "0123456789abcdef"[int(0, 15)];
      return out;
    },
    // Log-normal latency (median ~55 ms, long tail), from two uniforms (Box-Muller).
    latency: () =>
      Math.round(Math.exp(4 + 0.9 * Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next())) * 100) / 100,
  };
}

const ip = (r) => `10.${r.int(0, 3)}.${r.int(0, 255)}.${r.int(1, 254)}`;

/** The status a line of this level reports: 2xx for debug/info, 4xx for warn, 5xx for error. */
const statusFor = (r, level) =>
  level === "error" ? r.pick([500, 502, 503]) : level === "warn" ? r.pick([404, 429]) : 200;

const pad2 = (n) => String(n).padStart(2, "0");
/** nginx's `[10/Mar/2026:13:55:36 +0000]`. */
function nginxTime(ms) {
  const d = new Date(ms);
  return `${pad2(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} +0000`;
}

/** One row's line and structured metadata for `app`. */
export function lineFor(r, app, ms) {
  const level = r.weighted(LEVELS);
  const method = r.weighted(METHODS);
  const path = r.pick(PATHS);
  const status = statusFor(r, level);
  const latency = r.latency();
  const bytes = r.int(80, 250_000);
  if (JSON_APPS.includes(app)) {
    const rec = {
      level,
      msg: r.pick(level === "error" ? MSGS_ERR : MSGS_OK),
      method,
      path,
      status,
      duration: `${Math.trunc(latency)}ms`,
      latency_ms: latency,
      bytes,
      user_id: `u${r.int(1, 400)}`,
      client_ip: ip(r),
    };
    if (r.next() < 0.3) rec.http = { proto: "HTTP/1.1", host: `${app}.svc` };
    if (r.next() < 0.05) rec.note = r.pick(NOTES);
    return { line: JSON.stringify(rec), meta: { trace_id: r.hex(16), span_id: r.hex(8) } };
  }
  if (LOGFMT_APPS.includes(app)) {
    const msg = r.pick(level === "error" ? MSGS_ERR : MSGS_OK);
    let line =
      `level=${level} caller=${app}.go:${r.int(10, 400)} msg="${msg}" job=${r.pick(JOBS)} ` +
      `duration=${Math.trunc(latency)}ms size=${r.int(1, 900)}${r.pick(["B", "KB", "MB"])} ok=${level !== "error"} ` +
      `client_ip=${ip(r)} attempt=${r.int(1, 5)}`;
    // A coloured level word ahead of the fields, as some loggers write on a terminal.
    if (level === "error" && r.next() < 0.5) line = `\u001b[31mERROR\u001b[0m ${line}`;
    return { line, meta: r.next() < 0.2 ? { tenant: r.pick(TENANTS) } : undefined };
  }
  return {
    line: `${ip(r)} - - [${nginxTime(ms)}] "${method} ${path} HTTP/1.1" ${status} ${bytes} "-" "${r.pick(AGENTS)}"`,
    meta: undefined,
  };
}

/**
 * The 48 streams and their share of the rows: prod streams log about four times as much as
 * staging ones, each stream its own rate.
 */
function streamsOf(r) {
  const out = [];
  for (const cluster of ["eu-west-1", "us-east-1"]) {
    for (const namespace of ["prod", "staging"]) {
      for (const app of [...JSON_APPS, ...LOGFMT_APPS, ...TEXT_APPS]) {
        for (let i = 0; i < 2; i++) {
          const labels = {
            cluster,
            namespace,
            app,
            service_name: app,
            pod: `${app}-${r.hex(6)}-${i}`,
            container: app,
            job: `${namespace}/${app}`,
          };
          out.push({ labels, weight: namespace === "prod" ? r.int(250, 700) : r.int(60, 200) });
        }
      }
    }
  }
  return out;
}

/** RFC 3339 with nanoseconds, which VictoriaLogs stores exactly. */
export function rfc3339(ns) {
  const ms = Number(ns / 1_000_000n);
  return `${new Date(ms).toISOString().slice(0, 19)}.${(ns % 1_000_000_000n).toString().padStart(9, "0")}Z`;
}

/**
 * @param {{ rows: number, days: number, endMs: number, seed?: number, batchRows?: number }} options
 *   endMs: the data's end (fixed, so a cached load stays valid); rows: about this many in all.
 */
export function scaleDataset({ rows, days, endMs, seed = 26, batchRows = 20_000 }) {
  const startMs = endMs - days * 86_400_000;
  const streams = streamsOf(random(seed));
  const totalWeight = streams.reduce((n, s) => n + s.weight, 0);
  return {
    startMs,
    endMs,
    streams: streams.map((s) => s.labels),
    /**
     * jsonline bodies of `batchRows` rows each, in time order (slicedRowTimes); `onRow` is told
     * each row's stream and size, for counting.
     * @param {(streamIndex: number, bytes: number) => void} [onRow]
     */
    *bodies(onRow) {
      const r = random(seed + 1);
      const spanMs = endMs - startMs;
      // The expected count: the stream's share of the rows, for the slice's share of the time.
      const times = slicedRowTimes(r, startMs, endMs, streams.length, (si, sliceMs) => {
        return ((rows * streams[si].weight) / totalWeight) * (sliceMs / spanMs);
      });
      yield* jsonlineBatches(
        (function* () {
          for (const { stream: si, ns } of times) {
            const s = streams[si];
            const { line, meta } = lineFor(r, s.labels.app, Number(ns / 1_000_000n));
            const row = JSON.stringify({ _time: rfc3339(ns), _msg: line, ...s.labels, ...meta });
            onRow?.(si, row.length);
            yield row;
          }
        })(),
        batchRows,
      );
    },
  };
}

const SLICE_MS = 10 * 60_000;

/**
 * The times of a generated dataset's rows over [startMs, endMs), in time order: ten-minute slices,
 * in each every stream's rows in time order. A stream's count in a slice is `expected` with its
 * fraction settled by a draw, so that totals come out right on average. Lazy, and drawing from `r`
 * only as it goes: the caller draws each row's content from the same source between rows, and the
 * same seed gives the same rows.
 * @param {{ next(): number }} r
 * @param {number} startMs
 * @param {number} endMs
 * @param {number} streams how many
 * @param {(stream: number, sliceMs: number, sliceStartMs: number) => number} expected
 * @returns {Generator<{ stream: number, ns: bigint, sliceStartMs: number }>}
 */
export function* slicedRowTimes(r, startMs, endMs, streams, expected) {
  for (let sliceStartMs = startMs; sliceStartMs < endMs; sliceStartMs += SLICE_MS) {
    const sliceMs = Math.min(SLICE_MS, endMs - sliceStartMs);
    for (let stream = 0; stream < streams; stream++) {
      const e = expected(stream, sliceMs, sliceStartMs);
      const n = Math.floor(e) + (r.next() < e % 1 ? 1 : 0);
      const offsets = [];
      for (let i = 0; i < n; i++) offsets.push(Math.floor(r.next() * sliceMs * 1e6));
      offsets.sort((a, b) => a - b);
      for (const off of offsets) yield { stream, ns: BigInt(sliceStartMs) * 1_000_000n + BigInt(off), sliceStartMs };
    }
  }
}

/**
 * jsonline bodies of `batchRows` rows each (the last may hold fewer), so that a large dataset is
 * never held at once.
 * @param {Iterable<string>} rows
 * @param {number} batchRows
 */
export function* jsonlineBatches(rows, batchRows) {
  let lines = [];
  for (const row of rows) {
    lines.push(row);
    if (lines.length >= batchRows) {
      yield lines.join("\n") + "\n";
      lines = [];
    }
  }
  if (lines.length > 0) yield lines.join("\n") + "\n";
}

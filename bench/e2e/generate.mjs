// The end-to-end benchmark's dataset: Loki push bodies for N lines spread over several days, with
// high-cardinality stream labels (hundreds of pods) and structured metadata (a trace_id per line).
// Deterministic (seeded), generated lazily so that millions of lines never sit in memory.

import { prng } from "../../scripts/lib/prng.mjs";

export const CLUSTERS = ["us-east-1", "eu-west-1", "ap-south-1"];
export const NAMESPACES = ["prod", "staging"];
export const APPS = ["api", "checkout", "payments", "worker", "auth", "nginx"];
const PODS_PER_APP = 12; // 3 clusters × 2 namespaces × 6 apps × 12 pods = 432 streams
const LEVELS = ["info", "info", "info", "info", "debug", "warn", "error"];
const PATHS = ["/api/v1/users", "/api/v1/cart", "/api/v1/orders", "/healthz", "/login", "/api/v2/search"];
const METHODS = ["GET", "GET", "GET", "POST", "PUT", "DELETE"];
const MSGS = ["request served", "cache hit", "order created", "upstream timeout", "connection refused", "db deadlock"];

const hex = (rand, n) => {
  let s = "";
  for (let i = 0; i < n; i++) s += "0123456789abcdef"[Math.floor(rand() * 16)];
  return s;
};
const pick = (rand, xs) => xs[Math.floor(rand() * xs.length)];

/**
 * @param {{ lines: number, days: number, endMs: number, seed?: number, linesPerBody?: number }} o
 * @returns {{ bodies: () => Generator<string>, startNs: bigint, endNs: bigint, lines: number, streams: number }}
 */
export function benchDataset({ lines, days, endMs, seed = 11, linesPerBody = 5000 }) {
  const endNs = BigInt(endMs) * 1_000_000n;
  const spanNs = BigInt(days) * 86_400_000_000_000n;
  const startNs = endNs - spanNs;
  const streams = [];
  for (const cluster of CLUSTERS)
    for (const namespace of NAMESPACES)
      for (const app of APPS)
        for (let p = 0; p < PODS_PER_APP; p++) {
          const pod = `${app}-${((p * 2654435761) >>> 0).toString(16).slice(0, 6)}-${p}`;
          streams.push({ cluster, namespace, app, pod, container: app, job: `${namespace}/${app}`, service_name: app });
        }

  function line(rand, app, ts) {
    const level = pick(rand, LEVELS);
    const ms = Math.round(rand() * 120000) / 100;
    if (app === "nginx") {
      const code = rand() < 0.9 ? 200 : pick(rand, [404, 500, 502, 503]);
      const d = new Date(Number(ts / 1_000_000n)).toISOString();
      return `10.${Math.floor(rand() * 4)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)} - - [${d}] "${pick(rand, METHODS)} ${pick(rand, PATHS)} HTTP/1.1" ${code} ${Math.floor(rand() * 50000)} "-" "curl/8.5"`;
    }
    if (app === "worker" || app === "auth") {
      return `level=${level} msg="${pick(rand, MSGS)}" job=${pick(rand, ["email", "sync", "invoice"])} duration=${Math.round(ms)}ms attempt=${Math.floor(rand() * 6)} size=${Math.floor(rand() * 20)}KB`;
    }
    const status = level === "error" ? pick(rand, [500, 502, 503]) : pick(rand, [200, 200, 201, 404]);
    return JSON.stringify({
      level,
      msg: pick(rand, MSGS),
      method: pick(rand, METHODS),
      path: pick(rand, PATHS),
      status,
      latency_ms: ms,
      bytes: Math.floor(rand() * 200000),
      user_id: `u${Math.floor(rand() * 5000)}`,
    });
  }

  function* bodies() {
    const rand = prng(seed);
    const step = spanNs / BigInt(lines);
    let ts = startNs;
    for (let done = 0; done < lines;) {
      const n = Math.min(linesPerBody, lines - done);
      /** @type {Map<number, [string, string, Record<string, string>][]>} */
      const byStream = new Map();
      for (let i = 0; i < n; i++) {
        ts += step;
        const s = Math.floor(rand() * streams.length);
        const st = streams[s];
        const values = byStream.get(s) ?? [];
        byStream.set(s, values);
        values.push([
          String(ts + BigInt(Math.floor(rand() * 1000))),
          line(rand, st.app, ts),
          { trace_id: hex(rand, 16), span_id: hex(rand, 8) },
        ]);
      }
      done += n;
      yield JSON.stringify({ streams: [...byStream].map(([s, values]) => ({ stream: streams[s], values })) });
    }
  }
  return { bodies, startNs, endNs, lines, streams: streams.length };
}

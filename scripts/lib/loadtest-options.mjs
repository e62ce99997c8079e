// Command line of `npm run loadtest`, parsed and checked before any request is sent.

import { parseArgs } from "node:util";
import { WORKLOADS } from "../../bench/e2e/workloads.js";

const DURATION = /^\d+(ms|s|m|h)$/;
const RANGE = /^(\d+)(m|h|d)$/;
const RANGE_SECONDS = { m: 60, h: 3600, d: 86400 };

export const USAGE = `usage: npm run loadtest -- --url https://loki-vl-worker.example.workers.dev
    [--token TOKEN]          AUTH_TOKEN of the deployment (or set LOADTEST_TOKEN; keeps it out of ps)
    [--tenant ORG]           X-Scope-OrgID to send
    [--duration 30s]         per workload
    [--range 24h]            queries pick windows inside the last RANGE (m, h or d)
    [--workloads a,b]        of ${Object.keys(WORKLOADS).join(", ")} (default all)
    [--p95 workload=ms]      override a workload's p95 bound (repeatable)
    [--help]                 this text

k6 comes from $K6_BIN, k6 on PATH, or is downloaded (or built with Go) once into ~/.cache/loki-vl-worker.`;

/**
 * Whether the command line asks for the usage text (checked before parsing, so that `--help`
 * beside other arguments, valid or not, still answers with it).
 * @param {string[]} argv
 */
export function wantsHelp(argv) {
  return argv.some((a) => a === "--help" || a === "-h");
}

/**
 * @typedef {{ url: string, token?: string, tenant?: string, duration: string, rangeSeconds: number,
 *   workloads: string[], p95Ms: Record<string, number> }} LoadtestOptions
 * @param {string[]} argv arguments after `--`
 * @param {Record<string, string | undefined>} env
 * @returns {LoadtestOptions}
 */
export function parseLoadtestOptions(argv, env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: "string" },
      token: { type: "string" },
      tenant: { type: "string" },
      duration: { type: "string", default: "30s" },
      range: { type: "string", default: "24h" },
      workloads: { type: "string" },
      p95: { type: "string", multiple: true },
    },
    strict: true,
    allowPositionals: false,
  });
  if (!values.url) throw new Error("--url is required");
  let url;
  try {
    url = new URL(values.url);
  } catch {
    throw new Error(`--url is not a URL: ${values.url}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("--url must be http(s)");
  if (url.username || url.password) throw new Error("--url must not carry credentials: use --token");
  if (!DURATION.test(values.duration)) throw new Error(`--duration must look like 30s, 2m: ${values.duration}`);
  const range = RANGE.exec(values.range);
  if (!range) throw new Error(`--range must look like 30m, 24h, 7d: ${values.range}`);
  const workloads = values.workloads ? values.workloads.split(",").map((w) => w.trim()) : Object.keys(WORKLOADS);
  for (const w of workloads) if (!(w in WORKLOADS)) throw new Error(`unknown workload ${w}`);
  /** @type {Record<string, number>} */
  const p95Ms = {};
  for (const w of workloads) p95Ms[w] = /** @type {{ p95Ms: number }} */ (WORKLOADS[w]).p95Ms;
  for (const spec of values.p95 ?? []) {
    const m = /^(\w+)=(\d+)$/.exec(spec);
    if (!m?.[1] || !m[2] || !(m[1] in WORKLOADS)) throw new Error(`--p95 must be workload=ms: ${spec}`);
    p95Ms[m[1]] = Number(m[2]);
  }
  const token = values.token ?? env.LOADTEST_TOKEN;
  return {
    url: url.href.replace(/\/+$/, ""),
    ...(token ? { token } : {}),
    ...(values.tenant ? { tenant: values.tenant } : {}),
    duration: values.duration,
    rangeSeconds: Number(range[1]) * RANGE_SECONDS[/** @type {"m" | "h" | "d"} */ (range[2])],
    workloads,
    p95Ms,
  };
}

// One workload against one target for a fixed duration. Environment: BASE (http://127.0.0.1:port),
// TARGET ("worker": Loki API; "vl": VictoriaLogs direct; "proxy": the LogsQL requests through a
// bare forwarding Worker, the local runtime's own cost), WORKLOAD (a key of WORKLOADS),
// DATA_START / DATA_END (Unix seconds), DURATION (e.g. "10s"), VUS (overrides the workload's).
// For a deployment (`npm run loadtest`): AUTH_TOKEN (sent as a Bearer token), TENANT (X-Scope-OrgID),
// THRESHOLDS=1 (the run fails on any failed request or a p95 above P95_MS, default the workload's).
import http from "k6/http";
import { check } from "k6";
import { WORKLOADS, randomWindow } from "../workloads.js";

const workload = WORKLOADS[__ENV.WORKLOAD];
if (!workload) throw new Error(`unknown WORKLOAD ${__ENV.WORKLOAD}`);
// The proxy forwards VictoriaLogs requests, so it gets the LogsQL side of each template.
const target = __ENV.TARGET === "vl" || __ENV.TARGET === "proxy" ? "vl" : "worker";
const dataStart = Number(__ENV.DATA_START);
const dataEnd = Number(__ENV.DATA_END);

export const options = {
  scenarios: {
    load: {
      executor: "constant-vus",
      vus: Number(__ENV.VUS || workload.vus),
      duration: __ENV.DURATION || "10s",
      gracefulStop: "30s",
    },
  },
  discardResponseBodies: true,
  summaryTrendStats: ["avg", "min", "med", "max", "p(95)", "p(99)"],
  noConnectionReuse: false,
};
if (__ENV.THRESHOLDS === "1") {
  options.thresholds = {
    http_req_failed: ["rate==0"],
    checks: ["rate==1"],
    http_req_duration: [`p(95)<${Number(__ENV.P95_MS || workload.p95Ms)}`],
  };
}

const headers = {};
if (__ENV.AUTH_TOKEN) headers.Authorization = `Bearer ${__ENV.AUTH_TOKEN}`;
if (__ENV.TENANT) headers["X-Scope-OrgID"] = __ENV.TENANT;
if (workload.noCache && target === "worker") headers["Cache-Control"] = "no-cache";

function query(params) {
  const parts = [];
  for (const [k, v] of Object.entries(params)) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.join("&");
}

export default function () {
  const t = workload.templates[(__ITER + __VU) % workload.templates.length];
  const req = t(randomWindow(workload, dataStart, dataEnd));
  const [path, params] = target === "vl" ? req.vl : req.loki;
  const res = http.get(`${__ENV.BASE}${path}?${query(params)}`, { headers, tags: { name: req.name }, timeout: "120s" });
  check(res, { "status 200": (r) => r.status === 200 });
}

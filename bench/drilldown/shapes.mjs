// The six calls of a Logs Drilldown session on one namespace, as Drilldown sends them (its query
// builders: the labels tab's `sum(count_over_time({…, label != ""} [$__auto])) by (label)`, the
// fields tab's `sum by (field) (count_over_time({…} | field!="" [$__auto]))` for structured
// metadata and with its parsers for a parsed field, `detected_fields`, `detected_labels`), each
// tagged `X-Query-Tags: Source=grafana-lokiexplore-app`; and for each the LogsQL that computes the
// comparable answer in VictoriaLogs directly. Ranges end at the data's end.

import { NAMESPACE } from "./generate.mjs";

/**
 * Grafana's interval ladder (its `roundInterval`), upper bound in ms → interval in s, for the
 * intervals a range of 30 min to 24 h divided into ~1,000 points can round to.
 */
const LADDER = [
  [1500, 1],
  [3500, 2],
  [7500, 5],
  [12_500, 10],
  [17_500, 15],
  [25_000, 20],
  [45_000, 30],
  [90_000, 60],
  [210_000, 120],
  [450_000, 300],
];

/** The step Grafana picks for a range: range ÷ 1,000 points, rounded to its ladder. */
export function grafanaStep(seconds) {
  const ms = seconds; // seconds × 1000 ms ÷ 1,000 points
  for (const [bound, step] of LADDER) if (ms < bound) return step;
  return 600;
}

export const RANGES = [
  ["30 m", 1800],
  ["1 h", 3600],
  ["2 h", 7200],
  ["3 h", 10_800],
  ["6 h", 21_600],
  ["24 h", 86_400],
].map(([name, seconds]) => ({ name: String(name), seconds: Number(seconds), step: grafanaStep(Number(seconds)) }));

export const DRILLDOWN_HEADERS = { "X-Query-Tags": "Source=grafana-lokiexplore-app" };
const SELECTOR = `{namespace="${NAMESPACE}"}`;

/**
 * @typedef {{ path: string, params: Record<string, string>, headers?: Record<string, string> }} Req
 * @typedef {{ start: number, end: number, step: number }} Window seconds
 * @typedef {object} Shape
 * @property {string} id
 * @property {string} name as the report shows it
 * @property {string} kind `metric` (a series answer) or `metadata`
 * @property {(w: Window) => Req} loki
 * @property {(w: Window) => Req} vl
 */

const ns = (s) => `${BigInt(s) * 1_000_000_000n}`;
const iso = (s) => new Date(s * 1000).toISOString();

/** A Drilldown breakdown panel's range query, as Grafana's Loki data source sends it. */
const lokiRange = (query, w) => ({
  path: "/loki/api/v1/query_range",
  params: { query, direction: "backward", start: ns(w.start), end: ns(w.end), step: `${w.step * 1000}ms` },
  headers: { ...DRILLDOWN_HEADERS, "X-Loki-Response-Encoding-Flags": "categorize-labels" },
});
/** A Drilldown resource call: ISO-8601 bounds. */
const lokiResource = (path, w) => ({
  path,
  params: { query: SELECTOR, start: iso(w.start), end: iso(w.end) },
  headers: DRILLDOWN_HEADERS,
});
/** VictoriaLogs' stats over time buckets of the same step. */
const vlStats = (query, w) => ({
  path: "/select/logsql/stats_query_range",
  params: { query, start: String(w.start), end: String(w.end), step: `${w.step}s` },
});
const vlResource = (path, w) => ({
  path,
  params: { query: SELECTOR, start: String(w.start), end: String(w.end) },
});

/** `[$__auto]` as Grafana resolves it: the step. */
const auto = (w) => `${w.step}s`;

/** @type {Shape[]} */
export const SHAPES = [
  {
    id: "pod",
    name: `labels tab, \`pod\`: \`sum(count_over_time({namespace="${NAMESPACE}", pod != ""} [$__auto])) by (pod)\``,
    kind: "metric",
    loki: (w) => lokiRange(`sum(count_over_time({namespace="${NAMESPACE}" ,pod != ""} [${auto(w)}])) by (pod)`, w),
    vl: (w) => vlStats(`${SELECTOR} | stats by (pod) count() c`, w),
  },
  {
    id: "trace_id",
    name: `fields tab, \`trace_id\` (structured metadata): \`sum by (trace_id) (count_over_time(${SELECTOR} | trace_id!="" [$__auto]))\``,
    kind: "metric",
    loki: (w) => lokiRange(`sum by (trace_id) (count_over_time(${SELECTOR} | trace_id!="" [${auto(w)}]))`, w),
    vl: (w) => vlStats(`${SELECTOR} trace_id:* | stats by (trace_id) count() c`, w),
  },
  {
    id: "k8s_pod_name",
    name: `fields tab, \`k8s_pod_name\` (structured metadata): \`sum by (k8s_pod_name) (count_over_time(${SELECTOR} | k8s_pod_name!="" [$__auto]))\``,
    kind: "metric",
    loki: (w) => lokiRange(`sum by (k8s_pod_name) (count_over_time(${SELECTOR} | k8s_pod_name!="" [${auto(w)}]))`, w),
    vl: (w) => vlStats(`${SELECTOR} k8s_pod_name:* | stats by (k8s_pod_name) count() c`, w),
  },
  {
    id: "service_version",
    name: `fields tab, \`service_version\` (JSON and logfmt bodies): \`sum by (service_version) (count_over_time(${SELECTOR} | json service_version="[\\"service_version\\"]" | logfmt | drop __error__, __error_details__ | service_version!="" [$__auto]))\``,
    kind: "metric",
    loki: (w) =>
      lokiRange(
        `sum by (service_version) (count_over_time(${SELECTOR} | json service_version="[\\"service_version\\"]" | logfmt | drop __error__, __error_details__ | service_version!="" [${auto(w)}]))`,
        w,
      ),
    vl: (w) =>
      vlStats(
        `${SELECTOR} | unpack_json fields (service_version) | unpack_logfmt if (service_version:"") fields (service_version) | filter service_version:* | stats by (service_version) count() c`,
        w,
      ),
  },
  {
    id: "detected_fields",
    name: `fields tab's list: \`detected_fields?query=${SELECTOR}\``,
    kind: "metadata",
    loki: (w) => lokiResource("/loki/api/v1/detected_fields", w),
    vl: (w) => vlResource("/select/logsql/field_names", w),
  },
  {
    id: "detected_labels",
    name: `labels tab's list: \`detected_labels?query=${SELECTOR}\``,
    kind: "metadata",
    loki: (w) => lokiResource("/loki/api/v1/detected_labels", w),
    vl: (w) => vlResource("/select/logsql/stream_field_names", w),
  },
];

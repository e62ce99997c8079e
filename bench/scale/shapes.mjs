// The requests Grafana Explore and Logs Drilldown send by default, and the ones already computed by
// VictoriaLogs, each with the VictoriaLogs-direct LogsQL that reads the same rows and computes the
// comparable aggregation. Ranges end at the data's end; each range has the step Grafana picks for
// it (range ÷ ~1,000 data points, rounded to Grafana's interval ladder).

export const RANGES = [
  { name: "1 h", seconds: 3600, step: 5 },
  { name: "24 h", seconds: 86_400, step: 60 },
  { name: "7 d", seconds: 7 * 86_400, step: 600 },
];

/** `[$__auto]` as Grafana resolves it: the step. */
const auto = (step) => `${step}s`;

/**
 * @typedef {{ path: string, params: Record<string, string>, headers?: Record<string, string> }} Req
 * @typedef {{ start: number, end: number, step: number }} Window seconds
 * @typedef {object} Shape
 * @property {string} id
 * @property {string} name as the report shows it
 * @property {boolean} pushed already computed by VictoriaLogs on main
 * @property {boolean} [rowsReported] false where the route's telemetry counts no scanned rows
 * @property {string} selector the stream selector (LogsQL): the rows the shape reads, for the projection
 * @property {(w: Window) => Req} loki
 * @property {(w: Window) => Req} vl
 */

/** A Loki range query (metric or log). */
const lokiRange = (query, w, extra = {}) => ({
  path: "/loki/api/v1/query_range",
  params: { query, start: String(w.start), end: String(w.end), step: String(w.step), ...extra },
});
/** VictoriaLogs' stats over time buckets of the same step. */
const vlStats = (query, w) => ({
  path: "/select/logsql/stats_query_range",
  params: { query, start: String(w.start), end: String(w.end), step: `${w.step}s` },
});
const vlQuery = (query, w) => ({
  path: "/select/logsql/query",
  params: { query, start: String(w.start), end: String(w.end) },
});

/** @type {Shape[]} */
export const SHAPES = [
  {
    id: "explore-volume",
    name: 'Explore volume `sum by (level, detected_level) (count_over_time({app="checkout"} | drop __error__ [$__auto]))`',
    pushed: false,
    selector: '{app="checkout"}',
    loki: (w) =>
      lokiRange(
        `sum by (level, detected_level) (count_over_time({app="checkout"} | drop __error__ [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) => vlStats('{app="checkout"} | unpack_json fields (level) | stats by (level) count() c', w),
  },
  {
    id: "drilldown-levels",
    name: 'Drilldown levels `sum by (detected_level) (count_over_time({service_name="worker"} | drop __error__ [$__auto]))`',
    pushed: false,
    selector: '{service_name="worker"}',
    loki: (w) =>
      lokiRange(
        `sum by (detected_level) (count_over_time({service_name="worker"} | drop __error__ [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) => vlStats('{service_name="worker"} | unpack_logfmt fields (level) | stats by (level) count() c', w),
  },
  {
    id: "drilldown-json-field",
    name: 'Drilldown JSON field `sum by (method) (count_over_time({service_name="checkout"} | json | drop __error__, __error_details__ [$__auto]))`',
    pushed: false,
    selector: '{service_name="checkout"}',
    loki: (w) =>
      lokiRange(
        `sum by (method) (count_over_time({service_name="checkout"} | json | drop __error__, __error_details__ [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) => vlStats('{service_name="checkout"} | unpack_json fields (method) | stats by (method) count() c', w),
  },
  {
    id: "explore-volume-parsed",
    name: 'Explore volume of a filtered query `sum by (level, detected_level) (count_over_time({app="checkout"} | json | status >= 500 | drop __error__ [$__auto]))`',
    pushed: false,
    selector: '{app="checkout"}',
    loki: (w) =>
      lokiRange(
        `sum by (level, detected_level) (count_over_time({app="checkout"} | json | status >= 500 | drop __error__ [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) =>
      vlStats(
        '{app="checkout"} | unpack_json fields (level, status) | filter status:>=500 | stats by (level) count() c',
        w,
      ),
  },
  {
    id: "drilldown-levels-field",
    name: 'Drilldown levels under a field filter `sum by (detected_level) (count_over_time({service_name="checkout"} | json | drop __error__, __error_details__ | method="GET" [$__auto]))`',
    pushed: false,
    selector: '{service_name="checkout"}',
    loki: (w) =>
      lokiRange(
        `sum by (detected_level) (count_over_time({service_name="checkout"} | json | drop __error__, __error_details__ | method="GET" [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) =>
      vlStats(
        '{service_name="checkout"} | unpack_json fields (level, method) | filter method:=GET | stats by (level) count() c',
        w,
      ),
  },
  {
    id: "json-field-errors",
    name: 'Query builder json stage `sum by (method) (count_over_time({app="checkout"} | json [$__auto]))` (a malformed line would be a pipeline error)',
    pushed: false,
    selector: '{app="checkout"}',
    loki: (w) => lokiRange(`sum by (method) (count_over_time({app="checkout"} | json [${auto(w.step)}]))`, w),
    vl: (w) => vlStats('{app="checkout"} | unpack_json fields (method) | stats by (method) count() c', w),
  },
  {
    id: "drilldown-nested-field",
    name: 'Drilldown nested JSON field `sum by (http_proto) (count_over_time({service_name="checkout"} | json http_proto="[\\"http\\"][\\"proto\\"]" | drop __error__, __error_details__ | http_proto!="" [$__auto]))`',
    pushed: false,
    selector: '{service_name="checkout"}',
    loki: (w) =>
      lokiRange(
        `sum by (http_proto) (count_over_time({service_name="checkout"} | json http_proto="[\\"http\\"][\\"proto\\"]" | drop __error__, __error_details__ | http_proto!="" [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) =>
      vlStats(
        '{service_name="checkout"} | unpack_json fields (http.proto) | filter http.proto:* | stats by (http.proto) count() c',
        w,
      ),
  },
  {
    id: "drilldown-nested-json",
    name: 'Drilldown JSON field nested `sum by (http_host) (count_over_time({service_name="checkout"} | json | drop __error__, __error_details__ [$__auto]))`',
    pushed: false,
    selector: '{service_name="checkout"}',
    loki: (w) =>
      lokiRange(
        `sum by (http_host) (count_over_time({service_name="checkout"} | json | drop __error__, __error_details__ [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) =>
      vlStats('{service_name="checkout"} | unpack_json fields (http.host) | stats by (http.host) count() c', w),
  },
  {
    id: "drilldown-logfmt-field",
    name: 'Drilldown logfmt field `sum by (job) (count_over_time({service_name="worker"} | logfmt | drop __error__, __error_details__ [$__auto]))`',
    pushed: false,
    selector: '{service_name="worker"}',
    loki: (w) =>
      lokiRange(
        `sum by (job) (count_over_time({service_name="worker"} | logfmt | drop __error__, __error_details__ [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) => vlStats('{service_name="worker"} | unpack_logfmt fields (job) | stats by (job) count() c', w),
  },
  {
    id: "logfmt-numeric",
    name: '`sum by (job) (count_over_time({app="worker"} | logfmt | attempt > 3 [5m]))`',
    pushed: false,
    selector: '{app="worker"}',
    loki: (w) => lokiRange('sum by (job) (count_over_time({app="worker"} | logfmt | attempt > 3 [5m]))', w),
    vl: (w) =>
      vlStats('{app="worker"} | unpack_logfmt fields (job, attempt) | filter attempt:>3 | stats by (job) count() c', w),
  },
  {
    id: "nginx-pattern",
    name: 'nginx status panel `sum by (status) (count_over_time({app="nginx"} | pattern "<_> - - [<_>] \\"<_> <_> <_>\\" <status> <_>" [$__auto]))`',
    pushed: false,
    selector: '{app="nginx"}',
    loki: (w) =>
      lokiRange(
        `sum by (status) (count_over_time({app="nginx"} | pattern "<_> - - [<_>] \\"<_> <_> <_>\\" <status> <_>" [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) =>
      vlStats(
        '{app="nginx"} | extract "<_> - - [<_>] \\"<_> <_> <_>\\" <status> <_>" | stats by (status) count() c',
        w,
      ),
  },
  {
    id: "json-status-logs",
    name: '`{app="checkout"} | json | status >= 500` (limit 1000)',
    pushed: false,
    selector: '{app="checkout"}',
    loki: (w) => lokiRange('{app="checkout"} | json | status >= 500', w, { limit: "1000", direction: "backward" }),
    vl: (w) =>
      vlQuery(
        '{app="checkout"} | unpack_json fields (status) | filter status:>=500 | sort by (_time desc) | limit 1000',
        w,
      ),
  },
  {
    id: "logs-5000",
    name: '`{app="checkout"}` (limit 5000), the log answer Grafana asks for at its largest line limit',
    pushed: true,
    selector: '{app="checkout"}',
    loki: (w) => lokiRange('{app="checkout"}', w, { limit: "5000", direction: "backward" }),
    vl: (w) => vlQuery('{app="checkout"} | sort by (_time desc) | limit 5000', w),
  },
  {
    id: "patterns",
    name: 'patterns `{app="worker"}`',
    pushed: false,
    rowsReported: false,
    selector: '{app="worker"}',
    loki: (w) => ({
      path: "/loki/api/v1/patterns",
      params: { query: '{app="worker"}', start: String(w.start), end: String(w.end), step: String(w.step) },
    }),
    // Lines grouped by their template (numbers collapsed), the most frequent first.
    vl: (w) => vlQuery('{app="worker"} | collapse_nums | stats by (_msg) count() c | sort by (c desc) | limit 1000', w),
  },
  {
    id: "rate-line-filter",
    name: 'pushed: `sum by (cluster) (rate({app="nginx"} |= "\\" 50" [5m]))`',
    pushed: true,
    selector: '{app="nginx"}',
    loki: (w) => lokiRange('sum by (cluster) (rate({app="nginx"} |= "\\" 50" [5m]))', w),
    vl: (w) => vlStats('{app="nginx"} _msg:~"\\" 50" | stats by (cluster) count() c', w),
  },
  {
    id: "topk",
    name: 'pushed: `topk(5, sum by (pod) (bytes_over_time({namespace="staging"}[5m])))`',
    pushed: true,
    selector: '{namespace="staging"}',
    loki: (w) => lokiRange('topk(5, sum by (pod) (bytes_over_time({namespace="staging"}[5m])))', w),
    vl: (w) => vlStats('{namespace="staging"} | stats by (pod) sum_len(_msg) b', w),
  },
  {
    id: "unwrap-quantile-by-field",
    name: 'Latency by a JSON field `quantile_over_time(0.99, {app="checkout"} | json | unwrap latency_ms [5m]) by (method)`',
    pushed: false,
    selector: '{app="checkout"}',
    loki: (w) => lokiRange('quantile_over_time(0.99, {app="checkout"} | json | unwrap latency_ms [5m]) by (method)', w),
    vl: (w) =>
      vlStats(
        '{app="checkout"} | unpack_json fields (latency_ms, method) | stats by (method) quantile(0.99, latency_ms) q',
        w,
      ),
  },
  {
    id: "unwrap-logfmt",
    name: 'logfmt unwrap `sum by (job) (sum_over_time({app="worker"} | logfmt | unwrap attempt [5m]))`',
    pushed: false,
    selector: '{app="worker"}',
    loki: (w) => lokiRange('sum by (job) (sum_over_time({app="worker"} | logfmt | unwrap attempt [5m]))', w),
    vl: (w) => vlStats('{app="worker"} | unpack_logfmt fields (attempt, job) | stats by (job) sum(attempt) s', w),
  },
  {
    id: "unwrap-quantile",
    name: 'pushed: `quantile_over_time(0.99, {app="checkout"} | json | unwrap latency_ms [5m]) by (cluster)`',
    pushed: true,
    selector: '{app="checkout"}',
    loki: (w) =>
      lokiRange('quantile_over_time(0.99, {app="checkout"} | json | unwrap latency_ms [5m]) by (cluster)', w),
    vl: (w) =>
      vlStats(
        '{app="checkout"} | unpack_json fields (latency_ms) | stats by (cluster) quantile(0.99, latency_ms) q',
        w,
      ),
  },
  {
    id: "unwrap-sum",
    name: 'pushed: `sum by (cluster) (sum_over_time({app="checkout"} | json | unwrap latency_ms [5m]))`',
    pushed: true,
    selector: '{app="checkout"}',
    loki: (w) => lokiRange('sum by (cluster) (sum_over_time({app="checkout"} | json | unwrap latency_ms [5m]))', w),
    vl: (w) => vlStats('{app="checkout"} | unpack_json fields (latency_ms) | stats by (cluster) sum(latency_ms) s', w),
  },
  {
    id: "index-volume",
    name: 'pushed: index volume `{namespace="prod"}`',
    pushed: true,
    selector: '{namespace="prod"}',
    loki: (w) => ({
      path: "/loki/api/v1/index/volume",
      params: { query: '{namespace="prod"}', start: String(w.start), end: String(w.end) },
    }),
    vl: (w) => vlQuery('{namespace="prod"} | stats by (namespace) count() n, sum_len(_msg) b', w),
  },
  {
    id: "drilldown-level-logs",
    name: 'Drilldown logs under a level filter `{service_name="auth"} | detected_level="error"` (limit 1000)',
    pushed: false,
    selector: '{service_name="auth"}',
    loki: (w) =>
      lokiRange('{service_name="auth"} | detected_level="error"', w, { limit: "1000", direction: "backward" }),
    vl: (w) =>
      vlQuery(
        '{service_name="auth"} | unpack_logfmt fields (level) | filter level:=error | sort by (_time desc) | limit 1000',
        w,
      ),
  },
  {
    id: "drilldown-pattern-levels",
    name: 'Drilldown levels under an included pattern `sum by (detected_level) (count_over_time({service_name="worker"} |> "<_> msg=\\"order created\\" <_>" [$__auto]))`',
    pushed: false,
    selector: '{service_name="worker"}',
    loki: (w) =>
      lokiRange(
        `sum by (detected_level) (count_over_time({service_name="worker"} |> "<_> msg=\\"order created\\" <_>" [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) =>
      vlStats(
        '{service_name="worker"} _msg:~"msg=\\"order created\\"" | unpack_logfmt fields (level) | stats by (level) count() c',
        w,
      ),
  },
  {
    id: "unwrap-bytes-logfmt",
    name: 'Sizes with units over logfmt `sum by (job) (sum_over_time({app="worker"} | logfmt | unwrap bytes(size) [5m]))`',
    pushed: false,
    selector: '{app="worker"}',
    loki: (w) => lokiRange('sum by (job) (sum_over_time({app="worker"} | logfmt | unwrap bytes(size) [5m]))', w),
    // VictoriaLogs reads no unit: the number and unit apart, summed per unit.
    vl: (w) =>
      vlStats(
        '{app="worker"} | unpack_logfmt fields (size, job) | extract_regexp "^(?P<n>[0-9]+)(?P<u>.*)$" from size | stats by (job, u) sum(n) s',
        w,
      ),
  },
  {
    id: "json-fractional",
    name: '`sum by (status) (count_over_time({app="checkout"} | json | latency_ms > 100.5 [5m]))`',
    pushed: false,
    selector: '{app="checkout"}',
    loki: (w) => lokiRange('sum by (status) (count_over_time({app="checkout"} | json | latency_ms > 100.5 [5m]))', w),
    vl: (w) =>
      vlStats(
        '{app="checkout"} | unpack_json fields (status, latency_ms) | filter latency_ms:>100.5 | stats by (status) count() c',
        w,
      ),
  },
  {
    id: "series-alert",
    name: 'Alert, one series per Loki series `count_over_time({app="auth"} |= "ERROR" [5m])`',
    pushed: false,
    selector: '{app="auth"}',
    loki: (w) => lokiRange('count_over_time({app="auth"} |= "ERROR" [5m])', w),
    vl: (w) => vlStats('{app="auth"} _msg:~"ERROR" | stats by (_stream, tenant) count() c', w),
  },
  {
    id: "unwrap-filtered",
    name: 'pushed: label filter before unwrap `sum by (method) (sum_over_time({app="checkout"} | json | status >= 500 | unwrap latency_ms [5m]))`',
    pushed: true,
    selector: '{app="checkout"}',
    loki: (w) =>
      lokiRange('sum by (method) (sum_over_time({app="checkout"} | json | status >= 500 | unwrap latency_ms [5m]))', w),
    vl: (w) =>
      vlStats(
        '{app="checkout"} | unpack_json fields (latency_ms, method, status) | filter status:>=500 | stats by (method) sum(latency_ms) s',
        w,
      ),
  },
  {
    id: "explore-volume-pattern",
    name: 'Explore volume of a pattern query `sum by (level, detected_level) (count_over_time({app="nginx"} | pattern "…" | status >= 500 | drop __error__ [$__auto]))`',
    pushed: false,
    selector: '{app="nginx"}',
    loki: (w) =>
      lokiRange(
        `sum by (level, detected_level) (count_over_time({app="nginx"} | pattern "<_> - - [<_>] \\"<_> <_> <_>\\" <status> <_>" | status >= 500 | drop __error__ [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) =>
      vlStats(
        '{app="nginx"} | extract "<_> - - [<_>] \\"<_> <_> <_>\\" <status> <_>" | filter status:>=500 | stats by (level) count() c',
        w,
      ),
  },
  {
    id: "drilldown-chain-logs",
    name: 'Drilldown logs under a field filter `{service_name="checkout"} | json | logfmt | drop __error__, __error_details__ | status >= 500` (limit 1000)',
    pushed: false,
    selector: '{service_name="checkout"}',
    loki: (w) =>
      lokiRange('{service_name="checkout"} | json | logfmt | drop __error__, __error_details__ | status >= 500', w, {
        limit: "1000",
        direction: "backward",
      }),
    vl: (w) =>
      vlQuery(
        '{service_name="checkout"} | unpack_json fields (status) | filter status:>=500 | sort by (_time desc) | limit 1000',
        w,
      ),
  },
  {
    id: "drilldown-chain-numeric",
    name: 'Drilldown field panel under a numeric filter `sum by (method) (count_over_time({service_name="checkout"} | json | logfmt | drop __error__, __error_details__ | status >= 500 [$__auto]))`',
    pushed: false,
    selector: '{service_name="checkout"}',
    loki: (w) =>
      lokiRange(
        `sum by (method) (count_over_time({service_name="checkout"} | json | logfmt | drop __error__, __error_details__ | status >= 500 [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) =>
      vlStats(
        '{service_name="checkout"} | unpack_json fields (method, status) | filter status:>=500 | stats by (method) count() c',
        w,
      ),
  },
  {
    id: "unwrap-stddev-by-field",
    name: 'Latency spread by a JSON field `stddev_over_time({app="checkout"} | json | unwrap latency_ms [5m]) by (path)`',
    pushed: false,
    selector: '{app="checkout"}',
    loki: (w) => lokiRange('stddev_over_time({app="checkout"} | json | unwrap latency_ms [5m]) by (path)', w),
    // VictoriaLogs has no standard deviation: each bucket's values, which the Worker's answer needs.
    vl: (w) =>
      vlStats('{app="checkout"} | unpack_json fields (latency_ms, path) | stats by (path) values(latency_ms) v', w),
  },
  {
    id: "nginx-status-logs",
    name: '`{app="nginx"} | pattern "<ip> - - [<_>] \\"<method> <path> <_>\\" <status> <_>" | status >= 500` (limit 1000)',
    pushed: false,
    selector: '{app="nginx"}',
    loki: (w) =>
      lokiRange('{app="nginx"} | pattern "<ip> - - [<_>] \\"<method> <path> <_>\\" <status> <_>" | status >= 500', w, {
        limit: "1000",
        direction: "backward",
      }),
    vl: (w) =>
      vlQuery(
        '{app="nginx"} | extract "<ip> - - [<_>] \\"<method> <path> <_>\\" <status> <_>" | filter status:>=500 | sort by (_time desc) | limit 1000',
        w,
      ),
  },
  {
    id: "nginx-bytes-pattern",
    name: 'nginx bytes panel `sum by (method) (sum_over_time({app="nginx"} | pattern "…<method>…<size>…" | unwrap size [$__auto]))`',
    pushed: true,
    selector: '{app="nginx"}',
    loki: (w) =>
      lokiRange(
        `sum by (method) (sum_over_time({app="nginx"} | pattern "<_> - - [<_>] \\"<method> <_> <_>\\" <_> <size> <_>" | unwrap size [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) =>
      vlStats(
        '{app="nginx"} | extract "<_> - - [<_>] \\"<method> <_> <_>\\" <_> <size> <_>" | stats by (method) sum(size) s',
        w,
      ),
  },
  {
    id: "logfmt-params",
    name: 'logfmt parameters `sum by (level) (count_over_time({app="worker"} | logfmt level="level" [5m]))`',
    pushed: true,
    selector: '{app="worker"}',
    loki: (w) => lokiRange('sum by (level) (count_over_time({app="worker"} | logfmt level="level" [5m]))', w),
    vl: (w) => vlStats('{app="worker"} | unpack_logfmt fields (level) | stats by (level) count() c', w),
  },
  {
    id: "explore-volume-line-format",
    name: 'Explore volume of a reshaped query `sum by (level, detected_level) (count_over_time({app="checkout"} | json | line_format "{{.method}}" |= "GET" [$__auto]))`',
    pushed: false,
    selector: '{app="checkout"}',
    loki: (w) =>
      lokiRange(
        `sum by (level, detected_level) (count_over_time({app="checkout"} | json | line_format "{{.method}}" |= "GET" [${auto(w.step)}]))`,
        w,
      ),
    vl: (w) =>
      vlStats(
        '{app="checkout"} | unpack_json fields (level, method) | filter method:~"GET" | stats by (level) count() c',
        w,
      ),
  },
  {
    id: "unwrap-avg-by-field",
    name: 'Average latency by a JSON field `avg_over_time({app="checkout"} | json | unwrap latency_ms [5m]) by (method)` (guard rows, where found, merged in)',
    pushed: true,
    selector: '{app="checkout"}',
    loki: (w) => lokiRange('avg_over_time({app="checkout"} | json | unwrap latency_ms [5m]) by (method)', w),
    vl: (w) =>
      vlStats('{app="checkout"} | unpack_json fields (latency_ms, method) | stats by (method) avg(latency_ms) a', w),
  },
  // A data source reading several tenants at once (the second holds no rows here): each tenant's part
  // is its own query, so VictoriaLogs direct is the single tenant's LogsQL.
  {
    id: "explore-volume-tenants",
    name: 'Explore volume across tenants (`X-Scope-OrgID: 0|1`) `sum by (level, detected_level) (count_over_time({app="checkout"} | drop __error__ [$__auto]))`',
    pushed: false,
    selector: '{app="checkout"}',
    loki: (w) => ({
      ...lokiRange(
        `sum by (level, detected_level) (count_over_time({app="checkout"} | drop __error__ [${auto(w.step)}]))`,
        w,
      ),
      headers: { "X-Scope-OrgID": "0|1" },
    }),
    vl: (w) => vlStats('{app="checkout"} | unpack_json fields (level) | stats by (level) count() c', w),
  },
  {
    id: "drilldown-field-tenants",
    name: 'Drilldown JSON field across tenants (`X-Scope-OrgID: 0|1`) `sum by (method) (count_over_time({service_name="checkout"} | json | drop __error__, __error_details__ [$__auto]))`',
    pushed: false,
    selector: '{service_name="checkout"}',
    loki: (w) => ({
      ...lokiRange(
        `sum by (method) (count_over_time({service_name="checkout"} | json | drop __error__, __error_details__ [${auto(w.step)}]))`,
        w,
      ),
      headers: { "X-Scope-OrgID": "0|1" },
    }),
    vl: (w) => vlStats('{service_name="checkout"} | unpack_json fields (method) | stats by (method) count() c', w),
  },
];

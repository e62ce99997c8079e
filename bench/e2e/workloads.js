// Workloads of the end-to-end benchmark: each request as LogQL for the Worker and as the
// equivalent LogsQL for VictoriaLogs direct, so both sides do the same work in the same run.
// Plain ES module: imported by the k6 script (k6's JS runtime) and by run.mjs (Node).

/** @param {string} q */
const S = (q) => q; // marks LogsQL, for readability below

/** The apps whose streams the cold workload reads, one at a time. */
export const COLD_APPS = ["api", "checkout", "payments", "worker", "auth", "nginx"];

/**
 * Each template: (window) => { name, loki: [path, params], vl: [path, params] }. p95Ms is the load
 * test's bound on a deployment's 95th percentile (`npm run loadtest`): the local benchmark's p95 is
 * 10 to 250 ms, and a deployment adds Internet round trips to the origin (tens to a few hundred ms
 * each, several per request for split or fanned-out queries).
 */
/**
 * @typedef {{ name: string, loki: [string, Record<string, string | number>], vl: [string, Record<string, string | number>] }} Request
 * @typedef {{ describe: string, window: [number, number], vus: number, p95Ms: number, noCache?: boolean, templates: ((w: { start: number, end: number }) => Request)[] }} Workload
 * @type {Record<string, Workload>}
 */
export const WORKLOADS = {
  small: {
    describe: "labels, label values, series, short (5 min) log queries",
    window: [300, 3600],
    vus: 4,
    p95Ms: 1000,
    templates: [
      (w) => ({
        name: "labels",
        loki: ["/loki/api/v1/labels", { start: w.start, end: w.end }],
        vl: ["/select/logsql/stream_field_names", { query: "*", start: w.start, end: w.end }],
      }),
      (w) => ({
        name: "label values (pod)",
        loki: ["/loki/api/v1/label/pod/values", { start: w.start, end: w.end }],
        vl: ["/select/logsql/stream_field_values", { query: "*", field: "pod", start: w.start, end: w.end }],
      }),
      (w) => ({
        name: "series",
        loki: ["/loki/api/v1/series", { "match[]": '{app="checkout", namespace="prod"}', start: w.start, end: w.end }],
        vl: ["/select/logsql/streams", { query: '{app="checkout",namespace="prod"}', start: w.start, end: w.end }],
      }),
      (w) => ({
        name: "short log query",
        loki: [
          "/loki/api/v1/query_range",
          { query: '{app="api", cluster="eu-west-1"}', start: w.start, end: w.start + 300, limit: 100 },
        ],
        vl: [
          "/select/logsql/query",
          {
            query: S('{app="api",cluster="eu-west-1"} | sort by (_time desc) | limit 100'),
            start: w.start,
            end: w.start + 300,
          },
        ],
      }),
    ],
  },
  heavy: {
    describe: "1 h log queries with parsers and label filters",
    window: [3600, 3600],
    vus: 4,
    p95Ms: 2000,
    templates: [
      (w) => ({
        name: "json + numeric filters",
        loki: [
          "/loki/api/v1/query_range",
          {
            query: '{app="api"} |= "timeout" | json | status >= 500 and latency_ms > 100',
            start: w.start,
            end: w.end,
            limit: 100,
          },
        ],
        vl: [
          "/select/logsql/query",
          {
            query: S(
              '{app="api"} _msg:~"timeout" | unpack_json | filter status:>=500 latency_ms:>100 | sort by (_time desc) | limit 100',
            ),
            start: w.start,
            end: w.end,
          },
        ],
      }),
      (w) => ({
        name: "logfmt + filters",
        loki: [
          "/loki/api/v1/query_range",
          {
            query: '{app="worker", namespace="prod"} | logfmt | attempt > 3 and level="error"',
            start: w.start,
            end: w.end,
            limit: 100,
          },
        ],
        vl: [
          "/select/logsql/query",
          {
            query: S(
              '{app="worker",namespace="prod"} | unpack_logfmt | filter attempt:>3 level:=error | sort by (_time desc) | limit 100',
            ),
            start: w.start,
            end: w.end,
          },
        ],
      }),
      (w) => ({
        name: "regex + pattern + filter",
        loki: [
          "/loki/api/v1/query_range",
          {
            query:
              '{app="nginx"} |~ "(POST|PUT) .* 50[023] " | pattern "<ip> - - [<_>] \\"<method> <path> <_>\\" <code> <size> <_>" | size > 10000',
            start: w.start,
            end: w.end,
            limit: 100,
          },
        ],
        vl: [
          "/select/logsql/query",
          {
            query: S(
              '{app="nginx"} _msg:~"(POST|PUT) .* 50[023] " | extract "<ip> - - [<_>] \\"<method> <path> <_>\\" <code> <size> <_>" | filter size:>10000 | sort by (_time desc) | limit 100',
            ),
            start: w.start,
            end: w.end,
          },
        ],
      }),
    ],
  },
  long_range: {
    describe:
      "log queries over 6 to 72 h (the Worker reads the edge hour first and sizes further windows by density, or fans out 1 h windows when its own stages filter; VictoriaLogs gets one request)",
    window: [6 * 3600, 72 * 3600],
    vus: 2,
    p95Ms: 3000,
    templates: [
      (w) => ({
        name: "rare substring",
        // One user id among 5000: a handful of matches, so every window must be read.
        loki: [
          "/loki/api/v1/query_range",
          { query: '{app="payments", namespace="prod"} |= "\\"u4242\\""', start: w.start, end: w.end, limit: 100 },
        ],
        vl: [
          "/select/logsql/query",
          {
            query: S('{app="payments",namespace="prod"} _msg:~"\\"u4242\\"" | sort by (_time desc) | limit 100'),
            start: w.start,
            end: w.end,
          },
        ],
      }),
      (w) => ({
        name: "wide selector, limit 1000",
        loki: ["/loki/api/v1/query_range", { query: '{cluster="us-east-1"}', start: w.start, end: w.end, limit: 1000 }],
        vl: [
          "/select/logsql/query",
          { query: S('{cluster="us-east-1"} | sort by (_time desc) | limit 1000'), start: w.start, end: w.end },
        ],
      }),
      (w) => ({
        name: "filter + logfmt + label filter",
        loki: [
          "/loki/api/v1/query_range",
          {
            query: '{app="auth"} |= "connection refused" | logfmt | level="error"',
            start: w.start,
            end: w.end,
            limit: 50,
          },
        ],
        vl: [
          "/select/logsql/query",
          {
            query: S(
              '{app="auth"} _msg:~"connection refused" | unpack_logfmt | filter level:=error | sort by (_time desc) | limit 50',
            ),
            start: w.start,
            end: w.end,
          },
        ],
      }),
    ],
  },
  compute: {
    describe: "metric aggregations over 6 h, 5 min steps",
    window: [6 * 3600, 6 * 3600],
    vus: 2,
    p95Ms: 5000,
    templates: [
      (w) => ({
        name: "sum by (app) count_over_time",
        loki: [
          "/loki/api/v1/query_range",
          { query: 'sum by (app) (count_over_time({namespace="prod"}[5m]))', start: w.start, end: w.end, step: 300 },
        ],
        vl: [
          "/select/logsql/stats_query_range",
          { query: S('{namespace="prod"} | stats by (app) count() c'), start: w.start, end: w.end, step: "5m" },
        ],
      }),
      (w) => ({
        name: "rate of 5xx by cluster",
        loki: [
          "/loki/api/v1/query_range",
          { query: 'sum by (cluster) (rate({app="nginx"} |= "\\" 50" [5m]))', start: w.start, end: w.end, step: 300 },
        ],
        vl: [
          "/select/logsql/stats_query_range",
          {
            query: S('{app="nginx"} _msg:~"\\" 50" | stats by (cluster) count() c'),
            start: w.start,
            end: w.end,
            step: "5m",
          },
        ],
      }),
      (w) => ({
        name: "quantile_over_time of unwrapped json",
        loki: [
          "/loki/api/v1/query_range",
          {
            query: 'quantile_over_time(0.99, {app="api"} | json | unwrap latency_ms [5m]) by (cluster)',
            start: w.start,
            end: w.end,
            step: 300,
          },
        ],
        vl: [
          "/select/logsql/stats_query_range",
          {
            query: S('{app="api"} | unpack_json fields (latency_ms) | stats by (cluster) quantile(0.99, latency_ms) q'),
            start: w.start,
            end: w.end,
            step: "5m",
          },
        ],
      }),
      (w) => ({
        name: "sum_over_time of unwrapped json",
        loki: [
          "/loki/api/v1/query_range",
          {
            query: 'sum by (cluster) (sum_over_time({app="api"} | json | unwrap latency_ms [5m]))',
            start: w.start,
            end: w.end,
            step: 300,
          },
        ],
        vl: [
          "/select/logsql/stats_query_range",
          {
            query: S('{app="api"} | unpack_json fields (latency_ms) | stats by (cluster) sum(latency_ms) s'),
            start: w.start,
            end: w.end,
            step: "5m",
          },
        ],
      }),
      (w) => ({
        name: "avg_over_time of unwrapped json",
        loki: [
          "/loki/api/v1/query_range",
          {
            query: 'avg_over_time({app="api"} | json | unwrap latency_ms [5m]) by (cluster)',
            start: w.start,
            end: w.end,
            step: 300,
          },
        ],
        vl: [
          "/select/logsql/stats_query_range",
          {
            query: S('{app="api"} | unpack_json fields (latency_ms) | stats by (cluster) avg(latency_ms) a'),
            start: w.start,
            end: w.end,
            step: "5m",
          },
        ],
      }),
      (w) => ({
        name: "topk pods by bytes",
        loki: [
          "/loki/api/v1/query_range",
          {
            query: 'topk(5, sum by (pod) (bytes_over_time({namespace="staging"}[5m])))',
            start: w.start,
            end: w.end,
            step: 300,
          },
        ],
        vl: [
          "/select/logsql/stats_query_range",
          {
            query: S('{namespace="staging"} | stats by (pod) sum_len(_msg) b'),
            start: w.start,
            end: w.end,
            step: "5m",
          },
        ],
      }),
    ],
  },
  cold: {
    describe: "one client, sequential 15 min log queries over random streams and windows (no cache can help)",
    window: [900, 900],
    vus: 1,
    p95Ms: 1500,
    templates: COLD_APPS.map((app) => (w) => coldLogRequest(app, w, 100)),
  },
};

/**
 * The cold workload's request: one app's prod streams over `w`, the newest `limit` entries.
 * @param {string} app @param {{ start: number, end: number }} w @param {number} limit @returns {Request}
 */
export function coldLogRequest(app, w, limit) {
  return {
    name: `cold ${app}`,
    loki: [
      "/loki/api/v1/query_range",
      { query: `{app="${app}", namespace="prod"}`, start: w.start, end: w.end, limit },
    ],
    vl: [
      "/select/logsql/query",
      {
        query: S(`{app="${app}",namespace="prod"} | sort by (_time desc) | limit ${limit}`),
        start: w.start,
        end: w.end,
      },
    ],
  };
}

// The compute requests again with `Cache-Control: no-cache`: the Worker evaluates every one anew,
// as VictoriaLogs (which has no results cache) does, so the ratio shows the evaluation itself.
WORKLOADS.compute_uncached = {
  ...WORKLOADS.compute,
  describe:
    "the compute requests with Cache-Control: no-cache (the Worker's results caches left out: nothing read, written or coalesced)",
  noCache: true,
};

/**
 * A random window of the workload's length range inside the data, whole seconds.
 * @param {Workload} workload @param {number} dataStart @param {number} dataEnd
 */
export function randomWindow(workload, dataStart, dataEnd, rand = Math.random) {
  const [minLen, maxLen] = workload.window;
  const len = Math.round(minLen + rand() * (maxLen - minLen));
  const start = Math.floor(dataStart + rand() * Math.max(0, dataEnd - dataStart - len));
  return { start, end: start + len };
}

/**
 * The compat corpus' metric queries without parsers, written out as ASTs by hand, so the golden
 * test can run before (or without) the LogQL parser. Each entry repeats its query for review.
 */
import type { PipelineStage, SampleExpr, Unwrap } from "../../../../../src/logql/ast";
import { agg, bin, by, ignoring, lineFilter as f, lit, on, range as r, vec, without } from "./ast";

const json: PipelineStage = { kind: "JsonParser", params: [] };
const logfmt: PipelineStage = { kind: "LogfmtParser", strict: false, keepEmpty: false, params: [] };
const unwrap = (
  label: string,
  conversion: "" | "bytes" | "duration" = "",
  postFilters: Unwrap["postFilters"] = [],
): Unwrap => ({
  label,
  conversion,
  postFilters,
});
const cot = (sel: string, w: string, o?: Parameters<typeof r>[3]) => r("count_over_time", sel, w, o);

export const HAND_ASTS: Record<string, SampleExpr> = {
  // count_over_time({app="nginx", cluster="us-east-1"}[10m])
  "range-count": cot('app="nginx", cluster="us-east-1"', "10m"),
  // sum by (namespace) (count_over_time({app="worker"}[10m]))
  "range-count-sum-by": agg("sum", cot('app="worker"', "10m"), by("namespace")),
  // sum(count_over_time({app="auth"}[10m])) by (cluster)
  "range-count-by-after": agg("sum", cot('app="auth"', "10m"), by("cluster")),
  // rate({app="nginx", namespace="prod", cluster="eu-west-1"}[5m])
  "range-rate": r("rate", 'app="nginx", namespace="prod", cluster="eu-west-1"', "5m"),
  // sum(rate({namespace="staging"}[1m]))
  "range-rate-sum": agg("sum", r("rate", 'namespace="staging"', "1m")),
  // sum by (app) (rate({cluster="us-east-1"} |= "error" [5m]))
  "range-rate-filter": agg("sum", r("rate", 'cluster="us-east-1"', "5m", { pipeline: [f("|=", "error")] }), by("app")),
  // sum by (app) (count_over_time({namespace="prod"}[30m]))
  "range-sliding": agg("sum", cot('namespace="prod"', "30m"), by("app")),
  // sum(count_over_time({app="checkout"}[5m]))
  "range-sliding-fine": agg("sum", cot('app="checkout"', "5m")),
  // sum(count_over_time({app="payments"}[1m]))
  "range-range-lt-step": agg("sum", cot('app="payments"', "1m")),
  // sum by (app) (count_over_time({namespace="staging"}[3m]))
  "range-unaligned": agg("sum", cot('namespace="staging"', "3m"), by("app")),
  // sum by (app) (bytes_over_time({namespace="prod"}[10m]))
  "range-bytes-over-time": agg("sum", r("bytes_over_time", 'namespace="prod"', "10m"), by("app")),
  // sum(bytes_rate({app="worker"}[5m]))
  "range-bytes-rate": agg("sum", r("bytes_rate", 'app="worker"', "5m")),
  // absent_over_time({app="nginx"}[5m])
  "range-absent-present": r("absent_over_time", 'app="nginx"', "5m"),
  // absent_over_time({app="ghost", namespace="prod"}[10m])
  "range-absent-missing": r("absent_over_time", 'app="ghost", namespace="prod"', "10m"),
  // sum without (pod, container, service_name, job) (rate({app="nginx"}[10m]))
  "range-agg-sum-without": agg(
    "sum",
    r("rate", 'app="nginx"', "10m"),
    without("pod", "container", "service_name", "job"),
  ),
  // avg by (app) (count_over_time({namespace="staging"}[10m]))
  "range-agg-avg": agg("avg", cot('namespace="staging"', "10m"), by("app")),
  // min by (cluster) (count_over_time({app="worker"}[10m]))
  "range-agg-min": agg("min", cot('app="worker"', "10m"), by("cluster")),
  // max(count_over_time({app="nginx"}[10m]))
  "range-agg-max": agg("max", cot('app="nginx"', "10m")),
  // count by (app) (count_over_time({namespace="prod", app=~"nginx|worker|auth"}[10m]))
  "range-agg-count": agg("count", cot('namespace="prod", app=~"nginx|worker|auth"', "10m"), by("app")),
  // stddev(count_over_time({app="nginx"}[10m]))
  "range-agg-stddev": agg("stddev", cot('app="nginx"', "10m")),
  // stdvar by (namespace) (count_over_time({app="nginx"}[10m]))
  "range-agg-stdvar": agg("stdvar", cot('app="nginx"', "10m"), by("namespace")),
  // topk(2, sum by (app) (bytes_over_time({namespace="prod"}[10m])))
  "range-topk": agg("topk", agg("sum", r("bytes_over_time", 'namespace="prod"', "10m"), by("app")), by(), 2),
  // topk by (namespace) (1, sum by (namespace, app) (bytes_over_time({cluster="eu-west-1"}[10m])))
  "range-topk-by": agg(
    "topk",
    agg("sum", r("bytes_over_time", 'cluster="eu-west-1"', "10m"), by("namespace", "app")),
    by("namespace"),
    1,
  ),
  // bottomk(3, sum by (pod) (bytes_over_time({app="nginx"}[10m])))
  "range-bottomk": agg("bottomk", agg("sum", r("bytes_over_time", 'app="nginx"', "10m"), by("pod")), by(), 3),
  // sort(sum by (app) (bytes_over_time({namespace="staging"}[10m])))
  "range-sort": agg("sort", agg("sum", r("bytes_over_time", 'namespace="staging"', "10m"), by("app"))),
  // sort_desc(sum by (app) (bytes_over_time({namespace="staging"}[10m])))
  "range-sort-desc": agg("sort_desc", agg("sum", r("bytes_over_time", 'namespace="staging"', "10m"), by("app"))),
  // sum by (app) (rate({namespace="prod"}[10m])) * 60
  "range-bin-scalar-mul": bin("*", agg("sum", r("rate", 'namespace="prod"', "10m"), by("app")), lit(60)),
  // 100 * sum by (app) (count_over_time({namespace="prod"} |= "error" [10m])) / sum by (app) (count_over_time({namespace="prod"}[10m]))
  "range-bin-scalar-left": bin(
    "/",
    bin("*", lit(100), agg("sum", cot('namespace="prod"', "10m", { pipeline: [f("|=", "error")] }), by("app"))),
    agg("sum", cot('namespace="prod"', "10m"), by("app")),
  ),
  // 1 + sum(count_over_time({app="auth"}[10m])) * 2 - 3 / 3
  "range-bin-precedence": bin(
    "-",
    bin("+", lit(1), bin("*", agg("sum", cot('app="auth"', "10m")), lit(2))),
    bin("/", lit(3), lit(3)),
  ),
  // sum(count_over_time({app="auth"}[10m])) % 7 ^ 2
  "range-bin-pow-mod": bin("%", agg("sum", cot('app="auth"', "10m")), bin("^", lit(7), lit(2))),
  // sum by (app) (count_over_time({namespace="prod", app=~"api.*|checkout"} |= "timeout" [10m])) / (sum by (app) (count_over_time({namespace="prod", app=~"api.*|checkout"}[10m])) * 0)
  "range-bin-div-zero": bin(
    "/",
    agg("sum", cot('namespace="prod", app=~"api.*|checkout"', "10m", { pipeline: [f("|=", "timeout")] }), by("app")),
    bin("*", agg("sum", cot('namespace="prod", app=~"api.*|checkout"', "10m"), by("app")), lit(0)),
  ),
  // sum by (app) (count_over_time({namespace="prod"}[10m])) - sum by (app) (count_over_time({namespace="staging"}[10m]))
  "range-bin-vec-vec": bin(
    "-",
    agg("sum", cot('namespace="prod"', "10m"), by("app")),
    agg("sum", cot('namespace="staging"', "10m"), by("app")),
  ),
  // ... / on (app, cluster) ...
  "range-bin-on": bin(
    "/",
    agg("sum", cot('namespace="prod"', "10m"), by("app", "cluster")),
    agg("sum", cot('namespace="staging"', "10m"), by("app", "cluster")),
    { matching: on(["app", "cluster"]) },
  ),
  // sum by (app, namespace) (...) / ignoring (namespace) group_left sum by (app) (...)
  "range-bin-ignoring": bin(
    "/",
    agg("sum", cot('cluster="us-east-1"', "10m"), by("app", "namespace")),
    agg("sum", cot('cluster="us-east-1"', "10m"), by("app")),
    { matching: ignoring(["namespace"], "many-to-one") },
  ),
  // sum by (app) (...) / on (app) group_right sum by (app, namespace) (...)
  "range-bin-group-right": bin(
    "/",
    agg("sum", cot('cluster="eu-west-1"', "10m"), by("app")),
    agg("sum", cot('cluster="eu-west-1"', "10m"), by("app", "namespace")),
    { matching: on(["app"], "one-to-many") },
  ),
  // sum by (app) (count_over_time({namespace="prod"}[10m])) >= 300
  "range-bin-cmp": bin(">=", agg("sum", cot('namespace="prod"', "10m"), by("app")), lit(300)),
  // sum by (app) (count_over_time({namespace="prod"}[10m])) < bool 1000
  "range-bin-cmp-bool": bin("<", agg("sum", cot('namespace="prod"', "10m"), by("app")), lit(1000), { bool: true }),
  // sum by (app) (...prod...) > sum by (app) (...staging...) * 3
  "range-bin-cmp-vec": bin(
    ">",
    agg("sum", cot('namespace="prod"', "10m"), by("app")),
    bin("*", agg("sum", cot('namespace="staging"', "10m"), by("app")), lit(3)),
  ),
  // sum by (app) (rate({namespace="prod"}[10m])) and on (app) sum by (app) (rate({namespace="prod"} |= "deadlock" [10m]))
  "range-bin-and": bin(
    "and",
    agg("sum", r("rate", 'namespace="prod"', "10m"), by("app")),
    agg("sum", r("rate", 'namespace="prod"', "10m", { pipeline: [f("|=", "deadlock")] }), by("app")),
    { matching: on(["app"]) },
  ),
  // sum by (app) (rate({namespace="prod", app="nginx"}[10m])) or sum by (app) (rate({namespace="prod", app="auth"}[10m]))
  "range-bin-or": bin(
    "or",
    agg("sum", r("rate", 'namespace="prod", app="nginx"', "10m"), by("app")),
    agg("sum", r("rate", 'namespace="prod", app="auth"', "10m"), by("app")),
  ),
  // sum by (app) (rate({namespace="staging"}[10m])) unless sum by (app) (rate({namespace="staging"} |= "deadlock" [10m]))
  "range-bin-unless": bin(
    "unless",
    agg("sum", r("rate", 'namespace="staging"', "10m"), by("app")),
    agg("sum", r("rate", 'namespace="staging"', "10m", { pipeline: [f("|=", "deadlock")] }), by("app")),
  ),
  // sum by (app) (count_over_time({namespace="prod"}[10m] offset 30m))
  "range-offset": agg("sum", cot('namespace="prod"', "10m", { offset: "30m" }), by("app")),
  // label_replace(sum by (pod) (count_over_time({app="auth", namespace="prod"}[10m])), "short", "$1", "pod", "auth-([a-f0-9]+)-.*")
  "range-label-replace": {
    kind: "LabelReplace",
    expr: agg("sum", cot('app="auth", namespace="prod"', "10m"), by("pod")),
    dst: "short",
    replacement: "$1",
    src: "pod",
    regex: "auth-([a-f0-9]+)-.*",
  },
  // label_replace(sum by (app) (count_over_time({namespace="staging"}[10m])), "x", "y", "app", "zzz")
  "range-label-replace-nomatch": {
    kind: "LabelReplace",
    expr: agg("sum", cot('namespace="staging"', "10m"), by("app")),
    dst: "x",
    replacement: "y",
    src: "app",
    regex: "zzz",
  },
  // vector(3)
  "range-vector": vec(3),
  // sum(count_over_time({app="ghost"}[10m])) or vector(0)
  "range-vector-or": bin("or", agg("sum", cot('app="ghost"', "10m")), vec(0)),
  // sum(rate({app="checkout"}[5m]))  (step=5m and default step)
  "range-step-duration": agg("sum", r("rate", 'app="checkout"', "5m")),
  "range-step-default": agg("sum", r("rate", 'app="checkout"', "5m")),
  // sum by (app) (count_over_time({namespace="staging"}[1h]))
  "inst-count": agg("sum", cot('namespace="staging"', "1h"), by("app")),
  // count_over_time({app="nginx", namespace="prod"}[30m])
  "inst-count-per-stream": cot('app="nginx", namespace="prod"', "30m"),
  // sum by (cluster) (rate({app="payments"}[15m]))
  "inst-rate": agg("sum", r("rate", 'app="payments"', "15m"), by("cluster")),
  // topk(3, sum by (pod) (bytes_over_time({namespace="prod"}[1h])))
  "inst-topk": agg("topk", agg("sum", r("bytes_over_time", 'namespace="prod"', "1h"), by("pod")), by(), 3),
  // sum(count_over_time({app="nginx"} |= "500" [1h])) / sum(count_over_time({app="nginx"}[1h]))
  "inst-bin": bin(
    "/",
    agg("sum", cot('app="nginx"', "1h", { pipeline: [f("|=", "500")] })),
    agg("sum", cot('app="nginx"', "1h")),
  ),
  // (2 + 3) * 4 ^ 2 / 8
  "inst-scalar-arith": bin("/", bin("*", bin("+", lit(2), lit(3)), bin("^", lit(4), lit(2))), lit(8)),
  // vector(42)
  "inst-vector": vec(42),
  // 2 > bool 1
  "inst-cmp-bool-scalar": bin(">", lit(2), lit(1), { bool: true }),
  // sort(sum by (namespace) (count_over_time({app="auth"}[2h])))
  "inst-sort": agg("sort", agg("sum", cot('app="auth"', "2h"), by("namespace"))),
  // absent_over_time({app="ghost"}[1h])
  "inst-absent": r("absent_over_time", 'app="ghost"', "1h"),
  // sum by (app) (count_over_time({namespace="prod"}[30m] offset 2h))
  "inst-offset": agg("sum", cot('namespace="prod"', "30m", { offset: "2h" }), by("app")),

  // sum by (method) (count_over_time({app="api-gateway"} | json [10m]))
  "range-json-by": agg("sum", cot('app="api-gateway"', "10m", { pipeline: [json] }), by("method")),
  // sum by (job, ok) (count_over_time({app="worker", namespace="prod"} | logfmt [30m]))
  "range-logfmt-by": agg("sum", cot('app="worker", namespace="prod"', "30m", { pipeline: [logfmt] }), by("job", "ok")),
  // sum by (app) (sum_over_time({app=~"checkout|payments"} | json | unwrap bytes [10m]))
  "range-unwrap-sum": agg(
    "sum",
    r("sum_over_time", 'app=~"checkout|payments"', "10m", { pipeline: [json], unwrap: unwrap("bytes") }),
    by("app"),
  ),
  // avg_over_time({app="payments"} | json | unwrap latency_ms [10m]) by (cluster)
  "range-unwrap-avg": r("avg_over_time", 'app="payments"', "10m", {
    pipeline: [json],
    unwrap: unwrap("latency_ms"),
    grouping: by("cluster"),
  }),
  // max_over_time({app="api-gateway", namespace="prod"} | json | unwrap latency_ms [10m]) by (method)
  "range-unwrap-max": r("max_over_time", 'app="api-gateway", namespace="prod"', "10m", {
    pipeline: [json],
    unwrap: unwrap("latency_ms"),
    grouping: by("method"),
  }),
  // min_over_time({app="checkout"} | json | unwrap latency_ms [30m]) by (namespace)
  "range-unwrap-min": r("min_over_time", 'app="checkout"', "30m", {
    pipeline: [json],
    unwrap: unwrap("latency_ms"),
    grouping: by("namespace"),
  }),
  // quantile_over_time(0.99, {app="payments"} | json | unwrap latency_ms [10m]) by (namespace)
  "range-unwrap-quantile": r("quantile_over_time", 'app="payments"', "10m", {
    pipeline: [json],
    unwrap: unwrap("latency_ms"),
    grouping: by("namespace"),
    param: 0.99,
  }),
  // quantile_over_time(0.5, {app="checkout"} | json | unwrap latency_ms [30m]) by (path)
  "range-unwrap-quantile-50": r("quantile_over_time", 'app="checkout"', "30m", {
    pipeline: [json],
    unwrap: unwrap("latency_ms"),
    grouping: by("path"),
    param: 0.5,
  }),
  // stddev_over_time({app="payments", namespace="prod"} | json | unwrap latency_ms [10m]) by (method)
  "range-unwrap-stddev": r("stddev_over_time", 'app="payments", namespace="prod"', "10m", {
    pipeline: [json],
    unwrap: unwrap("latency_ms"),
    grouping: by("method"),
  }),
  // stdvar_over_time({app="payments", namespace="prod"} | json | unwrap latency_ms [10m]) by (method)
  "range-unwrap-stdvar": r("stdvar_over_time", 'app="payments", namespace="prod"', "10m", {
    pipeline: [json],
    unwrap: unwrap("latency_ms"),
    grouping: by("method"),
  }),
  // first_over_time({app="auth", namespace="prod"} | logfmt | unwrap attempt [10m]) by (pod)
  "range-unwrap-first": r("first_over_time", 'app="auth", namespace="prod"', "10m", {
    pipeline: [logfmt],
    unwrap: unwrap("attempt"),
    grouping: by("pod"),
  }),
  // last_over_time({app="auth", namespace="prod"} | logfmt | unwrap attempt [10m]) by (pod)
  "range-unwrap-last": r("last_over_time", 'app="auth", namespace="prod"', "10m", {
    pipeline: [logfmt],
    unwrap: unwrap("attempt"),
    grouping: by("pod"),
  }),
  // avg_over_time({app="auth"} | logfmt | unwrap duration(duration) [10m]) by (namespace)
  "range-unwrap-duration": r("avg_over_time", 'app="auth"', "10m", {
    pipeline: [logfmt],
    unwrap: unwrap("duration", "duration"),
    grouping: by("namespace"),
  }),
  // max_over_time({app="worker"} | logfmt | unwrap bytes(size) [10m]) by (namespace)
  "range-unwrap-bytes": r("max_over_time", 'app="worker"', "10m", {
    pipeline: [logfmt],
    unwrap: unwrap("size", "bytes"),
    grouping: by("namespace"),
  }),
  // sum by (app) (sum_over_time({app="checkout"} | json | unwrap latency_ms | __error__="" [10m]))
  "range-unwrap-filter-error": agg(
    "sum",
    r("sum_over_time", 'app="checkout"', "10m", {
      pipeline: [json],
      unwrap: unwrap("latency_ms", "", [{ type: "string", name: "__error__", op: "=", value: "" }]),
    }),
    by("app"),
  ),
  // sum by (namespace) (rate({app="payments"} | json | unwrap bytes [5m]))
  "range-unwrap-rate": agg(
    "sum",
    r("rate", 'app="payments"', "5m", { pipeline: [json], unwrap: unwrap("bytes") }),
    by("namespace"),
  ),
  // sum(rate_counter({app="worker", namespace="prod"} | logfmt | unwrap attempt [5m]))
  "range-unwrap-rate-counter": agg(
    "sum",
    r("rate_counter", 'app="worker", namespace="prod"', "5m", { pipeline: [logfmt], unwrap: unwrap("attempt") }),
  ),
  // avg_over_time({app="payments", namespace="prod"} | json | unwrap latency_ms [10m] offset 1h) by (app)
  "range-offset-unwrap": r("avg_over_time", 'app="payments", namespace="prod"', "10m", {
    pipeline: [json],
    unwrap: unwrap("latency_ms"),
    grouping: by("app"),
    offset: "1h",
  }),
  // sum by (user_id) (count_over_time({app="checkout", namespace="prod"} | json [1h]))
  "range-high-card": agg("sum", cot('app="checkout", namespace="prod"', "1h", { pipeline: [json] }), by("user_id")),
  // quantile_over_time(0.9, {app="api-gateway"} | json | unwrap latency_ms [1h]) by (method)
  "inst-quantile": r("quantile_over_time", 'app="api-gateway"', "1h", {
    pipeline: [json],
    unwrap: unwrap("latency_ms"),
    grouping: by("method"),
    param: 0.9,
  }),
  // rate({app="nginx"} | json | unwrap latency_ms [5m]): nginx lines are not JSON, nothing to unwrap
  "err-4": r("rate", 'app="nginx"', "5m", { pipeline: [json], unwrap: unwrap("latency_ms") }),

  // absent_over_time({app="nginx"} | json | unwrap status [5m]): no nginx line yields a sample
  "err-11": r("absent_over_time", 'app="nginx"', "5m", { pipeline: [json], unwrap: unwrap("status") }),
};

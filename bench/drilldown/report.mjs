// bench/results/drilldown.md (totals beside the published figures, then one row per call) and
// drilldown.svg (Worker ÷ VictoriaLogs latency per call and range, the scale report's chart).

import { loadSentence, svg as scaleSvg } from "../scale/report.mjs";

/**
 * @typedef {object} Case
 * @property {string} shape
 * @property {string} name
 * @property {string} kind `metric` or `metadata`
 * @property {string} range
 * @property {number} step seconds
 * @property {{ status?: number, error?: string, items?: number, warnings?: string[], wallMs?: number, cpuMs?: number, vlCpuMs?: number, heap?: { peakHeapGrowthMB: number, peakLiveGrowthMB?: number }, originBytes?: number, originRequests?: number, rowsEvaluated?: number, dnf?: boolean, crashed?: string }} worker
 * @property {{ status?: number, error?: string, ms?: number, cpuMs?: number, bytes?: number, items?: number, dnf?: boolean }} vl
 */

/** Grafana's data source proxy gives up on a request after this long by default. */
const GRAFANA_TIMEOUT_S = 30;

/** As the issue quotes them for the same session; not measured here. */
const PUBLISHED = [
  ["Loki", "9 of 36 (13 blank, 9 errors, 5 time-outs)", "~2,700 CPU·s"],
  ["the closest existing proxy", "35 of 36, with top-N answers that are not Loki's", "—"],
];

const cellText = (s) => s.replace(/\|/g, "\\|");
const int = (n) => Math.round(n).toLocaleString("en");
const secs = (ms) => (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);
const answered = (c) => c.worker.status === 200 && c.worker.wallMs !== undefined;
/** An answer with data: series of a metric answer, fields, labels. */
const hasData = (c) => answered(c) && (c.worker.items ?? 0) > 0;
const sum = (cases, f) => cases.reduce((n, c) => n + (f(c) ?? 0), 0);

function outcome(c) {
  if (c.worker.dnf) return `did not finish in ${c.worker.seconds ?? "?"} s`;
  if (c.worker.crashed) return `crashed (${c.worker.crashed})`;
  if (c.worker.status !== 200) return `HTTP ${c.worker.status}`;
  if (!hasData(c)) return "200, blank";
  return c.worker.warnings ? "200, partial" : "200";
}

/** Why a call failed, from what the Worker answered. */
function reason(c) {
  const e = c.worker.error ?? "";
  if (/MAX_LOCAL_ROWS/.test(e))
    return "the breakdown is evaluated from rows in the Worker (no push-down for this shape), and the range holds more rows than `MAX_LOCAL_ROWS`";
  if (/MAX_METRIC_POINTS/.test(e))
    return "the bucket rows VictoriaLogs returns for the breakdown (counted 4 points each) are more than `MAX_METRIC_POINTS` allows";
  if (/connection broke|HTTP 503/.test(e))
    return "VictoriaLogs ended a row stream the Worker was still reading at its own `-search.maxQueryDuration` (30 s by default)";
  if (c.worker.crashed) return "the 128 MB heap ran out";
  if (c.worker.dnf) return "no answer within the time limit";
  return "";
}

function vlCell(c) {
  if (c.vl.dnf) return "did not finish";
  if (c.vl.status === undefined) return "connection broke";
  if (c.vl.status !== 200) return `HTTP ${c.vl.status}`;
  return int(c.vl.ms);
}

/**
 * @param {Case[]} cases
 * @param {Record<string, any>} meta
 */
export function markdown(cases, meta) {
  const n = cases.length;
  const withData = cases.filter(hasData).length;
  const blank = cases.filter((c) => answered(c) && !hasData(c)).length;
  const errors = cases.filter((c) => c.worker.status !== undefined && c.worker.status !== 200).length;
  const timeouts = cases.filter((c) => c.worker.dnf).length;
  const crashes = cases.filter((c) => c.worker.crashed).length;
  const partial = cases.filter((c) => answered(c) && c.worker.warnings).length;
  const slow = cases.filter((c) => answered(c) && c.worker.wallMs > GRAFANA_TIMEOUT_S * 1000).length;
  const workerCpu = sum(cases, (c) => c.worker.cpuMs);
  const vlForWorker = sum(cases, (c) => c.worker.vlCpuMs);
  const vlDirectCpu = sum(cases, (c) => c.vl.cpuMs);
  const workerWall = sum(cases, (c) => c.worker.wallMs ?? (c.worker.seconds ?? 0) * 1000);
  const vlWall = sum(cases, (c) => c.vl.ms);
  const peakHeap = Math.max(0, ...cases.map((c) => c.worker.heap?.peakHeapGrowthMB ?? 0));
  const m1 = meta.measured?.["1 h"] ?? {};
  const m24 = meta.measured?.["24 h"] ?? {};
  const lines = [
    `# Logs Drilldown at real cardinality: ${n} cold calls, ${meta.pods.toLocaleString("en")} pods, ~${int(m1.traces ?? 0)} trace ids an hour`,
    "",
    `Run ${meta.started}${meta.finished ? ` to ${meta.finished}` : " (still running when written)"}, mode **${meta.mode}**, the Worker's code (src/) as of commit ${meta.srcCommit ?? "?"}:`,
    `\`npm run bench:drilldown\`. Node ${meta.node}, ${meta.cores} cores shared with other work running at the same time (latencies move`,
    "from run to run; CPU times move less), VictoriaLogs " +
      `${meta.victoriaLogs}, its own process serving nothing else.`,
    "",
    `Dataset (bench/drilldown/generate.mjs, seeded): ${int(meta.rows)} rows over ${meta.hours} h in one namespace (\`namespace="shop"\`), 15 services`,
    `(9 with JSON bodies, 5 logfmt, 1 nginx access lines; levels in every body), ${int(meta.pods)} pods as the \`pod\` stream label`,
    `(${int(meta.streams)} streams). Each row carries OpenTelemetry-style structured metadata \`k8s_pod_name\`, and \`trace_id\`/\`span_id\``,
    "outside the nginx service; JSON and logfmt bodies carry the pod's `service_version` (three versions a service).",
    `Measured in the loaded data: last hour ${int(m1.rows ?? 0)} rows, ${int(m1.pods ?? 0)} pods, ${int(m1.traces ?? 0)} distinct trace ids, ${int(m1.services ?? 0)} services; last 24 h`,
    `${int(m24.rows ?? 0)} rows, ${int(m24.traces ?? 0)} distinct trace ids. ${loadSentence(meta)}`,
    "",
    "The calls are the ones Logs Drilldown makes on a namespace's page, as its query builders write them, tagged",
    "`X-Query-Tags: Source=grafana-lokiexplore-app`: the labels tab's breakdown by `pod`, the fields tab's breakdowns by",
    "`trace_id` and `k8s_pod_name` (structured metadata) and by `service_version` (a parsed field, so `| json … | logfmt`),",
    "the fields tab's `detected_fields` and the labels tab's `detected_labels` (the list of labels on a namespace's page comes",
    "from `detected_labels`; Drilldown's `labels` call takes no query). Each range ends at the data's end, with the step Grafana picks (range ÷ 1,000 points on its",
    "interval ladder: 2 s at 30 m, 5 s at 1 h and 2 h, 10 s at 3 h, 20 s at 6 h, 1 min at 24 h; `[$__auto]` is that step).",
    "",
    "**Worker**: the Loki request through the Worker's app (`createApp().fetch`) in a Node process with a 128 MB heap, cold",
    "(no cache layer, `Cache-Control: no-cache`), default limits (`MAX_QUERY_SERIES` 500, `MAX_LOCAL_ROWS` 1 M), once, after a",
    "warm-up request of the same shape over five minutes of other data. **CPU ms**: `process.cpuUsage()` of that process around",
    "the request. **VL CPU ms**: utime + stime of the VictoriaLogs process (`/proc/<pid>/stat`, 10 ms ticks) over the same",
    "interval: what the Worker's request cost VictoriaLogs. **Peak heap**: the heap's peak above idle during the request",
    "(`heapUsed` sampled every 5 ms, garbage not yet collected included: no collection is forced while the request runs, so",
    "that none is charged to its CPU). **VL direct**: the LogsQL that computes the comparable answer",
    "(every series of `stats by (field) count()` over the same buckets; `field_names`; `stream_field_names`), once, read to",
    `its last byte, with its CPU from /proc the same way. A request past ${meta.timeoutS} s is stopped and reported as not finished.`,
    "",
    "## Totals",
    "",
    "| | answers with data | blank | errors | time-outs (and crashes) | CPU·s |",
    "|---|---|---|---|---|---|",
    `| **Worker, this run** | **${withData} of ${n}** (${partial} partial, with Loki's warning) | ${blank} | ${errors} | ${timeouts}${crashes ? ` (+ ${crashes} out of heap)` : ""} | Worker ${secs(workerCpu)} + VictoriaLogs ${secs(vlForWorker)} |`,
    `| VictoriaLogs direct, this run (every series, not Loki's answer) | ${cases.filter((c) => c.vl.status === 200 && (c.vl.items ?? 1) > 0).length} of ${n} | — | ${cases.filter((c) => c.vl.status !== 200 && !c.vl.dnf).length} | ${cases.filter((c) => c.vl.dnf).length} | ${secs(vlDirectCpu)} |`,
    ...PUBLISHED.map(([who, answers, cpu]) => `| ${who} (published, not measured here) | ${answers} | | | | ${cpu} |`),
    "",
    `The Worker's own CPU over the session: ${secs(workerCpu)} s, ${vlDirectCpu > 0 ? `${((100 * workerCpu) / vlDirectCpu).toFixed(1)}%` : "—"} of what VictoriaLogs spent computing the`,
    `comparable answers directly (${secs(vlDirectCpu)} s); VictoriaLogs spent ${secs(vlForWorker)} s serving the Worker's requests.`,
    `Wall time summed over the ${n} calls: Worker ${secs(workerWall)} s, VictoriaLogs direct ${secs(vlWall)} s. Calls past Grafana's`,
    `default ${GRAFANA_TIMEOUT_S} s data source timeout: ${slow}. Peak heap above idle: ${peakHeap} MB.`,
    "",
    "## Per call",
    "",
    "| call | range | Worker | series / fields / labels | Worker ms | CPU ms | VL CPU ms | peak heap MB | origin MB | VL direct ms | VL direct CPU ms | VL direct series / names | latency ratio | CPU ratio |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const c of cases) {
    const ok = answered(c);
    const ratio = ok && c.vl.ms ? `${(c.worker.wallMs / c.vl.ms).toFixed(2)}×` : "—";
    const cpuRatio =
      ok && c.vl.cpuMs ? `${((c.worker.cpuMs + (c.worker.vlCpuMs ?? 0)) / c.vl.cpuMs).toFixed(2)}×` : "—";
    lines.push(
      `| ${cellText(c.shape)} | ${c.range} | ${outcome(c)} | ${ok ? int(c.worker.items ?? 0) : "—"} | ${c.worker.wallMs !== undefined ? int(c.worker.wallMs) : "—"} | ${
        c.worker.cpuMs !== undefined ? int(c.worker.cpuMs) : "—"
      } | ${c.worker.vlCpuMs !== undefined ? int(c.worker.vlCpuMs) : "—"} | ${c.worker.heap?.peakHeapGrowthMB ?? "—"} | ${
        ok && c.worker.originBytes !== undefined ? (c.worker.originBytes / 1e6).toFixed(2) : "—"
      } | ${vlCell(c)} | ${c.vl.cpuMs !== undefined ? int(c.vl.cpuMs) : "—"} | ${
        c.vl.items !== undefined
          ? int(c.vl.items)
          : c.vl.bytes !== undefined
            ? `${(c.vl.bytes / 1e6).toFixed(0)} MB`
            : "—"
      } | ${ratio} | ${cpuRatio} |`,
    );
  }
  lines.push(
    "",
    "**latency ratio**: Worker ms ÷ VL direct ms. **CPU ratio**: (Worker CPU + VictoriaLogs' CPU for the Worker's request) ÷",
    "VictoriaLogs' CPU computing the comparable answer directly. Past 500 series a Drilldown-tagged answer is Loki's partial",
    "one (`maximum number of series (500) reached for a single query; returning partial results`), 500 series each with",
    "exact values, where VictoriaLogs direct returns every series.",
    "",
    "The calls:",
    "",
    ...[...new Map(cases.map((c) => [c.shape, c.name])).entries()].map(([id, name]) => `- **${id}**: ${name}`),
  );
  const failed = cases.filter((c) => !hasData(c) || c.vl.status !== 200);
  if (failed.length > 0) {
    lines.push("", "## Calls without data or with an error", "");
    for (const c of failed) {
      if (!hasData(c)) {
        const why = reason(c);
        lines.push(
          `- ${c.shape} ${c.range}, Worker: ${outcome(c)}${why ? `: ${why}` : ""}${c.worker.error ? `. Its answer: ${c.worker.error}` : ""}`,
        );
      }
      if (c.vl.status !== 200)
        lines.push(`- ${c.shape} ${c.range}, VictoriaLogs direct: ${vlCell(c)}${c.vl.error ? ` ${c.vl.error}` : ""}`);
    }
  }
  lines.push("");
  return lines.join("\n");
}

/**
 * The scale report's chart (Worker ÷ VictoriaLogs latency, log scale), one bar per range.
 * @param {Case[]} cases
 * @param {Record<string, any>} meta
 */
export function svg(cases, meta) {
  return scaleSvg(/** @type {any} */ (cases), meta, {
    projection: false,
    colours: ["#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c"],
  });
}

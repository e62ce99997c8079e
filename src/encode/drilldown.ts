/**
 * Loki's JSON for the Logs Drilldown endpoints. Loki writes these protobuf messages with jsoniter,
 * so empty repeated fields and zero numbers are left out (`omitempty`): no fields at all is `{}`,
 * and `limit` appears only next to fields or values. `parsers` is always written (`null` for
 * structured metadata), `jsonPath` only when known. Every body ends with a newline, as Loki's do.
 */
import type { Config } from "../config";
import type { DetectedField } from "../engine/detected/fields";
import type { DetectedLabel } from "../engine/detected/labels";
import type { PatternAnswer } from "../engine/patterns/miner";
import { formatPromDuration } from "../core/go/duration";
import { LEVEL_FIELDS } from "../engine/derived-fields";

export function detectedFieldsBody(fields: readonly DetectedField[], limit: number): string {
  if (fields.length === 0) return "{}\n";
  const items = fields.map((f) => {
    let s = `{"label":${JSON.stringify(f.label)},"type":"${f.type}","cardinality":${f.cardinality},"parsers":${JSON.stringify(f.parsers)}`;
    if (f.jsonPath !== undefined && f.jsonPath.length > 0) s += `,"jsonPath":${JSON.stringify(f.jsonPath)}`;
    return s + "}";
  });
  return `{"fields":[${items.join(",")}],"limit":${limit}}\n`;
}

export function detectedFieldValuesBody(values: readonly string[], limit: number): string {
  if (values.length === 0) return "{}\n";
  return `{"limit":${limit},"values":${JSON.stringify(values)}}\n`;
}

export function detectedLabelsBody(labels: readonly DetectedLabel[]): string {
  if (labels.length === 0) return "{}\n";
  const items = labels.map((l) => `{"label":${JSON.stringify(l.label)},"cardinality":${l.cardinality}}`);
  return `{"detectedLabels":[${items.join(",")}]}\n`;
}

/**
 * /patterns: `{"status":"success","data":[{"pattern","level","samples":[[<unix s>,<count>],...]}]}`.
 * Loki's writer escapes `<`, `>` and `&` in strings (`<_>` reads `\u003c_\u003e`), as Go's
 * encoding/json does by default; JSON readers see the same text either way.
 */
export function patternsBody(patterns: readonly PatternAnswer[]): string {
  const items = patterns.map(
    (p) =>
      `{"pattern":${goJsonString(p.pattern)},"level":${goJsonString(p.level)},"samples":${JSON.stringify(p.samples)}}`,
  );
  return `{"status":"success","data":[${items.join(",")}]}\n`;
}

function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * /drilldown-limits: the configuration in force, in Loki's shape (keys sorted, as Go prints a map),
 * so Logs Drilldown plans with the limits it will meet. Level and service-name discovery are
 * reported as configured (DISCOVER_LOG_LEVELS, DISCOVER_SERVICE_NAME): the Worker derives them at
 * query time as Loki's distributor would have at ingest, reading levels from Loki's
 * `log_level_fields`. `max_query_length` is MAX_QUERY_LENGTH ("0s" when off). Settings that only
 * Loki's write path has (OTLP attributes, metric aggregation, pattern persistence, line truncation)
 * are off or empty: the Worker ingests nothing. Zero durations and `0B` mean "no limit", as in
 * Loki: the Worker refuses no query for its lookback, its range selector or the bytes it reads.
 * `pattern_ingester_enabled: true` makes Grafana offer the Patterns tab: /patterns mines them on
 * demand (exec/patterns.ts).
 */
export function drilldownLimitsBody(config: Config, version: string): string {
  const limits = {
    discover_log_levels: config.derivedFields.discoverLogLevels,
    discover_service_name: config.derivedFields.serviceNameLabels,
    log_level_fields: LEVEL_FIELDS,
    max_entries_limit_per_query: config.maxEntriesLimit,
    max_line_size_truncate: false,
    max_query_bytes_read: "0B",
    max_query_length: formatPromDuration(Number(config.maxQueryLength)),
    max_query_lookback: "0s",
    max_query_range: "0s",
    max_query_series: config.maxQuerySeries,
    metric_aggregation_enabled: false,
    otlp_config: { resource_attributes: { attributes_config: [] } },
    pattern_persistence_enabled: false,
    // The Worker's own bound is per origin request; it is the closest thing to Loki's per-query one.
    query_timeout: formatPromDuration(config.originTimeoutMs * 1_000_000),
    // Retention is VictoriaLogs' setting; "0s" is Loki's "nothing is deleted by the reader's rules".
    retention_period: "0s",
    volume_enabled: true,
    // Loki's default. The Worker caps volume answers only by the request's own `limit`.
    volume_max_series: 1000,
  };
  return JSON.stringify({ limits, pattern_ingester_enabled: true, version }) + "\n";
}

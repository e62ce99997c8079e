/**
 * One Workers Analytics Engine data point per request, when a dataset is bound as `METRICS`:
 * Workers have no /metrics endpoint to scrape, and the dataset is what operators query with SQL
 * (from Grafana too: scripts/grafana/dashboard.json). The point carries the request's log line in
 * numbers: nothing a client sent appears in it, the tenant only as the keyed digest of the log
 * line (telemetry.ts), the route as its pattern.
 *
 * The column positions are the schema dashboards query (`blob1`, `double1`, ...): a column is only
 * ever appended, never moved, so a dashboard written for an older Worker keeps reading the same
 * columns. Analytics Engine allows 20 blobs, 20 doubles and one index per point.
 */
import type { CacheOutcome } from "./cache-status";

/** `blob1` … in order. */
export const METRIC_BLOBS = [
  /** The route's pattern, e.g. `/loki/api/v1/query_range`; `unmatched` for unknown paths. */
  "route",
  /** The HTTP status, e.g. `200`. */
  "status",
  /** The tenant's keyed digest (16 hex characters), `""` when the request had no tenant. */
  "tenant",
  /** `2xx`, `4xx`, `5xx`, … */
  "status_class",
  /** The Cache-Status outcome: hit, partial, miss, bypass or none. */
  "cache",
  /** GET, POST, … */
  "method",
] as const;

/** `double1` … in order. */
export const METRIC_DOUBLES = [
  "duration_ms",
  /** Summed time of the origin requests. */
  "origin_ms",
  "origin_requests",
  /** Pieces found in a cache. */
  "cache_hits",
  /** Pieces looked up and not found. */
  "cache_misses",
  /** Rows the Worker evaluated (read from the origin or a cache). */
  "rows",
  /** Bytes of log lines the Worker evaluated. */
  "bytes",
  /** Pieces written to the caches before the answer was complete. */
  "cache_stored",
  /** Bytes of origin answers read. */
  "origin_bytes",
  /** Bytes of pieces read from the caches: what the origin did not have to send again. */
  "cache_bytes",
] as const;

/** The one index (`index1`), which Analytics Engine samples by: the tenant digest. */
export const METRIC_INDEX = "tenant";

export interface RequestFigures {
  route: string;
  method: string;
  status: number;
  tenant?: string;
  cache: CacheOutcome;
  durationMs: number;
  origin: { requests: number; ms: number; bytes: number };
  cacheTotals: { hits: number; misses: number; stored: number; bytesRead: number };
  scanned: { rows: number; bytes: number };
}

/** Analytics Engine's data point and dataset, as far as this module uses them (workers-types has both). */
export interface DataPoint {
  blobs: string[];
  doubles: number[];
  indexes: string[];
}
export interface MetricsDataset {
  writeDataPoint(point: DataPoint): void;
}

type Blob = (typeof METRIC_BLOBS)[number];
type Double = (typeof METRIC_DOUBLES)[number];

export function dataPoint(f: RequestFigures): DataPoint {
  const blobs: Record<Blob, string> = {
    route: f.route,
    status: String(f.status),
    tenant: f.tenant ?? "",
    status_class: `${Math.floor(f.status / 100)}xx`,
    cache: f.cache,
    method: f.method,
  };
  const doubles: Record<Double, number> = {
    duration_ms: f.durationMs,
    origin_ms: f.origin.ms,
    origin_requests: f.origin.requests,
    cache_hits: f.cacheTotals.hits,
    cache_misses: f.cacheTotals.misses,
    rows: f.scanned.rows,
    bytes: f.scanned.bytes,
    cache_stored: f.cacheTotals.stored,
    origin_bytes: f.origin.bytes,
    cache_bytes: f.cacheTotals.bytesRead,
  };
  return {
    blobs: METRIC_BLOBS.map((name) => blobs[name]),
    doubles: METRIC_DOUBLES.map((name) => doubles[name]),
    indexes: [f.tenant ?? ""],
  };
}

/**
 * Writes the request's point. `writeDataPoint` returns at once (the runtime sends the point after
 * the response); a failing dataset must not turn an answered request into an error, so it is
 * swallowed. Without a binding nothing is written.
 */
export function writeMetrics(dataset: MetricsDataset | undefined, f: RequestFigures): void {
  if (!dataset) return;
  try {
    dataset.writeDataPoint(dataPoint(f));
  } catch {
    // Metrics are best effort; the log line has the same figures.
  }
}

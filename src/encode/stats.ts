/**
 * Loki's `stats` object. Grafana shows these figures in the query inspector; the summary is filled
 * from what the Worker measured, the rest keeps Loki's shape with zeros.
 */
export interface SummaryFigures {
  bytesProcessed: number;
  linesProcessed: number;
  entriesReturned: number;
  execTimeSeconds: number;
  subqueries: number;
  postFilterLines: number;
  /** Loki's `cache` sections (cache/stats.ts); `{}` when not given. */
  cache?: object;
}

export function statsJson(f: SummaryFigures): string {
  const secs = f.execTimeSeconds > 0 ? f.execTimeSeconds : 1e-9;
  const summary = {
    bytesProcessedPerSecond: Math.round(f.bytesProcessed / secs),
    linesProcessedPerSecond: Math.round(f.linesProcessed / secs),
    totalBytesProcessed: f.bytesProcessed,
    totalLinesProcessed: f.linesProcessed,
    execTime: f.execTimeSeconds,
    queueTime: 0,
    subqueries: f.subqueries,
    totalEntriesReturned: f.entriesReturned,
    splits: f.subqueries,
    shards: 1,
    totalPostFilterLines: f.postFilterLines,
    totalStructuredMetadataBytesProcessed: 0,
  };
  return JSON.stringify({ summary, querier: { store: {} }, ingester: { store: {} }, cache: f.cache ?? {}, index: {} });
}

/** The `stats` object of one answer: what this request scanned, timed from its start. */
import type { LokiRequest } from "../http/context";
import { statsJson } from "../encode/stats";
import type { ScanStats } from "../exec/logs";

const NOTHING_SCANNED: ScanStats = { rowsScanned: 0, bytesScanned: 0, subqueries: 1 };

export function requestStats(r: LokiRequest, s: ScanStats = NOTHING_SCANNED, entries = 0): string {
  r.telemetry.scanned(s.rowsScanned, s.bytesScanned);
  return statsJson({
    bytesProcessed: s.bytesScanned,
    linesProcessed: s.rowsScanned,
    entriesReturned: entries,
    execTimeSeconds: (Date.now() - r.startedAt) / 1000,
    subqueries: s.subqueries,
    postFilterLines: entries,
    cache: r.cacheStats.toJSON(),
  });
}

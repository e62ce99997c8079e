/**
 * The Analytics Engine data point of one request: every figure in its column, within the
 * platform's limits (20 blobs, 20 doubles, one index, 16 KB of blobs), and a dataset that is
 * absent or failing never affects the request.
 */
import { describe, expect, it } from "vitest";
import { dataPoint, METRIC_BLOBS, METRIC_DOUBLES, writeMetrics, type RequestFigures } from "../../../src/http/metrics";

const FIGURES: RequestFigures = {
  route: "/loki/api/v1/label/:name/values",
  method: "GET",
  status: 503,
  tenant: "ac72368a586a18c1",
  cache: "partial",
  durationMs: 41.2,
  origin: { requests: 2, ms: 31.5, bytes: 9000 },
  cacheTotals: { hits: 3, misses: 5, stored: 1, bytesRead: 1200 },
  scanned: { rows: 1812, bytes: 402133 },
};

describe("dataPoint", () => {
  it("puts each figure in its column", () => {
    expect(dataPoint(FIGURES)).toEqual({
      blobs: ["/loki/api/v1/label/:name/values", "503", "ac72368a586a18c1", "5xx", "partial", "GET"],
      doubles: [41.2, 31.5, 2, 3, 5, 1812, 402133, 1, 9000, 1200],
      indexes: ["ac72368a586a18c1"],
    });
  });

  it("keeps the columns dashboards read in place: appended, never moved", () => {
    expect(METRIC_BLOBS.slice(0, 3)).toEqual(["route", "status", "tenant"]);
    expect(METRIC_DOUBLES.slice(0, 7)).toEqual([
      "duration_ms",
      "origin_ms",
      "origin_requests",
      "cache_hits",
      "cache_misses",
      "rows",
      "bytes",
    ]);
  });

  it("stays within Analytics Engine's limits", () => {
    const point = dataPoint({ ...FIGURES, tenant: undefined });
    expect(point.blobs.length).toBeLessThanOrEqual(20);
    expect(point.doubles.length).toBeLessThanOrEqual(20);
    expect(point.indexes).toEqual([""]);
    const blobBytes = point.blobs.reduce((n, b) => n + new TextEncoder().encode(b).length, 0);
    expect(blobBytes).toBeLessThan(16 * 1024);
  });
});

describe("writeMetrics", () => {
  it("writes nothing without a binding, and swallows a failing dataset", () => {
    expect(() => writeMetrics(undefined, FIGURES)).not.toThrow();
    const failing = {
      writeDataPoint() {
        throw new Error("dataset unavailable");
      },
    };
    expect(() => writeMetrics(failing, FIGURES)).not.toThrow();
  });
});

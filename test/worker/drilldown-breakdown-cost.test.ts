/**
 * What a Drilldown breakdown past `max_query_series` costs the Worker at 50,000 distinct values an
 * hour: the rows it reads, and the bytes it receives from the origin (its telemetry line), for each
 * pushed kind. Computed group-first, the Worker reads no row and receives the buckets of the
 * answer's 500 groups, however many distinct values there are.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import type { Env } from "../../src/config";
import { DEFAULT_SERVICE_NAME_LABELS } from "../../src/engine/derived-fields";
import { pushCounted } from "./support/metric-answers";
import { GATEWAY } from "./support/gateway";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const TENANT = "30:2";
const VALUES = 50_000;
const PODS = 5_000;
const LIMIT = 500;

interface Cost {
  status: number;
  series: number;
  rows: number;
  originBytes: number;
  originRequests: number;
  ms: number;
}

async function cost(query: string): Promise<Cost> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
  const ctx = createExecutionContext();
  const params = { query, start: String(DATA_START), end: String(DATA_START + 3600), step: "300" };
  let status: number;
  let series = 0;
  try {
    const res = await createApp().fetch(
      new Request(`http://loki.test/loki/api/v1/query_range?${new URLSearchParams(params)}`, {
        headers: { ...GATEWAY, "X-Scope-OrgID": TENANT, "X-Query-Tags": "Source=grafana-lokiexplore-app" },
      }),
      {
        ...(env as Env),
        CACHE: "off",
        PUSHDOWN: "on",
        MAX_QUERY_SERIES: String(LIMIT),
        DISCOVER_LOG_LEVELS: "true",
        DISCOVER_SERVICE_NAME: DEFAULT_SERVICE_NAME_LABELS.join(","),
      },
      ctx,
    );
    status = res.status;
    const body = await res.text();
    if (status === 200) series = JSON.parse(body).data.result.length;
    await waitOnExecutionContext(ctx);
  } finally {
    spy.mockRestore();
  }
  const line = lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l))[0];
  return {
    status,
    series,
    rows: line.scanned.rows,
    originBytes: line.origin.bytes,
    originRequests: line.origin.requests,
    ms: line.durationMs,
  };
}

beforeAll(async () => {
  const values: unknown[] = [];
  for (let i = 0; i < VALUES; i++) {
    const ts = `${BigInt(DATA_START) * 1_000_000_000n + 1n + BigInt(Math.floor((i * 3600e9) / VALUES))}`;
    const level = ["info", "error", "warn"][i % 3];
    const line = JSON.stringify({ level, trace_id: `t${String(i).padStart(6, "0")}`, latency_ms: i % 97 });
    values.push([ts, line, { pod: `pod-${i % PODS}` }]);
  }
  const streams = [{ stream: { app: "ddcost" }, values }];
  await pushCounted(TENANT, "ddcost", streams, DATA_START + 1800);
}, 180_000);

describe(`a Drilldown breakdown over ${VALUES} values an hour, past the limit of ${LIMIT}`, () => {
  it.each([
    [
      "parser push-down",
      'sum by (trace_id) (count_over_time({app="ddcost"} | json | drop __error__, __error_details__ | trace_id!="" [5m]))',
    ],
    [
      "bucket push-down, a metadata field as Drilldown asks for it",
      'sum by (pod) (count_over_time({app="ddcost"} | pod!="" [5m]))',
    ],
    ["level push-down", 'sum by (pod, detected_level) (count_over_time({app="ddcost"} [5m]))'],
    ["guarded unwrap", 'sum by (pod) (sum_over_time({app="ddcost"} | json | unwrap latency_ms [5m]))'],
    [
      "scalar over the parser push-down",
      'sum by (trace_id) (count_over_time({app="ddcost"} | json | drop __error__ [5m])) / 300',
    ],
  ])(
    "%s: no row read, the buckets of the answer's groups only",
    async (_, query) => {
      const c = await cost(query);
      console.info(`${query}\n  ${JSON.stringify(c)}`);
      expect(c.status).toBe(200);
      expect(c.series).toBe(LIMIT);
      expect(c.rows).toBe(0);
      // 500 groups × 13 buckets of a few dozen bytes each, and the group query's 501 rows.
      expect(c.originBytes).toBeLessThan(1_000_000);
    },
    120_000,
  );
});

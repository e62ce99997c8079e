/**
 * When the step is longer than the range, the pushed-down plans leave out the rows between the
 * windows (plan/metric-pushdown.ts, inWindowsFilter). Rows on each side of every window edge, to
 * the nanosecond, must count exactly as local evaluation counts them, for every kind of push-down.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { pushCounted, pushedAndLocal } from "./support/metric-answers";
import type { Env } from "../../src/config";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const TENANT = { "X-Scope-OrgID": "26:7" };
const DISCOVERY: Partial<Env> = { DISCOVER_LOG_LEVELS: "true" };
const S = 1_000_000_000n;
const STEP = 600;
const params = { start: String(DATA_START + STEP), end: String(DATA_START + 5 * STEP), step: String(STEP) };

/**
 * For each evaluation time t of `params`, rows at the edges of the 1 min window (t − 60 s, t]:
 * three inside it (t, t − 1 ns, t − 60 s + 1 ns) and four outside (t + 1 ns, t − 60 s,
 * t − 60 s − 1 ns, and the middle of the gap before it).
 */
function edgeTimes(): bigint[] {
  const times: bigint[] = [];
  for (let k = 1; k <= 5; k++) {
    const t = BigInt(DATA_START + k * STEP) * S;
    times.push(t, t - 1n, t - 60n * S + 1n, t + 1n, t - 60n * S, t - 60n * S - 1n, t - 300n * S);
  }
  return times;
}

describe("push-down with gaps between the windows (step longer than the range)", () => {
  beforeAll(async () => {
    const times = edgeTimes();
    const streams = [
      {
        stream: { app: "gaps", fmt: "json" },
        values: times.map((t, i) => [String(t), `{"g":"a","latency_ms":${i},"level":"warn","msg":"x"}`]),
      },
      {
        stream: { app: "gaps", fmt: "logfmt" },
        values: times.map((t, i) => [String(t), `g=b n=${i} level=error msg=y`]),
      },
    ];
    // The lines lie within the hour around this time, where pushCounted counts them.
    await pushCounted("26:7", "gaps", streams, DATA_START + 1800);
  });

  it("counts the rows on the windows' edges as local evaluation does", async () => {
    const { pushed } = await pushedAndLocal('sum by (fmt) (count_over_time({app="gaps"}[1m]))', params, TENANT);
    expect(pushed.linesScanned).toBe(0);
    // Three rows in each window, per stream.
    for (const points of pushed.series.values()) expect(points.map((p) => p[1])).toEqual(["3", "3", "3", "3", "3"]);
    expect(pushed.series.size).toBe(2);
  });

  it.each([
    'sum(bytes_rate({app="gaps"}[1m] offset 1m))',
    'sum by (g) (count_over_time({app="gaps", fmt="logfmt"} | logfmt | n > 3 [1m]))',
    'sum by (g) (count_over_time({app="gaps", fmt="json"} | json | drop __error__, __error_details__ [1m]))',
    'sum by (fmt) (sum_over_time({app="gaps", fmt="json"} | json | unwrap latency_ms [1m]))',
    'quantile_over_time(0.5, {app="gaps", fmt="json"} | json | unwrap latency_ms [1m]) by (fmt)',
    'sum by (detected_level) (count_over_time({app="gaps"} | drop __error__ [1m]))',
  ])("%s: pushed equals local, and reads no rows", async (query) => {
    const { pushed } = await pushedAndLocal(query, params, TENANT, DISCOVERY);
    expect(pushed.series.size).toBeGreaterThan(0);
    expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
  });
});

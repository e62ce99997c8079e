/**
 * Label values read with Go's parsers, end to end against a real VictoriaLogs: a duration filter
 * compares what time.ParseDuration reads (0.5005s is exactly 500500000ns), and a duration unwrap
 * converts with Duration.Seconds().
 */
import { beforeAll, describe, expect, it } from "vitest";
import { pushStreams } from "../support/push-streams";
import { call } from "./support/request";

const TENANT = "28:1";
const T = 1769990400; // 2026-02-02T00:00:00Z
const at = (s: number) => String(BigInt(T + s) * 1_000_000_000n);

const LINES = ["latency=0.5005s", "latency=500.4ms", "latency=500500us", "latency=0.5006s"];
const STREAMS = [{ stream: { app: "gox" }, values: LINES.map((l, i) => [at(10 + i), l]) }];

async function get(path: string, params: Record<string, string>): Promise<any> {
  const res = await call(path, params, { headers: { "X-Scope-OrgID": TENANT }, env: { CACHE: "off" } });
  expect(res.status, res.body).toBe(200);
  return res.json.data;
}

const W = { start: String(T), end: String(T + 3600), limit: "100" };
const linesOf = (data: any): string[] => data.result.flatMap((s: any) => s.values.map((v: string[]) => v[1])).sort();

beforeAll(async () => {
  await pushStreams(TENANT, STREAMS, async () => {
    const n = linesOf(await get("/loki/api/v1/query_range", { ...W, query: '{app="gox"}' })).length;
    return n === LINES.length || `${n} of ${LINES.length} lines`;
  });
});

describe("Go durations in label filters and unwraps", () => {
  it("`latency >= 0.5005s` and `>= 500.5ms` keep latency=0.5005s, as Loki does", async () => {
    const expected = ["latency=0.5005s", "latency=0.5006s", "latency=500500us"];
    for (const bound of ["0.5005s", "500.5ms"]) {
      const data = await get("/loki/api/v1/query_range", {
        ...W,
        query: `{app="gox"} | logfmt | latency >= ${bound}`,
      });
      expect(linesOf(data), bound).toEqual(expected);
    }
  });

  it("unwrap duration() sums Duration.Seconds() of each value", async () => {
    const data = await get("/loki/api/v1/query", {
      query: 'sum(sum_over_time({app="gox"} | logfmt | unwrap duration(latency) [1h]))',
      time: String(T + 3600),
    });
    expect(Number(data.result[0].value[1])).toBeCloseTo(0.5005 + 0.5004 + 0.5005 + 0.5006, 12);
  });
});

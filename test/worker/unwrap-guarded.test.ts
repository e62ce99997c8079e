/**
 * An unwrap push-down whose guard matches some rows (values or lines VictoriaLogs might read
 * otherwise than Loki) aggregates only the other rows in the origin, and the Worker aggregates the
 * guard's rows and merges them in: sums added (before a rate divides), extremes compared, an
 * average from both sides' sums and counts. The answer is the Worker's own evaluation of every row
 * (push-down off), while only the guard's rows are read. Each stream holds plain lines and a few
 * odd ones the guard must match (an escaped key, a value in exponent or hex form, a repeated key,
 * a lenient number, an odd quote, metadata named like a capture); the rows read must be exactly
 * the odd ones.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { askMetric, expectSameAnswer } from "./support/metric-answers";
import { expectInstantReadBack, expectReadBack, LINES, pushOddLines, type Line } from "./support/odd-lines";

const DATA_START = 1769990400; // 2026-02-02T00:00:00Z
const TENANT_ID = "26:96";
const TENANT = { "X-Scope-OrgID": TENANT_ID };

const METHODS = ["GET", "POST", "PUT"];
const plainJson = (i: number) =>
  JSON.stringify({ method: METHODS[i % 3], path: `/p${i % 2}`, latency: Number(((i * 37) % 101) + 0.25 * (i % 4)) });
const plainLogfmt = (i: number) => `level=${i % 3 === 0 ? "error" : "info"} job=j${i % 2} attempt=${(i * 5) % 11}`;
const plainNginx = (i: number) =>
  `10.0.0.${i % 5} - - [02/Feb/2026] "${METHODS[i % 3]} /p${i % 2} HTTP/1.1" ${i % 4 === 0 ? 503 : 200} ${100 + i}`;

/** Odd lines, each placed among the plain ones (their index in the stream), by stream. */
const ODD: Record<string, Record<number, Line>> = {
  json: {
    3: String.raw`{"meth\u006fd":"DELETE","path":"/p1","latency":5}`,
    11: '{"method":"GET","path":"/p1","latency":1e3}',
    19: '{"method":"POST","path":"/p1","latency":7,"latency":900}',
    27: '{"latency":+1,"method":"PUT","path":"/p1"}',
  },
  logfmt: {
    5: 'level=error job="j1 attempt=9',
    13: String.raw`level=warn job=j\u0030 attempt=8`,
    21: "level=error job=j1 attempt=4 attempt=50",
    29: "level=info job=j1 attempt=0x10",
  },
  nginx: {
    7: '10.0.0.9 - - [02/Feb/2026] "GET /p1 HTTP/1.1" 200 1e3',
    17: ['10.0.0.8 - - [02/Feb/2026] "POST /p0 HTTP/1.1" 503 88', { size: "77" }],
  },
};
const PLAIN: Record<string, (i: number) => string> = { json: plainJson, logfmt: plainLogfmt, nginx: plainNginx };

const NGINX = String.raw`(?P<ip>\S+) - - \[[^\]]*\] "(?P<method>\S+) (?P<path>\S+) [^"]*" (?P<status>\S+) (?P<size>\S+)`;
const JSON_ODD = [3, 11, 19, 27];
const LOGFMT_ODD = [5, 13, 21, 29];

/** Each query, with the odd lines (their indexes) its guard matches. */
const QUERIES: [string, number[]][] = [
  // Grouped by a stream label, and by a label of the lines (Loki's values of it).
  ['sum by (set) (sum_over_time({app="ug", set="json"} | json | unwrap latency | __error__="" [1m]))', JSON_ODD],
  ['sum by (method) (sum_over_time({app="ug", set="json"} | json | unwrap latency | __error__="" [1m]))', JSON_ODD],
  ['sum(rate({app="ug", set="json"} | json | unwrap latency | __error__="" [2m]))', JSON_ODD],
  ['max_over_time({app="ug", set="json"} | json | unwrap latency | __error__="" [1m]) by (app)', JSON_ODD],
  ['min by (method) (min_over_time({app="ug", set="json"} | json | unwrap latency | __error__="" [2m]))', JSON_ODD],
  ['avg_over_time({app="ug", set="json"} | json | unwrap latency | __error__="" [2m]) by (path)', JSON_ODD],
  [
    'avg_over_time({app="ug", set="json"} | json | path="/p1" | unwrap latency | __error__="" [1m]) by (method)',
    JSON_ODD,
  ],
  ['sum by (job) (sum_over_time({app="ug", set="logfmt"} | logfmt | unwrap attempt | __error__="" [1m]))', LOGFMT_ODD],
  [
    'max_over_time({app="ug", set="logfmt"} | logfmt | attempt > 2 | unwrap attempt | __error__="" [2m]) by (level)',
    LOGFMT_ODD,
  ],
  ['avg_over_time({app="ug", set="logfmt"} | logfmt | unwrap attempt | __error__="" [2m]) by (job)', LOGFMT_ODD],
  [
    `sum by (method) (sum_over_time({app="ug", set="nginx"} | regexp \`${NGINX}\` | unwrap size | __error__="" [1m]))`,
    [7, 17],
  ],
  [
    `min_over_time({app="ug", set="nginx"} | regexp \`${NGINX}\` | unwrap size | __error__="" [2m]) by (status)`,
    [7, 17],
  ],
  [`sum(rate({app="ug", set="nginx"} | regexp \`${NGINX}\` | unwrap size | __error__="" [2m]))`, [7, 17]],
];

const RANGE = { start: String(DATA_START), end: String(DATA_START + LINES * 10), step: "30" };

describe("rows an unwrap push-down's guard matches are aggregated apart", () => {
  beforeAll(() => pushOddLines(TENANT_ID, "ug", DATA_START, PLAIN, ODD));

  it.each(QUERIES)("%s", (query, odd) => expectReadBack(query, RANGE, TENANT, odd.length, { every: true }));

  it("instant queries merge the guard's rows too", () => expectInstantReadBack(QUERIES, DATA_START, TENANT));

  it("a guard row Loki fails the query on fails it alike", async () => {
    // Without `__error__=""`, the hex value is a conversion error in Loki: the query fails.
    const query = 'sum by (job) (sum_over_time({app="ug", set="logfmt"} | logfmt | unwrap attempt [1m]))';
    const [pushed, local] = await Promise.all([
      askMetric(query, RANGE, true, TENANT),
      askMetric(query, RANGE, false, TENANT),
    ]);
    expect(local.status, local.body).toBe(400);
    expectSameAnswer(pushed, local, query);
  });
});

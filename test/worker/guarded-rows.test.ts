/**
 * A counting push-down whose guard matches some rows (lines VictoriaLogs might read otherwise than
 * Loki) counts only those rows in the Worker and adds them to the origin's counts: the answer is
 * the Worker's own evaluation of every row (push-down off), while only the guard's rows are read.
 * Each stream below holds plain lines and a few odd ones the guard must match (an escaped key,
 * a repeated key, a nested object, a lenient number, an odd quote, a typed value in exponent form,
 * structured metadata named like a capture); the rows read must be exactly the odd ones.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { askMetric } from "./support/metric-answers";
import { expectInstantReadBack, expectReadBack, LINES, pushOddLines, type Line } from "./support/odd-lines";
import type { Env } from "../../src/config";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const TENANT_ID = "26:95";
const TENANT = { "X-Scope-OrgID": TENANT_ID };

const METHODS = ["GET", "POST", "PUT"];
const plainJson = (i: number) =>
  JSON.stringify({ method: METHODS[i % 3], status: i % 4 === 0 ? 503 : 200, path: `/p${i % 2}` });
const plainLogfmt = (i: number) => `level=${i % 3 === 0 ? "error" : "info"} job=j${i % 2} attempt=${i % 7}`;
const plainNginx = (i: number) =>
  `10.0.0.${i % 5} - - [01/Feb/2026] "${METHODS[i % 3]} /p${i % 2} HTTP/1.1" ${i % 4 === 0 ? 503 : 200} ${100 + i}`;

/** Odd lines, each placed among the plain ones (their index in the stream), by stream. */
const ODD: Record<string, Record<number, Line>> = {
  json: {
    3: String.raw`{"meth\u006fd":"DELETE","status":500}`,
    11: '{"method":"GET","method":"POST","status":504}',
    19: '{"method":{"verb":"GET"},"status":200}',
    27: '{"status":+1,"method":"PATCH"}',
  },
  logfmt: {
    5: 'level=error job="j1 attempt=9',
    13: String.raw`level=warn job=j\u0030 attempt=8`,
    21: "level=error job=j1 job=j2 attempt=4",
  },
  // Lines whose level the origin's reduced inputs do not settle: objects nested deeper than its
  // regexes read, or an array of objects, before the level member; such an object and no level
  // member (but the word); logfmt pairs without a level.
  levels: {
    4: '{"http":{"p":{"q":{"r":1}}},"level":"error","msg":"n"}',
    // A logfmt pair the reduction does not read (`lvl`), and a string level member after an array of
    // objects: inputs that do not settle the level.
    9: "lvl=warn msg=hello user=bob",
    14: '{"a":[{"x":1}],"level":"warn"}',
    22: '{"http":{"p":{"q":[{}]}},"severity":"warn","msg":"m"}',
  },
  nginx: {
    7: '10.0.0.9 - - [01/Feb/2026] "GET /p1 HTTP/1.1" 1e3 77',
    17: ['10.0.0.8 - - [01/Feb/2026] "POST /p0 HTTP/1.1" 503 88', { status: "meta" }],
  },
};
const plainLevels = (i: number) => JSON.stringify({ level: i % 3 === 0 ? "error" : "info", msg: `m${i}` });
const PLAIN: Record<string, (i: number) => string> = {
  json: plainJson,
  logfmt: plainLogfmt,
  nginx: plainNginx,
  levels: plainLevels,
};

const NGINX = String.raw`(?P<ip>\S+) - - \[[^\]]*\] "(?P<method>\S+) (?P<path>\S+) [^"]*" (?P<status>\S+) (?P<size>\d+)`;

/**
 * Each query, with the odd lines (their indexes) its guard matches: an escape, an odd quote or a
 * lenient number on any line; a repeated key, a nested object, a typed value or metadata only where
 * the query reads that label.
 */
const QUERIES: [string, number[]][] = [
  [
    'sum by (method) (count_over_time({app="gr", set="json"} | json | drop __error__, __error_details__ [1m]))',
    [3, 11, 19, 27],
  ],
  ['sum by (method) (rate({app="gr", set="json"} | json | status >= 500 [2m]))', [3, 11, 19, 27]],
  ['sum(bytes_over_time({app="gr", set="json"} | json | method=~"GET|POST" [5m]))', [3, 11, 19, 27]],
  ['sum by (job) (count_over_time({app="gr", set="logfmt"} | logfmt | attempt > 3 [1m]))', [5, 13, 21]],
  ['sum by (level) (bytes_rate({app="gr", set="logfmt"} | logfmt [2m]))', [5, 13]],
  [
    `sum by (method) (count_over_time({app="gr", set="nginx"} | regexp \`${NGINX}\` | status >= 500 | drop __error__, __error_details__ [1m]))`,
    [7, 17],
  ],
  [`sum by (status) (count_over_time({app="gr", set="nginx"} | regexp \`${NGINX}\` [1m]))`, [17]],
];

/** Loki's level discovery (detected_level), as Explore's logs volume counts by it. */
const DISCOVERY: Partial<Env> = { DISCOVER_LOG_LEVELS: "true" };

const RANGE = { start: String(DATA_START), end: String(DATA_START + LINES * 10), step: "30" };

describe("rows a counting push-down's guard matches are counted apart", () => {
  beforeAll(() => pushOddLines(TENANT_ID, "gr", DATA_START, PLAIN, ODD));

  it.each(QUERIES)("%s", (query, odd) => expectReadBack(query, RANGE, TENANT, odd.length, { every: true }));

  it("instant queries add the guard's rows too", () => expectInstantReadBack(QUERIES, DATA_START, TENANT));

  it("Explore's logs volume over a parser (the level counts) adds the guard's rows too", async () => {
    // The method is not read here: its repeated key and nested object are no odd lines.
    const volume: [string, number[]][] = [
      [
        'sum by (level, detected_level) (count_over_time({app="gr", set="json"} | json | status >= 500 | drop __error__, __error_details__ [1m]))',
        [3, 27],
      ],
      ['sum by (detected_level) (count_over_time({app="gr", set="logfmt"} | logfmt | attempt > 3 [1m]))', [5, 13]],
      [
        `sum by (level, detected_level) (count_over_time({app="gr", set="nginx"} | regexp \`${NGINX}\` | status >= 500 | drop __error__, __error_details__ [1m]))`,
        [7, 17],
      ],
    ];
    for (const [query, odd] of volume) await expectReadBack(query, RANGE, TENANT, odd.length, { vars: DISCOVERY });
  });

  it("the level counts read back the rows of groups whose inputs do not settle the level", async () => {
    // With a level filter the origin keeps only the rows that may have that level: of the odd lines,
    // the one with `"level":"error"`.
    for (const [query, odd] of [
      ['sum by (detected_level) (count_over_time({app="gr", set="levels"} [1m]))', 4],
      ['sum by (level, detected_level) (bytes_over_time({app="gr", set="levels"} [2m]))', 4],
      ['sum(count_over_time({app="gr", set="levels"} | detected_level="error" [1m]))', 1],
      [
        'sum by (detected_level) (count_over_time({app="gr", set="levels"} | json | drop __error__, __error_details__ [1m]))',
        4,
      ],
    ] as const) {
      await expectReadBack(query, RANGE, TENANT, odd, { vars: DISCOVERY });
    }
  });

  it("the series push-down (alerts) reads back the rows of groups whose level is not settled", async () => {
    for (const query of [
      'count_over_time({app="gr", set="levels"} [1m])',
      'max by (detected_level) (rate({app="gr", set="levels"} [2m]))',
      'sum by (detected_level) (bytes_over_time({app="gr", set="levels"} |= "m" [1m]))',
    ]) {
      const odd = Object.values(ODD.levels!).filter((line) => !query.includes('|= "m"') || String(line).includes("m"));
      await expectReadBack(query, RANGE, TENANT, odd.length, { vars: DISCOVERY });
    }
  });

  it("within MAX_LOCAL_ROWS when only the guard's rows are read", async () => {
    const query = QUERIES[0]![0];
    const vars = { MAX_LOCAL_ROWS: "10" };
    const pushed = await askMetric(query, RANGE, true, TENANT, false, vars);
    expect(pushed.status, pushed.body).toBe(200);
    expect(pushed.linesScanned).toBe(4);
    const local = await askMetric(query, RANGE, false, TENANT, false, vars);
    expect(local.status).toBe(400);
  });
});

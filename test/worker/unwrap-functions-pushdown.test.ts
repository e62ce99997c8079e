/**
 * `rate` over an unwrap under `sum` / `sum by`, and `stdvar_over_time`, `stddev_over_time`,
 * `first_over_time` and `last_over_time` by labels, pushed down: every query is answered pushed and by the Worker from whole lines
 * (PUSHDOWN=off) against the real VictoriaLogs, and the two must agree; the tests also check which
 * answers really were pushed (no rows read into the Worker), so the property never just compares
 * local evaluation with itself.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { askMetric, expectSameAnswer, pushCounted, pushedAndLocal } from "./support/metric-answers";
import { exactValue } from "./support/exact-values";
import { expectBucketsNotLines } from "./support/traffic";
import { unwrapProperties } from "./support/unwrap-properties";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;

describe("rate, variances, first and last over unwrap on the compat data", () => {
  unwrapProperties({
    selectors: [
      '{app=~"checkout|payments"}',
      '{app="api-gateway", namespace="prod"}',
      '{namespace="prod"} |= "order"',
      '{app="checkout"}',
    ],
    shapes: [
      (s: string) => `sum by (app) (rate(${s}))`,
      (s: string) => `sum(rate(${s}))`,
      (s: string) => `sum by (method) (rate(${s}))`,
      (s: string) => `sum by (cluster, namespace) (rate(${s}))`,
      (s: string) => `stddev_over_time(${s}) by (cluster)`,
      (s: string) => `stdvar_over_time(${s}) by (app, pod)`,
      (s: string) => `stddev_over_time(${s}) by (path)`,
      (s: string) => `stdvar_over_time(${s}) by (method, namespace)`,
      (s: string) => `first_over_time(${s}) by (path)`,
      (s: string) => `last_over_time(${s}) by (cluster)`,
      (s: string) => `first_over_time(${s}) by (app, pod)`,
      (s: string) => `last_over_time(${s}) by (method)`,
    ],
    range: { numRuns: 48, seed: 20261126, minPushed: 10 },
    instant: { numRuns: 20, seed: 20261127 },
  });

  it("sums, variances, firsts and lasts: the origin sends buckets, not lines", async () => {
    const params = { start: String(DATA_START), end: String(DATA_END), step: "60" };
    await expectBucketsNotLines('sum(rate({app="checkout"} | json | unwrap latency_ms [5m])) by (method)', params, {
      atLeast: 10_000,
    });
    await expectBucketsNotLines(
      'stddev_over_time({app="checkout"} | json | unwrap latency_ms [5m]) by (path)',
      params,
      { atLeast: 10_000 },
    );
    await expectBucketsNotLines(
      'stdvar_over_time({app="checkout"} | json | unwrap latency_ms [5m]) by (path)',
      params,
      { atLeast: 10_000 },
    );
    await expectBucketsNotLines('first_over_time({app="checkout"} | json | unwrap latency_ms [5m]) by (path)', params, {
      atLeast: 10_000,
    });
    await expectBucketsNotLines('last_over_time({app="checkout"} | json | unwrap latency_ms [5m]) by (path)', params, {
      atLeast: 10_000,
    });
  });

  it("pushes conversions, filters, logfmt, offsets and stream-label groupings", async () => {
    const params = { start: String(DATA_START), end: String(DATA_END), step: "600" };
    for (const query of [
      'sum by (app) (rate({app=~"checkout|payments"} | json | unwrap bytes [10m]))',
      'sum(rate({app="checkout"} | json | status >= 500 | unwrap latency_ms [5m]))',
      'sum by (job) (rate({app="worker"} | logfmt | unwrap attempt [10m]))',
      'sum by (app) (rate({app="payments"} | json | unwrap bytes(bytes) [10m]))',
      'sum by (pod) (rate({app="checkout"} | json | unwrap duration(duration) | __error__="" [30m]))',
      'sum(rate({app="payments"} | json | unwrap latency_ms [15m] offset 30m))',
      'stddev_over_time({app=~"checkout|payments"} | json | unwrap latency_ms [10m]) by (namespace)',
      'stdvar_over_time({app="checkout"} | json | unwrap bytes [1h]) by (app)',
      'stddev_over_time({namespace="prod"} |= "order" | json | unwrap bytes | __error__="" [30m]) by (cluster, pod)',
      'topk(2, stdvar_over_time({app="api-gateway"} | json | unwrap latency_ms [5m]) by (pod))',
      'stddev_over_time({app="payments"} | json | unwrap latency_ms [15m] offset 30m) by (namespace)',
      'stddev_over_time({app="payments"} | json | unwrap bytes [10m]) by (app)',
      'stddev_over_time({app="payments"} | json | unwrap bytes(bytes) [10m]) by (app)',
      'stdvar_over_time({app="checkout"} | json | unwrap duration(duration) [30m]) by (pod)',
      'stddev_over_time({app="worker"} | logfmt | attempt > 1 | unwrap attempt [10m]) by (job)',
      'stdvar_over_time({app="checkout"} | json | method="GET" | unwrap latency_ms [5m]) by (path)',
      'first_over_time({app=~"checkout|payments"} | json | unwrap bytes [10m]) by (app)',
      'last_over_time({app="worker"} | logfmt | unwrap attempt | __error__="" [10m]) by (job)',
      'last_over_time({app="checkout"} | json | status >= 500 | unwrap latency_ms [30m] offset 30m) by (pod)',
      'first_over_time({namespace="prod"} |= "order" | json | unwrap bytes [5m]) by (cluster, method)',
    ]) {
      const { pushed, local } = await pushedAndLocal(query, params);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(local.series.size, query).toBeGreaterThan(0);
    }
  });

  it("keeps what the enclosing aggregation does not fold on whole lines", async () => {
    const params = { start: String(DATA_START), end: String(DATA_START + 3600), step: "600" };
    for (const query of [
      // Per stream: one series for each, with every parsed label.
      'rate({app="payments"} | json | unwrap latency_ms [10m])',
      'avg by (app) (rate({app="payments"} | json | unwrap latency_ms [10m]))',
      'max by (app) (rate({app="payments"} | json | unwrap latency_ms [10m]))',
      'sum without (pod) (rate({app="payments"} | json | unwrap latency_ms [10m]))',
      'stddev_over_time({app="payments"} | json | unwrap latency_ms [10m])',
      'stdvar_over_time({app="payments"} | json | unwrap latency_ms [10m]) without (pod)',
      'first_over_time({app="payments"} | json | unwrap latency_ms [10m])',
      // Units could order differently on the two sides.
      'last_over_time({app="payments"} | json | unwrap bytes(bytes) [10m]) by (path)',
    ]) {
      const { pushed } = await pushedAndLocal(query, params);
      // Rows were read (or the same error came back): a pushed answer reads none.
      expect(pushed.linesScanned, query).not.toBe(0);
    }
  });
});

/**
 * Values built to probe the variance's rounding and the guard, each set in a stream of its own (in
 * a tenant of its own): a set whose values are all of the exact shape must be pushed; a line Loki
 * and VictoriaLogs might read differently sends the query back to whole lines.
 */
describe("generated values for rate and variances (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:801" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  // Close values of a large magnitude: the variance is small beside the values, where the order of
  // the updates shows most in the rounding.
  const closeValues = fc
    .array(fc.integer({ min: 0, max: 99 }), { minLength: 2, maxLength: 10 })
    .map((xs) => xs.map((x) => `987654321.${String(x).padStart(6, "0")}`));
  const equalValues = fc
    .tuple(exactValue, fc.integer({ min: 2, max: 8 }))
    .map(([v, n]) => Array.from({ length: n }, () => v));
  const TRICKY = [
    '{"v": 1e3}',
    '{"v": "0x1A"}',
    '{"v": -0}',
    '{"v": 5, "v": 7}',
    '{"v": {"x": 1}}',
    '{"v": "10ms"}',
    '{"v": 1234567890}',
    '{"v": 0.1234567}',
    '{"v\\t": 4}',
  ];
  const jsonLine = (v: string, level: string) => `{"msg": "probe", ${level ? `"level": "${level}", ` : ""}"v": ${v}}`;
  const lineSet = fc.record({
    values: fc.oneof(fc.array(exactValue, { minLength: 1, maxLength: 12 }), closeValues, equalValues),
    tricky: fc.array(fc.constantFrom(...TRICKY), { maxLength: 2 }),
    withGroup: fc.boolean(),
  });
  const sets = [
    { values: ["12.5", "12.5", "12.5", "12.5"], tricky: [] as string[], withGroup: true },
    { values: ["987654321.000001", "987654321.000002", "987654321.000004"], tricky: [], withGroup: false },
    ...TRICKY.map((line, k) => ({ values: ["3", "-41.5", "7", "12.25"], tricky: [line], withGroup: k % 2 === 0 })),
    ...fc.sample(lineSet, { numRuns: 20, seed: 26801 }),
  ];

  beforeAll(async () => {
    const streams = sets.map((set, k) => {
      const lines = [...set.values.map((v, i) => jsonLine(v, set.withGroup ? `l${i % 3}` : "")), ...set.tricky];
      return {
        stream: { app: "vgen", set: `s${k}`, ...(set.withGroup ? { group: `g${k % 2}` } : {}) },
        // One line every 7 s from the start, so windows hold several and cut sets in between.
        values: lines.map((line, i) => [String(base + BigInt(i * 7 + k) * 1_000_000_000n), line]),
      };
    });
    await pushCounted("26:801", "vgen", streams, DATA_START);
  });

  const shapes = [
    (s: string) => `sum by (set) (rate(${s} [1m]))`,
    (s: string) => `sum(rate(${s} [30s]))`,
    (s: string) => `sum by (level) (rate(${s} [1m]))`,
    (s: string) => `stddev_over_time(${s} [40s]) by (set)`,
    (s: string) => `stdvar_over_time(${s} [1m]) by (group)`,
    (s: string) => `stddev_over_time(${s} [1m]) by (level, set)`,
    (s: string) => `stdvar_over_time(${s} [5m]) by (set)`,
    // Sets whose numbers are a multiple of 7 apart share times, in groups of the same `group`.
    (s: string) => `first_over_time(${s} [1m]) by (group)`,
    (s: string) => `last_over_time(${s} [30s]) by (set)`,
    (s: string) => `last_over_time(${s} [1m]) by (level)`,
  ];

  it("every set and shape: pushed equals local; exact sets are pushed, others are not", async () => {
    let pushedSets = 0;
    let fellBack = 0;
    for (const [k, set] of sets.entries()) {
      const cases = shapes.flatMap((shape, j) => ["", ' | __error__=""'].map((errf) => ({ shape, j, errf })));
      const answers = await Promise.all(
        cases.map(({ shape, j, errf }) => {
          const query = shape(`{app="vgen", set="s${k}"} | json | unwrap v${errf}`);
          const params = { start: String(DATA_START), end: String(DATA_START + 300), step: j % 2 ? "10" : "30" };
          return Promise.all([askMetric(query, params, true, TENANT), askMetric(query, params, false, TENANT)]).then(
            ([pushed, local]) => ({ pushed, local, query }),
          );
        }),
      );
      for (const { pushed, local, query } of answers) {
        // A variance of close values differs in rounding only (Loki's own order is not the
        // Worker's either): within the compatibility checker's relative 1e-6.
        expectSameAnswer(pushed, local, query, 1e-6);
        if (set.tricky.length === 0) {
          expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
          if (!query.includes("by (level)") && !query.includes("by (group)"))
            expect(local.series.size, query).toBeGreaterThan(0);
          pushedSets++;
        } else if (pushed.status === 200 && pushed.linesScanned > 0) fellBack++;
      }
    }
    expect(pushedSets).toBeGreaterThan(150);
    expect(fellBack).toBeGreaterThan(50);
  });

  it("a variance of equal values is exactly 0, pushed as locally", async () => {
    const query = 'stdvar_over_time({app="vgen", set="s0"} | json | unwrap v [5m]) by (set)';
    const { pushed } = await pushedAndLocal(query, { time: String(DATA_START + 299) }, TENANT);
    expect(pushed.linesScanned).toBe(0);
    expect([...pushed.series.values()].map((points) => points.map((p) => p[1]))).toEqual([["0"]]);
  });
});

/**
 * Samples of one group at the same nanosecond: Loki takes them in an order the origin cannot
 * reproduce, so a first or last is pushed only where they agree; where they disagree the lines are
 * read, as local evaluation reads them.
 */
describe("first and last over samples tied at one time (real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:802" };
  const at = (s: number) => String((BigInt(DATA_START) + BigInt(s)) * 1_000_000_000n);
  const line = (v: string) => `{"msg": "tie", "v": ${v}}`;

  beforeAll(async () => {
    const streams = [
      {
        stream: { app: "tie", src: "a", grp: "x" },
        values: [
          [at(0), line("5")],
          [at(10), line("7")],
          [at(20), line("1")],
        ],
      },
      // Agrees with stream a at 0 s, disagrees at 20 s.
      {
        stream: { app: "tie", src: "b", grp: "x" },
        values: [
          [at(0), line("5.0")],
          [at(20), line("9")],
        ],
      },
      // Within one stream: disagreeing at 5 s, agreeing at 30 s.
      {
        stream: { app: "tie", src: "c", grp: "y" },
        values: [
          [at(5), line("3")],
          [at(5), line("4")],
          [at(30), line("2")],
          [at(30), line("2.000")],
        ],
      },
    ];
    await pushCounted("26:802", "tie", streams, DATA_START);
  });

  const ask = (query: string, from: number, to: number) =>
    pushedAndLocal(query, { start: String(DATA_START + from), end: String(DATA_START + to), step: "5" }, TENANT);

  it("pushes samples tied with equal values", async () => {
    const first = await ask('first_over_time({app="tie", src=~"a|b"} | json | unwrap v [5s]) by (grp)', 0, 15);
    expect(first.pushed.linesScanned).toBe(0);
    expect([...first.pushed.series.values()]).toEqual([
      [
        [DATA_START, "5"],
        [DATA_START + 10, "7"],
      ],
    ]);
    const last = await ask('last_over_time({app="tie", src="c"} | json | unwrap v [5s]) by (grp)', 25, 35);
    expect(last.pushed.linesScanned).toBe(0);
    expect([...last.pushed.series.values()]).toEqual([[[DATA_START + 30, "2"]]]);
  });

  it("reads the lines where tied samples disagree, across streams and within one", async () => {
    for (const [query, from, to] of [
      ['first_over_time({app="tie", src=~"a|b"} | json | unwrap v [5s]) by (grp)', 0, 30],
      ['last_over_time({app="tie"} | json | unwrap v [1m]) by (grp)', 20, 20],
      ['last_over_time({app="tie", src="c"} | json | unwrap v [5s]) by (grp)', 0, 10],
      ['first_over_time({app="tie", src="c"} | json | unwrap v [10s]) by (grp)', 5, 35],
    ] as const) {
      const { pushed } = await ask(query, from, to);
      expect(pushed.linesScanned, query).toBeGreaterThan(0);
    }
  });
});

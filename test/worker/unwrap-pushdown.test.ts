/**
 * Unwrap push-down must never change an answer. Every query is answered twice against the real
 * VictoriaLogs — pushed down, and evaluated by the Worker from rows (PUSHDOWN=off) — and the two
 * must agree in status, series and values. Generated data covers the values where VictoriaLogs and
 * Loki could read a number differently; the tests also check which answers really were pushed (no
 * rows scanned), so the property never just compares local evaluation with itself.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  askMetric,
  expectSameAnswer,
  lineSetStreams,
  pushCounted,
  pushedAcrossSets,
  pushedAndLocal,
} from "./support/metric-answers";
import { exactValue } from "./support/exact-values";
import { expectBucketsNotLines } from "./support/traffic";
import { unwrapProperties } from "./support/unwrap-properties";
import { watchOrigin } from "../support/watch-origin";
import { env } from "cloudflare:workers";
import { readConfig, type Env } from "../../src/config";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;

describe("unwrap push-down on the compat data", () => {
  unwrapProperties({
    selectors: [
      '{app=~"checkout|payments"}',
      '{app="api-gateway", namespace="prod"}',
      '{namespace="prod"} |= "order"',
      '{app="payments"}',
    ],
    shapes: [
      (s: string) => `sum by (app) (sum_over_time(${s}))`,
      (s: string) => `sum(sum_over_time(${s}))`,
      (s: string) => `max by (cluster, namespace) (max_over_time(${s}))`,
      (s: string) => `min(min_over_time(${s}))`,
      (s: string) => `avg_over_time(${s}) by (cluster)`,
      (s: string) => `max_over_time(${s}) by (app, pod)`,
      (s: string) => `max_over_time(${s}) by (method)`,
      (s: string) => `min_over_time(${s}) by (namespace)`,
      (s: string) => `quantile_over_time(0.9, ${s}) by (cluster)`,
      (s: string) => `quantile_over_time(0.25, ${s}) by (app, pod)`,
    ],
    range: { numRuns: 40, seed: 20260202, minPushed: 10 },
    instant: { numRuns: 20, seed: 11 },
  });

  it("pushes integer and decimal fields of the compat data down", async () => {
    const params = { start: String(DATA_START), end: String(DATA_END), step: "600" };
    for (const query of [
      'sum by (app) (sum_over_time({app=~"checkout|payments"} | json | unwrap bytes [10m]))',
      'avg_over_time({app="payments"} | json | unwrap latency_ms [10m]) by (cluster)',
      'max by (namespace) (max_over_time({app="checkout"} | json | unwrap latency_ms | __error__="" [30m]))',
      'quantile_over_time(0.9, {app="payments"} | json | unwrap latency_ms [10m]) by (app)',
      'quantile_over_time(0.5, {namespace="prod"} |= "order" | json | unwrap bytes | __error__="" [30m]) by (cluster, pod)',
      'topk(2, quantile_over_time(0.99, {app="api-gateway"} | json | unwrap latency_ms [5m]) by (pod))',
      'quantile_over_time(0.75, {app="payments"} | json | unwrap latency_ms [15m] offset 30m) by (namespace)',
      // Grouped by labels of the JSON (a second request, grouped by Loki's values of them).
      'sum by (method) (sum_over_time({app="checkout"} | json | unwrap latency_ms [10m]))',
      'quantile_over_time(0.95, {app="checkout"} | json | unwrap latency_ms | __error__="" [10m]) by (method, cluster)',
      'max_over_time({app="payments"} | json | unwrap bytes [10m]) by (level)',
      // `| logfmt`: every value as the counting push-down reads it.
      'max_over_time({app="auth"} | logfmt | unwrap attempt [10m]) by (pod)',
      'sum by (level) (sum_over_time({app="auth"} | logfmt | unwrap attempt | __error__="" [10m]))',
    ]) {
      const { pushed, local } = await pushedAndLocal(query, params);
      expect(pushed.linesScanned, query).toBe(0);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(local.series.size, query).toBeGreaterThan(0);
    }
  });

  it("pushes label filters and drops between the parser and the unwrap", async () => {
    const params = { start: String(DATA_START), end: String(DATA_END), step: "300" };
    for (const query of [
      'sum by (method) (sum_over_time({app="checkout"} | json | status >= 500 | unwrap latency_ms [5m]))',
      'avg_over_time({app="checkout"} | json | method="GET" | unwrap latency_ms [5m]) by (path)',
      'quantile_over_time(0.95, {app="worker"} | logfmt | attempt > 3 | unwrap attempt [5m]) by (job)',
      'max_over_time({app="checkout"} | json | drop __error__ | status=~"5.." | unwrap latency_ms [5m]) by (method)',
      // Grouped by stream labels, several filters, `__error__=""` between, a dropped label.
      'sum by (cluster) (sum_over_time({app=~"checkout|payments"} | json | __error__="" | status < 400 and method!="GET" | unwrap bytes [10m]))',
      'min_over_time({app="checkout"} | json | drop client_ip | status >= 500 or latency_ms > 100 | unwrap latency_ms | __error__="" [10m]) by (pod)',
      'max by (job) (max_over_time({app="worker"} | logfmt | duration > 50ms | size >= 1KB | unwrap attempt [10m]))',
      'sum by (level) (sum_over_time({app="worker"} | logfmt | level=~"warn|error" | unwrap attempt [10m]))',
      // Stages that change no label the answer reads (what the Worker used to read every line for).
      'sum by (app) (sum_over_time({app="payments"} | json | status >= 200 | line_format "{{.bytes}}" | unwrap bytes [10m]))',
      'sum by (app) (sum_over_time({app="payments"} | json | keep app, bytes | unwrap bytes [10m]))',
      'avg_over_time({app="checkout"} | json | label_format route="{{.method}} {{.path}}", who=user_id | unwrap latency_ms [5m]) by (method)',
      'quantile_over_time(0.9, {app="checkout"} | decolorize | json | decolorize | unwrap latency_ms [5m]) by (path)',
    ]) {
      const { pushed, local } = await pushedAndLocal(query, params);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(local.series.size, query).toBeGreaterThan(0);
    }
  });

  it("a label filter before the unwrap: the origin sends buckets, not lines", async () => {
    await expectBucketsNotLines(
      'sum by (method) (sum_over_time({app="checkout"} | json | status >= 500 | unwrap latency_ms [5m]))',
      { start: String(DATA_START), end: String(DATA_END), step: "300" },
      { atLeast: 500 },
    );
  });

  it("projects what stays local: the origin sends values, not lines", async () => {
    const params = { start: String(DATA_START), end: String(DATA_END), step: "600" };
    // Ranges that are no multiple of a second: buckets of 1 ms, too many to push down.
    for (const query of [
      'stddev_over_time({app=~"checkout|payments"} | json | unwrap latency_ms [600001ms]) by (namespace)',
      'stdvar_over_time({app="checkout"} | json | unwrap bytes [3600001ms]) by (app)',
      'stddev_over_time({namespace="prod"} |= "order" | json | unwrap bytes | __error__="" [1800001ms]) by (cluster, pod)',
      'topk(2, stdvar_over_time({app="api-gateway"} | json | unwrap latency_ms [300001ms]) by (pod))',
      'stddev_over_time({app="payments"} | json | unwrap latency_ms [900001ms] offset 30m) by (namespace)',
      // Conversions: the values' texts, converted by the Worker.
      'stddev_over_time({app="payments"} | json | unwrap bytes(bytes) [600001ms]) by (app)',
      'stdvar_over_time({app="checkout"} | json | unwrap duration(duration) [1800001ms]) by (pod)',
    ]) {
      const { pushed, local } = await pushedAndLocal(query, params);
      expect(local.series.size, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, query).toBeGreaterThan(0);
      // Values only: a few bytes per row instead of the line.
      expect(pushed.bytesScanned * 5, query).toBeLessThan(local.bytesScanned);
    }
  });

  it("grouped by a label only the lines hold, a projection reads the rows once, as lines", async () => {
    const params = { start: String(DATA_START), end: String(DATA_END), step: "600" };
    const query = 'stddev_over_time({app="checkout"} | json | unwrap latency_ms [600001ms]) by (path)';
    const { pushed, local } = await pushedAndLocal(query, params);
    expect(local.linesScanned).toBeGreaterThan(0);
    // No projected row read before the guard refused them.
    expect(pushed.linesScanned).toBe(local.linesScanned);
  });

  it("keeps order-dependent and converting aggregations on whole lines", async () => {
    const params = { start: String(DATA_START), end: String(DATA_START + 3600), step: "600" };
    for (const query of [
      // Units could order differently on the two sides.
      'first_over_time({app="payments"} | json | unwrap bytes(bytes) [10m]) by (app)',
      'last_over_time({app="payments"} | json | unwrap duration(duration) [10m]) by (pod)',
      // `latency_ms` holds no unit: no value of the duration shape.
      'quantile_over_time(0.9, {app="payments"} | json | unwrap duration(latency_ms) [10m]) by (app)',
      'quantile_over_time(0.9, {app="payments"} | json | unwrap latency_ms [10m])',
    ]) {
      const { pushed, local } = await pushedAndLocal(query, params);
      expect(pushed.bytesScanned, query).toBe(local.bytesScanned);
    }
  });

  it("keeps shapes it cannot prove equal local", async () => {
    const params = { start: String(DATA_START), end: String(DATA_START + 3600), step: "600" };
    for (const query of [
      'avg by (app) (avg_over_time({app="payments"} | json | unwrap bytes [10m]))',
      'sum without (pod) (sum_over_time({app="payments"} | json | unwrap bytes [10m]))',
      // A stage changing a label the answer reads: kept out, renamed, or set by a template.
      'sum by (app) (sum_over_time({app="payments"} | json | keep bytes | unwrap bytes [10m]))',
      'sum by (app) (sum_over_time({app="payments"} | json | label_format b=bytes | unwrap b [10m]))',
      'sum by (app) (sum_over_time({app="payments"} | json | label_format bytes="{{.status}}" | unwrap bytes [10m]))',
      'sum by (app) (sum_over_time({app="payments"} | json | line_format "{{ .bytes | urldecode }}" | unwrap bytes [10m]))',
      'quantile_over_time(0.9, {app="payments"} | json | unwrap latency_ms [10m]) without (pod)',
    ]) {
      const { pushed } = await pushedAndLocal(query, params);
      // Rows were read (or the same error came back): a pushed answer reads none.
      expect(pushed.linesScanned, query).not.toBe(0);
    }
  });
});

/**
 * Lines built to probe number reading and key extraction, each set in a stream of its own (in a
 * tenant of its own). A set whose values are all of the exact shape must be pushed; any other
 * value makes the origin's guard count it and the Worker evaluate locally.
 */
describe("generated values (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "7:7" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const TRICKY_VALUES = [
    "1e3",
    "1E-2",
    "0x1A",
    "0x1p-2",
    "+5",
    "-0",
    "-0.0",
    "007",
    "1_000",
    "1.",
    ".5",
    "NaN",
    "nan",
    "Inf",
    "+Inf",
    "-Inf",
    "infinity",
    "1.5e308",
    "1e400",
    "123456789012345678901234",
    "18446744073709551616",
    "1.2.3",
    "12abc",
    "",
    " 5",
    "5 ",
    "10ms",
    "1h30m",
    "2KB",
    "3MiB",
    "true",
    "null",
    "0.1234567",
    "1234567890.5",
    "1234567890123456",
  ];
  /** One JSON line carrying `v`, written as a number where it is one, else as a string. */
  const jsonLine = (v: string, extra: string) => {
    const asNumber = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(v);
    return `{"msg": "probe", ${extra}"v": ${asNumber ? v : JSON.stringify(v)}}`;
  };
  const ODD_LINES = [
    '{"msg": "no value here"}',
    '{"v": 5, "v": 7}',
    '{"v": {"x": 1}}',
    '{"v": [1, 2]}',
    '{"v": null}',
    '{"v": 5, "broken": }',
    // A value led by an exponent's letter before `v`: VictoriaLogs reads a number, Loki an error.
    '{"x": e1, "v": 5}',
    '{"\\u0076": 5}',
    '{" v ": 4}',
    // Escaped whitespace around the key: Loki unescapes and trims it to `v`, VictoriaLogs keeps it.
    '{"v\\t": 4}',
    '{"\\nv": 4}',
    "v=5 plain logfmt",
    "not json at all",
    '{"v": 5} trailing',
    '{"group": "from-json", "v": 3}',
    '{"a": {"v": 1}, "v": 2}',
    '{"v": "12"}',
    // An escape in a key may change the name (`\u0020`, trimmed: `v`); in a value a surrogate may.
    '{"v\\u0020": 4}',
    '{"\\u2028v": 4}',
    '{"v": 2, "msg": "lone \\udc00"}',
    // Escapes as Go's encoding/json and Python's json.dumps write them, in values: read alike.
    '{"msg": "a\\u0026b \\u003cc\\u003e caf\\u00e9", "v": 6}',
  ];
  /** Lines Loki and VictoriaLogs both skip (no `v` key) or read alike: they must not block push-down. */
  const HARMLESS = [
    '{"msg": "no value here"}',
    "not json at all",
    "v=5 plain logfmt",
    '{"v": "12"}',
    '{"msg": "a\\u0026b \\u003cc\\u003e caf\\u00e9", "v": 6}',
  ];
  const trickyLines = [...TRICKY_VALUES.map((t) => jsonLine(t, "")), ...ODD_LINES];
  const lineSet = fc.record({
    exact: fc.array(exactValue, { minLength: 1, maxLength: 12 }),
    tricky: fc.array(fc.constantFrom(...trickyLines), { maxLength: 3 }),
    withGroup: fc.boolean(),
  });
  // Every tricky line once on its own among exact values, then random mixtures.
  const sets = [
    ...trickyLines.map((line, k) => ({ exact: ["3", "-41.5", "7"], tricky: [line], withGroup: k % 2 === 0 })),
    ...fc.sample(lineSet, { numRuns: 24, seed: 424242 }),
  ];

  beforeAll(async () => {
    const streams = sets.map((set, k) => {
      const lines = [
        ...set.exact.map((v) => jsonLine(v, set.withGroup ? `"level": "l${k % 3}", ` : "")),
        ...set.tricky,
      ];
      return {
        stream: { app: "gen", set: `s${k}`, ...(set.withGroup ? { group: `g${k % 2}` } : {}) },
        // One line every 7 s from the start, so windows hold several and cut sets in between.
        values: lines.map((line, i) => [String(base + BigInt(i * 7 + k) * 1_000_000_000n), line]),
      };
    });
    await pushCounted("7:7", "gen", streams, DATA_START);
  });

  const shapes = [
    (s: string) => `quantile_over_time(0.5, ${s} [1m]) by (set)`,
    (s: string) => `stddev_over_time(${s} [40s]) by (group)`,
    (s: string) => `sum by (set) (sum_over_time(${s} [30s]))`,
    (s: string) => `sum by (group) (sum_over_time(${s} [1m]))`,
    (s: string) => `avg_over_time(${s} [20s]) by (set)`,
    (s: string) => `min by (set) (min_over_time(${s} [1m]))`,
    (s: string) => `max_over_time(${s} [5m]) by (group, set)`,
    (s: string) => `min_over_time(${s} [40s]) by (group)`,
    // Grouped by a label of the JSON, for the sets that have it.
    (s: string) => `sum by (level) (sum_over_time(${s} [30s]))`,
    (s: string) => `quantile_over_time(0.5, ${s} [1m]) by (level, set)`,
  ];

  it("every set and shape: pushed equals local; exact sets are pushed, others are not", async () => {
    let pushedSets = 0;
    let fellBack = 0;
    for (const [k, set] of sets.entries()) {
      // One set's queries at once: the origin and the Worker overlap their waits.
      const cases = shapes.flatMap((shape, j) => ["", ' | __error__=""'].map((errf) => ({ shape, j, errf })));
      const answers = await Promise.all(
        cases.map(({ shape, j, errf }) => {
          const query = shape(`{app="gen", set="s${k}"} | json | unwrap v${errf}`);
          const params = { start: String(DATA_START), end: String(DATA_START + 300), step: j % 2 ? "10" : "30" };
          return pushedAndLocal(query, params, TENANT).then((answer) => ({ ...answer, query, j }));
        }),
      );
      for (const { pushed, local, query } of answers) {
        const exactOnly = set.tricky.every((line) => HARMLESS.includes(line));
        if (exactOnly) {
          expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
          expect(local.series.size, query).toBeGreaterThan(0);
          pushedSets++;
        } else if (pushed.status === 200 && pushed.linesScanned > 0) {
          // Refused: the answer came from whole lines.
          fellBack++;
        }
      }
    }
    expect(pushedSets).toBeGreaterThan(0);
    expect(fellBack).toBeGreaterThan(0);
  });

  it("duration and bytes conversions agree: a quantile on whole lines, a sum reading its guard's rows only", async () => {
    for (const k of sets.keys()) {
      for (const conversion of ["duration", "duration_seconds", "bytes"]) {
        for (const [wrap, whole] of [
          [(s: string) => `sum by (set) (sum_over_time(${s} [1m]))`, false],
          [(s: string) => `quantile_over_time(0.9, ${s} [1m]) by (set)`, true],
        ] as const) {
          const query = wrap(`{app="gen", set="s${k}"} | json | unwrap ${conversion}(v) | __error__=""`);
          const params = { start: String(DATA_START), end: String(DATA_START + 300), step: "30" };
          const { pushed, local } = await pushedAndLocal(query, params, TENANT);
          if (whole) expect(pushed.bytesScanned, query).toBe(local.bytesScanned);
          else expect(pushed.bytesScanned, query).toBeLessThanOrEqual(local.bytesScanned);
        }
      }
    }
  });

  it("asks the origin once for a part pushed beside a projection its guard refuses", async () => {
    // Set 0 holds `"v": 1e3`, which Loki and VictoriaLogs might read differently: the projection's
    // guard finds it and the query is evaluated again from whole lines; the count beside it stands.
    const counted = 'sum by (set) (count_over_time({app="gen", set="s0"}[1m]))';
    // A range of 60001 ms: buckets of 1 ms, too many to push down, so the aggregation is projected.
    const projected = 'stddev_over_time({app="gen", set="s0"} | json | unwrap v [60001ms]) by (set)';
    const query = `${counted} + ${projected}`;
    const params = { start: String(DATA_START), end: String(DATA_START + 300), step: "30" };
    const local = await askMetric(query, params, false, TENANT);
    expect(local.series.size).toBe(1);
    const calls = watchOrigin(readConfig(env as Env).originUrl);
    const pushed = await askMetric(query, params, true, TENANT);
    expectSameAnswer(pushed, local, query);
    expect(calls.filter((c) => c.query.includes("| limit 1 | fields _time"))).toHaveLength(1);
    expect(calls.filter((c) => c.query.includes("count() as __v"))).toHaveLength(1);
  });

  it("grouped by a label of the JSON, a row either plan's guard counts is read in the Worker", async () => {
    // Across every set: some hold values neither plan reads as Loki does.
    const query = 'sum by (level) (sum_over_time({app="gen"} | json | unwrap v | __error__="" [1m]))';
    const { pushed } = await pushedAndLocal(
      query,
      { start: String(DATA_START), end: String(DATA_START + 300), step: "60" },
      TENANT,
    );
    expect(pushed.linesScanned).toBeGreaterThan(0);
  });
});

/**
 * A field with a longer name (`latency_ms`): the guard finds its repeated keys by counting the
 * name's longest part instead of by regex. Every line below is one Loki may read differently from
 * VictoriaLogs, each in a stream of its own beside exact values: each must be read in the Worker
 * (alone for a sum, whose guard rows merge; with the whole stream for a quantile), with the same
 * answer, while the stream of exact values alone is pushed.
 */
describe("repeated and respelled keys of a longer field name (real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "8:8" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const ODD = [
    '{"latency_ms": 5, "latency_ms": 7}',
    '{"latency_ms": 5, "x": {"latency_ms": 9}, "latency_ms": 7}',
    '{"latency-ms": 4, "latency_ms": 6}',
    '{"latency_ms ": 4, "latency_ms": 6}',
    '{"latency\\tms": 4}',
    '{"latency_ms\\n": 4}',
    '{"latency": {"ms": 3}, "latency_ms": 8}',
    '{"latency": {"ms": 3}, "x": {"latency": {"ms": 4}}}',
    '{"latency": {"ms": 3, "ms": 4}}',
    '{"latency": {"ms": 3}, "latency.ms": 4}',
    '{"latency": {"ms": "1e3"}}',
    '{"latency": {"ms": 3}} trailing',
  ];
  const sets = [[], ...ODD.map((line) => [line])];

  beforeAll(async () => {
    const streams = sets.map((odd, k) => ({
      stream: { app: "gen2", set: `s${k}` },
      values: [...["12", "-3.5", "40.25"].map((v) => `{"msg": "probe", "latency_ms": ${v}}`), ...odd].map((line, i) => [
        String(base + BigInt(i * 5 + k) * 1_000_000_000n),
        line,
      ]),
    }));
    await pushCounted("8:8", "gen2", streams, DATA_START);
  });

  it("caches an accepted push-down as its buckets alone, a declined one also as its series", async () => {
    const params = { start: String(DATA_START), end: String(DATA_START + 1800), step: "10" };
    const bucketsOnly = await askMetric(`sum by (set) (count_over_time({app="gen2"}[1m]))`, params, true, TENANT, true);
    const buckets = bucketsOnly.chunks!.stored;
    expect(buckets).toBeGreaterThan(1);
    // Set 0 has no odd line: the origin computes it. Set 7's nested `latency` object beside the
    // top-level key is a guard row: a sum reads it back and merges it (the buckets stand, the row
    // is read again when warm), a quantile declines.
    const sum = (k: number) =>
      `sum by (set) (sum_over_time({app="gen2", set="s${k}"} | json | unwrap latency_ms [1m]))`;
    const quantile = `quantile_over_time(0.5, {app="gen2", set="s7"} | json | unwrap latency_ms [1m]) by (set)`;
    for (const [query, outcome] of [
      [sum(0), "pushed"],
      [sum(7), "merged"],
      [quantile, "declined"],
    ] as const) {
      const local = await askMetric(query, params, false, TENANT);
      const calls = watchOrigin(readConfig(env as Env).originUrl);
      const cold = await askMetric(query, params, true, TENANT, true);
      expectSameAnswer(cold, local, query);
      expect(cold.linesScanned, query).toBe(outcome === "pushed" ? 0 : outcome === "merged" ? 1 : local.linesScanned);
      // The bucket chunks of the same grid, and the chunks of the series when declined.
      if (outcome === "declined") expect(cold.chunks!.stored, query).toBeGreaterThan(buckets);
      else expect(cold.chunks!.stored, query).toBe(buckets);
      calls.length = 0;
      const warm = await askMetric(query, params, true, TENANT, true);
      expectSameAnswer(warm, local, query);
      if (outcome === "merged") {
        expect(warm.linesScanned, query).toBe(1);
        // Only the guard's row is read again (one request per split window): the buckets are cached.
        expect(calls.length, query).toBeGreaterThan(0);
        expect(new Set(calls.map((c) => c.query.includes("| delete __unwrap_*, __guard_*"))), query).toEqual(
          new Set([true]),
        );
      } else expect(calls, query).toHaveLength(0);
    }
  });

  it("reads such a line in the Worker (alone for a sum, the whole stream for a quantile), with the same answer", async () => {
    const params = { start: String(DATA_START), end: String(DATA_START + 120), step: "10" };
    for (const [k, odd] of sets.entries()) {
      for (const [query, merged] of [
        [`sum by (set) (sum_over_time({app="gen2", set="s${k}"} | json | unwrap latency_ms [1m]))`, true],
        [`quantile_over_time(0.5, {app="gen2", set="s${k}"} | json | unwrap latency_ms [1m]) by (set)`, false],
        // Buckets of 1 ms, too many to push down: projected, under the same guard.
        [`stddev_over_time({app="gen2", set="s${k}"} | json | unwrap latency_ms [60001ms]) by (set)`, false],
      ] as const) {
        const { pushed, local } = await pushedAndLocal(query, params, TENANT);
        expect(local.series.size, query).toBeGreaterThan(0);
        if (odd.length === 0) expect(pushed.bytesScanned, `${query} read whole lines`).toBeLessThan(local.bytesScanned);
        else if (merged) expect(pushed.linesScanned, `${query} (${odd[0]}) was not read alone`).toBe(1);
        else
          expect(pushed.bytesScanned, `${query} (${odd[0]}) was not sent back`).toBeGreaterThanOrEqual(
            local.bytesScanned,
          );
      }
    }
  });
});

/**
 * A top-level key spelled with `.` or `-` for the field's `_` (`"latency.ms"`, HTTP headers'
 * `"latency-ms"`), or nested objects (ECS's `{"latency": {"ms": …}}`): Loki names each
 * `latency_ms`, and the origin reads the value from the key VictoriaLogs flattens it to, so such a
 * stream is pushed down, with the same answer, where it holds no other spelling.
 */
describe("a field read from its dotted or dashed key (real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "8:12" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const SPELLINGS = ['"latency.ms"', '"latency-ms"', '"latency": {"ms"'];

  beforeAll(async () => {
    const streams = SPELLINGS.map((key, k) => ({
      stream: { app: "gen4", set: `s${k}` },
      values: ["12", "-3.5", "40.25", "7"].map((v, i) => [
        String(base + BigInt(i * 5 + k) * 1_000_000_000n),
        `{"msg": "probe", ${key}: ${v}${key.includes("{") ? "}" : ""}}`,
      ]),
    }));
    await pushCounted("8:12", "gen4", streams, DATA_START);
  });

  it("pushes the sum and the quantile down, and projects the values for a variance, with the local answer", async () => {
    const params = { start: String(DATA_START), end: String(DATA_START + 120), step: "10" };
    for (const k of SPELLINGS.keys()) {
      // Buckets of 1 ms, too many to push down: the origin sends the values, not the lines.
      const projected = `stddev_over_time({app="gen4", set="s${k}"} | json | unwrap latency_ms [60001ms]) by (set)`;
      const { pushed, local } = await pushedAndLocal(projected, params, TENANT);
      expect(local.series.size, projected).toBeGreaterThan(0);
      expect(pushed.bytesScanned, `${projected} read whole lines`).toBeLessThan(local.bytesScanned);
      for (const query of [
        `sum by (set) (sum_over_time({app="gen4", set="s${k}"} | json | unwrap latency_ms [1m]))`,
        `quantile_over_time(0.5, {app="gen4", set="s${k}"} | json | unwrap latency_ms [1m]) by (set)`,
      ]) {
        const { pushed, local } = await pushedAndLocal(query, params, TENANT);
        expect(local.series.size, query).toBeGreaterThan(0);
        expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
      }
    }
  });
});

/**
 * The guard computes fields of its own (`__guard_…`). A stored field of the same name must never
 * stand in for one: on a row whose value is not of the exact shape, it would be summed in place of
 * the value Loki drops, and the row would not count against the push-down.
 */
describe("a stored field named like one of the guard's (real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "8:9" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const at = (i: number) => String(base + BigInt(i * 5) * 1_000_000_000n);
  const stored = { __guard_exact: "1000" };

  beforeAll(async () => {
    const streams = [
      {
        // Loki drops the "abc" row (`__error__=""`) and sums 3 + 7.
        stream: { app: "gen3", set: "inexact" },
        values: [
          [at(0), '{"v": 3}'],
          [at(1), '{"v": "abc"}', stored],
          [at(2), '{"v": 7}'],
        ],
      },
      {
        // Every value is exact: the stored 1000 must not replace the row's 5.
        stream: { app: "gen3", set: "exact" },
        values: [
          [at(0), '{"v": 3}'],
          [at(1), '{"v": 5}', stored],
        ],
      },
    ];
    await pushCounted("8:9", "gen3", streams, DATA_START);
  });

  it("reads the row's own value, and reads a row it cannot read in the Worker (alone, where its aggregate merges)", async () => {
    const params = { start: String(DATA_START), end: String(DATA_START + 60), step: "10" };
    for (const set of ["inexact", "exact"]) {
      for (const query of [
        `sum by (set) (sum_over_time({app="gen3", set="${set}"} | json | unwrap v | __error__="" [1m]))`,
        `max_over_time({app="gen3", set="${set}"} | json | unwrap v | __error__="" [1m]) by (set)`,
        `quantile_over_time(0.9, {app="gen3", set="${set}"} | json | unwrap v | __error__="" [1m]) by (set)`,
      ]) {
        const { pushed, local } = await pushedAndLocal(query, params, TENANT);
        const values = [...local.series.values()].flat().map(([, v]) => Number(v));
        expect(values.length, query).toBeGreaterThan(0);
        expect(Math.max(...values), query).toBeLessThan(1000);
        if (set === "exact") expect(pushed.bytesScanned, `${query} read whole lines`).toBeLessThan(local.bytesScanned);
        else if (query.startsWith("quantile"))
          expect(pushed.bytesScanned, `${query} was not sent back`).toBeGreaterThanOrEqual(local.bytesScanned);
        // The "abc" row alone, its stored field deleted with the guard's: the Worker reads no `_` field.
        else expect(pushed.linesScanned, `${query} did not read the guard's row alone`).toBe(1);
      }
    }
  });
});

/** `| logfmt | unwrap`: lines built to probe logfmt's reading and number shapes. */
describe("generated logfmt values (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "7:9" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const exact = fc.oneof(
    fc.integer({ min: -99_999, max: 999_999 }).map(String),
    fc
      .tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: 0, max: 999 }))
      .map(([i, f]) => `${i}.${f}`)
      .filter((v) => !/^-0(\.0*)?$/.test(v)),
  );
  const plain = fc
    .tuple(exact, fc.constantFrom("GET", "PUT", "x y"))
    .map(([v, m]) => `level=info method="${m}" v=${v} msg=done`);
  const TRICKY = [
    "v=1e3 method=GET",
    "v=0x10 method=GET",
    "v=-0 method=GET",
    "v=+5 method=GET",
    "v=007 method=GET",
    'v="12" method=GET',
    "v= method=GET",
    "v method=GET",
    "v=5 v=7 method=GET",
    "v=5ms method=GET",
    "v=NaN method=GET",
    'v="5 method=GET',
    '"v"=5 method=GET',
    "v=5\u001b[0m method=GET",
    "v=5\tmethod=GET",
    "v=5 method=GE\\T",
    "v.x=1 v-y=2 method=GET",
    '{"v": 5, "method": "GET"}',
    "no pairs here",
    "method=GET other=1",
  ];
  const sets = [
    ...TRICKY.map((line, k) => ({ plain: fc.sample(plain, { numRuns: 3, seed: k }), tricky: [line], stream: false })),
    { plain: fc.sample(plain, { numRuns: 8, seed: 91 }), tricky: [], stream: false },
    { plain: fc.sample(plain, { numRuns: 8, seed: 92 }), tricky: [], stream: true },
    ...fc.sample(
      fc.record({
        plain: fc.array(plain, { minLength: 1, maxLength: 8 }),
        tricky: fc.array(fc.constantFrom(...TRICKY), { maxLength: 2 }),
        stream: fc.boolean(),
      }),
      { numRuns: 8, seed: 93 },
    ),
  ];

  beforeAll(async () => {
    const streams = sets.map((set, k) => ({
      stream: { app: "lgen", set: `s${k}`, ...(set.stream ? { method: "from-stream" } : {}) },
      values: [...set.plain, ...set.tricky].map((line, i) => [String(base + BigInt(i * 7 + k) * 1_000_000_000n), line]),
    }));
    await pushCounted("7:9", "lgen", streams, DATA_START);
  });

  it("every set and shape: pushed equals local; plain sets are pushed", async () => {
    let pushedSets = 0;
    for (const [k, set] of sets.entries()) {
      for (const shape of [
        (s: string) => `sum by (method) (sum_over_time(${s} [1m]))`,
        (s: string) => `quantile_over_time(0.5, ${s} [1m]) by (set, level)`,
        (s: string) => `max_over_time(${s} [30s]) by (method)`,
      ]) {
        const query = shape(`{app="lgen", set="s${k}"} | logfmt | unwrap v`);
        const params = { start: String(DATA_START), end: String(DATA_START + 300), step: "30" };
        const { pushed, local } = await pushedAndLocal(query, params, TENANT);
        if (set.tricky.length === 0) {
          expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
          expect(local.series.size, query).toBeGreaterThan(0);
          pushedSets++;
        }
      }
    }
    expect(pushedSets).toBeGreaterThanOrEqual(6);
  });
});

/**
 * Label filters (and drops) between the parser and the unwrap: Loki filters on its own reading of
 * the labels, which the origin reproduces under the counting push-down's guard. Lines probe the
 * filtered labels' reading (types, duplicates, respellings, stream and metadata conflicts) and the
 * rows Loki marks with an error (a typed filter on a value it cannot parse, a line its parser
 * rejects after the value): pushed answers equal local ones, clean sets are pushed.
 */
describe("label filters before the unwrap over generated lines (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:6" };
  const word = fc.constantFrom("GET", "PUT", "a", "x-y", "élan");
  const value = fc.oneof(
    fc.integer({ min: -999, max: 99_999 }).map(String),
    fc
      .tuple(fc.integer({ min: -99, max: 999 }), fc.integer({ min: 0, max: 999 }))
      .map(([i, f]) => `${i}.${f}`)
      .filter((v) => !/^-0(\.0*)?$/.test(v)),
  );
  const dur = fc
    .tuple(fc.integer({ min: 0, max: 900 }), fc.constantFrom("ns", "ms", "s", "m"))
    .map(([n, u]) => `${n}${u}`);
  // A line may lack the value or the code: Loki then skips it, or its numeric filter drops it.
  const fields = fc.record(
    { method: word, code: fc.integer({ min: 100, max: 599 }), d: dur, v: value },
    { requiredKeys: ["method", "d"] },
  );
  const plainJson = fields.map(
    ({ method, code, d, v }) =>
      `{"msg": "probe", "method": ${JSON.stringify(method)}, ${code === undefined ? "" : `"code": ${code}, `}"d": "${d}"${v === undefined ? "" : `, "v": ${v}`}}`,
  );
  const plainLogfmt = fields.map(
    ({ method, code, d, v }) =>
      `level=info method=${method}${code === undefined ? "" : ` code=${code}`} d=${d} msg="a probe"${v === undefined ? "" : ` v=${v}`}`,
  );
  const TRICKY_JSON = [
    // A typed filter on a value it cannot parse marks the row (LabelFilterErr): with a value to
    // unwrap the query fails, unless the error is dropped or filtered out.
    '{"method": "GET", "code": "abc", "d": "5ms", "v": 7}',
    '{"method": "GET", "code": "abc", "d": "5ms"}',
    '{"method": "GET", "code": 500, "d": "fast", "v": 7}',
    '{"method": "GET", "code": 500, "d": "5ms", "v": "abc"}',
    // The parser's error after the values, or before them; numbers only one side reads.
    '{"method": "GET", "code": 500, "d": "5ms", "v": 5, "broken": }',
    '{"broken": , "method": "GET", "code": 500, "v": 5}',
    '{"method": "GET", "code": 500, "v": 5, "x": +1}',
    '{"x": +1, "method": "GET", "code": 500, "v": 5}',
    '{"method": "GET", "code": 500, "v": 5, "x": .5}',
    // The filtered labels read otherwise.
    '{"method": "GET", "code": 500, "code": 200, "v": 5}',
    '{"method": "GET", "method": "PUT", "code": 500, "v": 5}',
    '{"method": "GET", "code": 1e3, "v": 5}',
    '{"method": "GET", "code": "500", "v": 5}',
    '{"method": "GET", "code": 500.5, "v": 5}',
    '{"method": "GET", "code": -0, "v": 5}',
    '{"method": "GET", "code": 0x1F4, "v": 5}',
    '{"method": "GET", "code": null, "v": 5}',
    '{"method": "GET", "code": {"x": 500}, "v": 5}',
    '{"method": "GET", "code": [500], "v": 5}',
    '{"method": null, "code": 500, "v": 5}',
    '{"method": "", "code": 500, "v": 5}',
    // Decolorized, the method reads GET.
    '{"method": "G\u001b[1mET", "code": 500, "v": 5}',
    '{"method": {"x": "GET"}, "code": 500, "v": 5}',
    '{"method ": "GET", "code": 500, "v": 5}',
    '{"co\\u0064e": 500, "method": "GET", "v": 5}',
    '{"method": "G\\u0045T", "code": 500, "v": 5}',
    '{"method": "GET", "c": {"ode": 1}, "code": 500, "v": 5}',
    '{"method": "GET", "code": 500, "d": "1.5s", "v": 3}',
    '{"method": "GET", "code": 500, "d": "50us", "v": 3}',
    '{"method": "GET", "code": 500, "d": "7", "v": 3}',
    '{"method": "tab\\there", "code": 404, "v": 3}',
    '  {"method": "GET", "code": 500, "v": 2}',
    '{"method": "GET", "code": 500, "v": 2} trailing',
    "not json at all",
    "method=GET code=500 v=5",
  ];
  const TRICKY_LOGFMT = [
    "method=GET code=abc d=5ms v=7",
    "method=GET code=abc d=5ms",
    "method=GET code=500 d=fast v=7",
    "method=GET code=500 d=5ms v=abc",
    "method=GET code= v=5",
    "method=GET code v=5",
    "method=GET code=500 code=200 v=5",
    "method=GET method=PUT code=500 v=5",
    "method=GET code=1e3 v=5",
    "method=GET code=0500 v=5",
    "method=GET code=500.5 v=5",
    'method="G T" code=500 v=5',
    'method=GET code="500 v=5',
    '"code"=500 method=GET v=5',
    "method=G=T code=500 v=5",
    "method=GET code=500 d=1.5s v=3",
    "method=GET code=500 d=50µs v=3",
    "method=GET\tcode=500 v=3",
    "method=GET code=500 v=5\u001b[0m",
    // Decolorized, the value reads 57 (and the code 500).
    "method=GET code=50\u001b[1m0 v=5\u001b[0m7",
    '{"method": "GET", "code": 500, "v": 5}',
    "no pairs here",
  ];

  type Kind = "json" | "logfmt";
  interface LineSet {
    kind: Kind;
    plain: string[];
    tricky: string[];
    /** `method` as a stream label or as structured metadata, besides the lines'. */
    label?: "stream" | "metadata";
  }
  const plainOf = (kind: Kind, seed: number) =>
    fc.sample(kind === "json" ? plainJson : plainLogfmt, { numRuns: 6, seed });
  const setOf = (kind: Kind) =>
    fc.record({
      kind: fc.constant(kind),
      plain: fc.array(kind === "json" ? plainJson : plainLogfmt, { minLength: 2, maxLength: 10 }),
      tricky: fc.array(fc.constantFrom(...(kind === "json" ? TRICKY_JSON : TRICKY_LOGFMT)), { maxLength: 2 }),
      label: fc.constantFrom(undefined, undefined, "stream" as const, "metadata" as const),
    });
  // Every tricky line once among plain ones, plain sets alone, then random mixtures.
  const sets: LineSet[] = [
    ...TRICKY_JSON.map((line, k) => ({ kind: "json" as const, plain: plainOf("json", k), tricky: [line] })),
    ...TRICKY_LOGFMT.map((line, k) => ({ kind: "logfmt" as const, plain: plainOf("logfmt", k), tricky: [line] })),
    { kind: "json", plain: plainOf("json", 101), tricky: [] },
    { kind: "json", plain: plainOf("json", 102), tricky: [], label: "stream" },
    { kind: "logfmt", plain: plainOf("logfmt", 103), tricky: [] },
    { kind: "logfmt", plain: plainOf("logfmt", 104), tricky: [], label: "stream" },
    { kind: "json", plain: plainOf("json", 105), tricky: [], label: "metadata" },
    ...fc.sample(setOf("json"), { numRuns: 8, seed: 2606 }),
    ...fc.sample(setOf("logfmt"), { numRuns: 8, seed: 2607 }),
  ];

  beforeAll(async () => {
    const streams = lineSetStreams("ufgen", sets, DATA_START, {
      stream: { method: "GET" },
      metadata: { method: "PUT" },
    });
    await pushCounted("26:6", "ufgen", streams, DATA_START);
  });

  const shapes = (parser: string, sel: string) => [
    `sum by (set) (sum_over_time(${sel} | ${parser} | code >= 500 | unwrap v [1m]))`,
    `avg_over_time(${sel} | ${parser} | method="GET" | unwrap v [30s]) by (set)`,
    `max_over_time(${sel} | ${parser} | drop __error__ | code=~"5.." | unwrap v [1m]) by (method)`,
    `quantile_over_time(0.5, ${sel} | ${parser} | code > 200 and method!="a" | unwrap v | __error__="" [1m]) by (set)`,
    `min by (method) (min_over_time(${sel} | ${parser} | __error__="" | d > 10ms or code == 404 | unwrap v [1m]))`,
    `sum by (set) (sum_over_time(${sel} | ${parser} | code != 500 | drop d | unwrap v [20s]))`,
    `max_over_time(${sel} | ${parser} | v > 3 | unwrap v [1m]) by (set)`,
    `sum by (code) (sum_over_time(${sel} | ${parser} | method=~"G.*|x-y" | __error__="" | unwrap v [1m]))`,
    `sum by (set) (sum_over_time(${sel} | ${parser} | code >= 500 | drop __error__, __error_details__ | unwrap v [1m]))`,
    // Without a filter, over the same lines.
    `sum by (set) (sum_over_time(${sel} | ${parser} | unwrap v [1m]))`,
    `max_over_time(${sel} | ${parser} | unwrap v [1m]) by (method)`,
    // Stages that change no label the answer reads, and decolorize before the parser.
    `sum by (set) (sum_over_time(${sel} | decolorize | ${parser} | code >= 500 | unwrap v [1m]))`,
    `max_over_time(${sel} | decolorize | ${parser} | unwrap v [1m]) by (method)`,
    `max_over_time(${sel} | ${parser} | keep v, method, code | line_format "{{.v}}" | code > 200 | unwrap v [1m]) by (method)`,
    `sum by (set) (sum_over_time(${sel} | ${parser} | label_format other="{{.code}}", o2=msg | decolorize | unwrap v [1m]))`,
  ];

  it("every set and shape: pushed equals local; clean sets are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      sets.length,
      (k) => shapes(sets[k]!.kind, `{app="ufgen", set="s${k}"}`),
      (k) => sets[k]!.tricky.length === 0 && sets[k]!.label !== "metadata",
      DATA_START,
      TENANT,
    );
    expect(pushedAsRequired).toBeGreaterThan(30);
    expect(fellBack).toBeGreaterThan(30);
  });
});

/**
 * Rows Loki marks with an error before the unwrap: a numeric filter on a value it cannot parse
 * keeps the row with `__error__`, which fails the query when the row has a value to unwrap, unless
 * `__error__=""` removes it or `drop __error__` clears the error (the row then counts).
 */
describe("error rows of a label filter before the unwrap (real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:7" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  // From a second after the start: an instant query's window leaves its start out.
  const at = (i: number) => String(base + BigInt(i * 5 + 1) * 1_000_000_000n);
  const lines = ['{"code": 500, "v": 2}', '{"code": 200, "v": 4}', '{"code": 503}', '{"v": 9}'];

  beforeAll(async () => {
    const streams = [
      { stream: { app: "uerr", set: "clean" }, values: lines.map((line, i) => [at(i), line]) },
      {
        stream: { app: "uerr", set: "marked" },
        values: [...lines, '{"code": "abc", "v": 7}', '{"code": "n/a"}'].map((line, i) => [at(i), line]),
      },
      // VictoriaLogs reads `+1` as a number and goes on; Loki's parser stops there with an error.
      {
        stream: { app: "uerr", set: "lenient-after" },
        values: [
          [at(0), '{"v": 2}'],
          [at(1), '{"v": 5, "x": +1}'],
        ],
      },
      {
        stream: { app: "uerr", set: "lenient-before" },
        values: [
          [at(0), '{"v": 2}'],
          [at(1), '{"x": +1, "v": 5}'],
        ],
      },
      // Structured metadata keeps its value in Loki; the line's key is `method_extracted`.
      {
        stream: { app: "uerr", set: "metadata" },
        values: [
          [at(0), '{"method": "GET", "v": 3}', { method: "PUT" }],
          [at(1), '{"v": 4}', { method: "PUT" }],
        ],
      },
    ];
    await pushCounted("26:7", "uerr", streams, DATA_START);
  });

  it("pushes the clean set and answers the marked one as Loki does", async () => {
    const params = { time: String(DATA_START + 60) };
    const sum = (set: string, stages: string) =>
      `sum by (set) (sum_over_time({app="uerr", set="${set}"} | json | ${stages} [1m]))`;
    const value = (answer: { series: Map<string, [number, string][]> }) =>
      Number([...answer.series.values()][0]![0]![1]);
    for (const [stages, clean, marked] of [
      ["code >= 500 | unwrap v", 2, "fails"],
      ['code >= 500 | unwrap v | __error__=""', 2, 2],
      ['code >= 500 | __error__="" | unwrap v', 2, 2],
      ["code >= 500 | drop __error__ | unwrap v", 2, 9],
      ['__error__="" | code < 500 | unwrap v', 4, "fails"],
    ] as const) {
      const pushed = await pushedAndLocal(sum("clean", stages), params, TENANT);
      expect(pushed.pushed.linesScanned, `${stages} was not pushed down`).toBe(0);
      expect(value(pushed.local), stages).toBe(clean);
      const { local } = await pushedAndLocal(sum("marked", stages), params, TENANT);
      if (marked === "fails") expect(local.status, stages).toBe(400);
      else expect(value(local), stages).toBe(marked);
    }
  });

  it("aggregates no line VictoriaLogs reads past Loki's parser error", async () => {
    const params = { time: String(DATA_START + 60) };
    const query = (set: string) => `sum by (set) (sum_over_time({app="uerr", set="${set}"} | json | unwrap v [1m]))`;
    // The error comes with a value to unwrap: the query fails.
    expect((await pushedAndLocal(query("lenient-after"), params, TENANT)).local.status).toBe(400);
    // Loki's parser stops before `v`: no sample.
    const { local } = await pushedAndLocal(query("lenient-before"), params, TENANT);
    expect([...local.series.values()][0]![0]![1]).toBe("2");
  });

  it("groups by the structured metadata value of a label the line also gives", async () => {
    const query = 'max_over_time({app="uerr", set="metadata"} | json | unwrap v [1m]) by (method)';
    const { local } = await pushedAndLocal(query, { time: String(DATA_START + 60) }, TENANT);
    expect(new Map([...local.series].map(([k, points]) => [k, points[0]![1]]))).toEqual(
      new Map([['[["method","PUT"]]', "4"]]),
    );
    const byLine = 'max_over_time({app="uerr", set="metadata"} | json | unwrap v [1m]) by (method_extracted)';
    const extracted = await pushedAndLocal(byLine, { time: String(DATA_START + 60) }, TENANT);
    expect(new Map([...extracted.local.series].map(([k, points]) => [k, points[0]![1]]))).toEqual(
      new Map([
        ['[["method_extracted","GET"]]', "3"],
        ["[]", "4"],
      ]),
    );
  });
});

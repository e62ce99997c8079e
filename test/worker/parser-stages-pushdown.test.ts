/**
 * Counting metrics over parsers pushed down with what the parser counting push-down once left to
 * the Worker: fractional constants in numeric filters. Each query is answered pushed down and by the
 * Worker from rows (PUSHDOWN=off) against the real VictoriaLogs, and the answers must agree; the
 * tests also check which answers were pushed (no rows scanned).
 */
import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { pushCounted, pushedAcrossSets, pushedAndLocal } from "./support/metric-answers";
import { expectBucketsNotLines } from "./support/traffic";
import { DEFAULT_SERVICE_NAME_LABELS } from "../../src/engine/derived-fields";
import type { Env } from "../../src/config";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;
const range = { start: String(DATA_START), end: String(DATA_END), step: "300" };

async function expectPushed(queries: readonly string[]): Promise<void> {
  for (const query of queries) {
    const { pushed, local } = await pushedAndLocal(query, range);
    expect(local.series.size, query).toBeGreaterThan(0);
    expect(local.linesScanned, query).toBeGreaterThan(0);
    expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
  }
}

async function expectLocal(queries: readonly string[]): Promise<void> {
  for (const query of queries) {
    const { pushed } = await pushedAndLocal(query, range);
    expect(pushed.linesScanned, query).not.toBe(0);
  }
}

describe("fractional constants (compat data)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("pushes numeric filters with a fractional constant down", async () => {
    await expectPushed([
      'sum(rate({app="checkout"} | json | latency_ms > 100.5 [5m]))',
      'sum by (status) (count_over_time({app="checkout"} | json | status > 399.5 [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | attempt > 2.5 [5m]))',
      'sum by (method) (count_over_time({app="checkout"} | json | drop __error__ | latency_ms <= 0.75e2 [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | attempt >= 1.5 and attempt < 4.25 [5m]))',
      'sum by (status) (count_over_time({app="checkout"} | json | latency_ms != 50.5 or status == 404.0 [5m]))',
      'sum(count_over_time({app="worker"} | logfmt | attempt > -0.5 [5m]))',
    ]);
  });

  it("keeps constants of more than 6 fraction digits local", async () => {
    await expectLocal([
      'sum(count_over_time({app="checkout"} | json | latency_ms > 100.0000001 [5m]))',
      'sum(count_over_time({app="checkout"} | json | latency_ms > 1e-7 [5m]))',
    ]);
  });

  it("reads buckets instead of lines", async () => {
    await expectBucketsNotLines('sum(rate({app="checkout"} | json | latency_ms > 100.5 [5m]))', {
      start: String(DATA_START),
      end: String(DATA_END),
      step: "60",
    });
  });
});

/**
 * Numbers at, beside and around fractional constants, in every spelling the two sides could read
 * apart: trailing zeros, exponents, more fraction digits than VictoriaLogs reads exactly, negative
 * zero, one unit of the sixth fraction digit away.
 */
describe("fractional constants over generated numbers (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:611" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const CONSTANTS = ["100.5", "-100.5", "0.1", "100.499999", "1.005e2", "999999999.999999", "-0.000001", "7.25"];
  const NEAR = [
    "100.5",
    "100.50",
    "100.500000",
    "100.49999999",
    "100.499999",
    "100.4999990",
    "100.500001",
    "1.005e2",
    "100.4",
    "101",
    "100",
    "-100.5",
    "-100.500",
    "-100.499999",
    "0.1",
    "0.100000",
    "0.099999",
    "0.100001",
    "0.10000000000000001",
    "-0",
    "-0.000001",
    "-0.0000010",
    "0.000000",
    "999999999.999999",
    "999999999.999998",
    "7.25",
    "7.250",
    "7.2500001",
    "7.249999",
    "1e2",
    "0x64",
    "",
  ];
  const num = fc.constantFrom(...NEAR);
  const jsonLine = fc
    .tuple(fc.constantFrom("a", "b"), num)
    .map(([g, n]) => `{"g": "${g}", "num": ${n === "" || /[ex]/.test(n) ? JSON.stringify(n) : n}}`);
  const logfmtLine = fc.tuple(fc.constantFrom("a", "b"), num).map(([g, n]) => `g=${g} num=${n}`);
  const plainNum = fc.constantFrom(...NEAR.filter((n) => /^-?(0|[1-9][0-9]{0,8})(\.[0-9]{1,6})?$/.test(n)));
  interface NumberSet {
    kind: "json" | "logfmt";
    lines: string[];
    plain: boolean;
  }
  const plainSet = (kind: "json" | "logfmt", seed: number): NumberSet => ({
    kind,
    plain: true,
    lines: fc.sample(
      fc
        .tuple(fc.constantFrom("a", "b"), plainNum)
        .map(([g, n]) => (kind === "json" ? `{"g": "${g}", "num": ${n}}` : `g=${g} num=${n}`)),
      { numRuns: 12, seed },
    ),
  });
  const sets: NumberSet[] = [
    // Every spelling at once, in both parsers; then random mixtures and plain decimals only.
    {
      kind: "json",
      plain: false,
      lines: NEAR.map((n) => `{"g": "a", "num": ${n === "" || /[ex]/.test(n) ? JSON.stringify(n) : n}}`),
    },
    { kind: "logfmt", plain: false, lines: NEAR.map((n) => `g=a num=${n}`) },
    ...[1, 2, 3].map((seed) => plainSet("json", seed)),
    ...[4, 5, 6].map((seed) => plainSet("logfmt", seed)),
    ...fc.sample(fc.array(jsonLine, { minLength: 3, maxLength: 12 }), { numRuns: 6, seed: 2611 }).map((lines) => ({
      kind: "json" as const,
      plain: false,
      lines,
    })),
    ...fc.sample(fc.array(logfmtLine, { minLength: 3, maxLength: 12 }), { numRuns: 6, seed: 2612 }).map((lines) => ({
      kind: "logfmt" as const,
      plain: false,
      lines,
    })),
  ];

  beforeAll(async () => {
    const streams = sets.map((set, k) => ({
      stream: { app: "pfrac", set: `s${k}` },
      values: set.lines.map((line, i) => [String(base + BigInt(i * 7 + k) * 1_000_000_000n), line]),
    }));
    await pushCounted("26:611", "pfrac", streams, DATA_START);
  });

  const shapes = (kind: "json" | "logfmt", sel: string) => {
    const parser = kind === "json" ? "json | drop __error__, __error_details__" : "logfmt";
    return CONSTANTS.flatMap((c, i) => [
      `sum by (g) (count_over_time(${sel} | ${parser} | num ${[">", ">=", "<", "<="][i % 4]} ${c} [1m]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | num ${["==", "!=", "=", "!="][i % 4]} ${c} [30s]))`,
      `sum(count_over_time(${sel} | ${parser} | num ${["<=", "<", ">=", ">"][i % 4]} ${c} or g="b" [1m]))`,
    ]);
  };

  it("every set and constant: pushed equals local; sets of plain decimals are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      sets.length,
      (k) => shapes(sets[k]!.kind, `{app="pfrac", set="s${k}"}`),
      (k) => sets[k]!.plain,
      DATA_START,
      TENANT,
    );
    expect(pushedAsRequired).toBeGreaterThan(100);
    expect(fellBack).toBeGreaterThan(20);
  }, 300_000);
});

describe("stages that change nothing counted (compat data)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("pushes keep, label_format, and for line counts decolorize and line_format down", async () => {
    await expectPushed([
      'sum by (level) (count_over_time({app="worker"} | logfmt | keep level [5m]))',
      'sum by (level) (bytes_over_time({app="worker"} | logfmt | keep level, msg | msg="cache hit" [5m]))',
      'sum by (job) (count_over_time({app="auth"} | logfmt | decolorize [5m]))',
      'sum by (level) (rate({app="auth"} | logfmt | decolorize | attempt > 2 [5m]))',
      'sum by (method) (rate({app="checkout"} | json | line_format "{{.method}} {{ .path }}" [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | line_format "{{.job}}" [5m]))',
      // A line filter on a line made of one label reads that label.
      'sum by (level) (count_over_time({app="checkout"} | json | line_format "{{.msg}}" |= "order" [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | line_format "{{ .msg }}" != "cache" or "retry" [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | label_format who=caller, t="{{.msg}}" [5m]))',
      'sum by (status) (bytes_rate({app="checkout"} | json | drop __error__ | label_format p=path | status >= 400 [5m]))',
      // Grouped by a label a template sets: grouped by what it reads, rendered by the Worker.
      'sum by (route) (count_over_time({app="checkout"} | json | label_format route="{{.method}} {{.path}}" [5m]))',
      'sum by (status) (count_over_time({app="checkout"} | json | label_format status="{{.status}}" [5m]))',
      'sum by (route, method) (rate({app="checkout"} | json | label_format route="{{.method | ToLower}}:{{.path}}" | status >= 500 [5m]))',
      'sum by (m) (bytes_over_time({app="worker"} | logfmt | label_format m="{{.job}}-{{.nope}}" [5m]))',
      // A template setting a stream label's name.
      'sum by (app) (count_over_time({app="checkout"} | json | label_format app="{{.method}}" [5m]))',
      // A line filter on a line of several labels: the Worker filters each group's rendered line.
      'sum by (level) (count_over_time({app="checkout"} | json | line_format "{{.method}} {{.msg}}" |= "order" [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | line_format "{{.msg}} by {{.caller}}" |~ "(?i)order.* by " !~ "retry" [5m]))',
      // A templated label filtered: the Worker filters each group's rendered value.
      'sum by (route) (count_over_time({app="checkout"} | json | label_format route="{{.method}} {{.path}}" | route="GET /api/v1/cart" [5m]))',
      'sum(count_over_time({app="checkout"} | json | label_format route="{{.method}} {{.path}}" | route=~"GET /api.*" or route="POST /healthz" [5m]))',
      // A grouped label renamed to or from another: grouped by both, moved by the Worker.
      'sum by (m) (count_over_time({app="checkout"} | json | label_format m=method [5m]))',
      'sum by (method, status) (rate({app="checkout"} | json | label_format m=method | status >= 500 [5m]))',
      'sum by (m, route) (count_over_time({app="checkout"} | json | label_format m=method, route="{{.path}}" [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | label_format job=caller [5m]))',
      'sum by (caller) (count_over_time({app="worker"} | logfmt | label_format job=caller [5m]))',
      'sum by (level, lvl) (bytes_over_time({app="checkout"} | json | drop __error__ | label_format lvl=level [5m]))',
      // A renamed label filtered after the rename: the Worker filters each group's moved value.
      'sum by (m) (count_over_time({app="checkout"} | json | label_format m=method | m="GET" [5m]))',
      'sum(count_over_time({app="checkout"} | json | label_format m=method | m=~"P.*" or m="DELETE" [5m]))',
      // Before the parser, decolorize leaves a line without escapes as it is: those with one are
      // guard rows (none in the JSON apps).
      'sum by (method) (count_over_time({app="checkout"} | decolorize | json | drop __error__ [5m]))',
    ]);
  });

  it("keeps stages that could change a count local, with the same answer", async () => {
    await expectLocal([
      // Bytes add up the final line.
      'sum by (job) (bytes_over_time({app="auth"} | logfmt | decolorize [5m]))',
      'sum by (job) (bytes_over_time({app="worker"} | logfmt | line_format "{{.job}}" [5m]))',
      // A grouped label kept out; renamed from the row's own label (Loki keeps the category, rows
      // read back), filtered before a rename or on its source after it, renamed twice, or renamed to
      // itself (removed).
      'sum by (job) (count_over_time({app="worker"} | logfmt | keep level [5m]))',
      'sum by (a) (count_over_time({app="checkout"} | json | label_format a=app [5m]))',
      'sum by (m) (count_over_time({app="checkout"} | json | label_format m=method | method="GET" [5m]))',
      'sum by (m) (count_over_time({app="checkout"} | json | method="GET" | label_format m=method [5m]))',
      'sum by (n) (count_over_time({app="checkout"} | json | label_format m=method | label_format n=m [5m]))',
      'sum by (method) (count_over_time({app="checkout"} | json | label_format method=method [5m]))',
      // A templated label filtered before the template, or by a filter reading another label too,
      // read after a rename, or set by a template that could fail.
      'sum by (route) (count_over_time({app="checkout"} | json | route="" | label_format route="{{.method}} {{.path}}" [5m]))',
      'sum by (route) (count_over_time({app="checkout"} | json | label_format route="{{.method}}" | route="GET" or status="500" [5m]))',
      'sum by (r) (count_over_time({app="checkout"} | json | label_format m=method | label_format r="{{.m}}" [5m]))',
      'sum by (r) (count_over_time({app="checkout"} | json | label_format r="{{ printf \\"%s\\" .method }}" [5m]))',
      'sum by (level) (count_over_time({app="worker"} | logfmt | keep level=~"info|warn" [5m]))',
      // Templates that could fail.
      'sum by (job) (count_over_time({app="worker"} | logfmt | line_format "{{ .job | urldecode }}" [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | label_format x="{{ div 1 .attempt }}" [5m]))',
      // A line filter on a line of bytes added up, or on a line a template reading the line makes.
      'sum by (level) (bytes_over_time({app="checkout"} | json | line_format "{{.msg}}" |= "order" [5m]))',
      'sum by (level) (count_over_time({app="checkout"} | json | line_format "{{.method}} {{__line__}}" |= "order" [5m]))',
    ]);
  });

  it("reads buckets instead of lines", async () => {
    await expectBucketsNotLines('sum by (level) (count_over_time({app="worker"} | logfmt | keep level [5m]))', {
      start: String(DATA_START),
      end: String(DATA_END),
      step: "60",
    });
  });
});

/**
 * Lines with colour codes, missing and repeated keys and malformed JSON under stages that reshape
 * labels or the line: pushed or not, the answer must be the Worker's own.
 */
describe("stages over generated lines (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:612" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const g = fc.constantFrom("a", "b", "sync");
  const n = fc.constantFrom("1", "2.5", "-3", "0.25");
  const plainJson = fc.tuple(g, n).map(([gv, nv]) => `{"g": "${gv}", "num": ${nv}, "msg": "m ${gv}"}`);
  const plainLogfmt = fc.tuple(g, n).map(([gv, nv]) => `g=${gv} num=${nv} msg="m ${gv}"`);
  const TRICKY_JSON = [
    '{"g": "a", "num": 1, "msg": "\\u001b[31mred\\u001b[0m"}',
    '{"g": "a", "num": }',
    "not json",
    '{"num": 2}',
    '{"g": "a", "g": "b", "num": 1}',
    '{"g": "{{.num}}", "num": 1}',
    // A key holding "" (a rename moves it), and a rename's target held by the line.
    '{"g": "", "num": 1, "h": "x"}',
    '{"h": "y", "num": 2, "msg": "m"}',
    // An object only once decolorized.
    '\u001b[32m{"g": "b", "num": 3}\u001b[0m',
  ];
  const TRICKY_LOGFMT = [
    "\u001b[31mERROR\u001b[0m g=a num=1",
    "g=\u001b[32mb\u001b[0m num=2",
    "num=3",
    "g=a g=b num=1",
    "g= num=4",
    'g="{{.num}}" num=5',
    "h=y num=2",
  ];
  interface StageSet {
    kind: "json" | "logfmt";
    lines: string[];
    plain: boolean;
  }
  const sets: StageSet[] = [
    ...TRICKY_JSON.map((line, k) => ({
      kind: "json" as const,
      plain: false,
      lines: [...fc.sample(plainJson, { numRuns: 4, seed: k }), line],
    })),
    ...TRICKY_LOGFMT.map((line, k) => ({
      kind: "logfmt" as const,
      plain: false,
      lines: [...fc.sample(plainLogfmt, { numRuns: 4, seed: k }), line],
    })),
    ...[1, 2].map((seed) => ({
      kind: "json" as const,
      plain: true,
      lines: fc.sample(plainJson, { numRuns: 8, seed }),
    })),
    ...[3, 4].map((seed) => ({
      kind: "logfmt" as const,
      plain: true,
      lines: fc.sample(plainLogfmt, { numRuns: 8, seed }),
    })),
  ];

  beforeAll(async () => {
    const streams = sets.map((set, k) => ({
      stream: { app: "pstage", set: `s${k}` },
      values: set.lines.map((line, i) => [String(base + BigInt(i * 7 + k) * 1_000_000_000n), line]),
    }));
    await pushCounted("26:612", "pstage", streams, DATA_START);
  });

  const shapes = (kind: "json" | "logfmt", sel: string) => {
    const parsers = kind === "json" ? ["json", "json | drop __error__, __error_details__"] : ["logfmt"];
    return parsers.flatMap((parser) => [
      `sum by (g) (count_over_time(${sel} | ${parser} | keep g [1m]))`,
      `sum by (g) (bytes_over_time(${sel} | ${parser} | keep g, num | num > 1.5 [1m]))`,
      `sum by (g) (rate(${sel} | ${parser} | decolorize [30s]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | line_format "{{.g}}: {{ .msg }}" | num >= 0 [1m]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | label_format other=msg, t="{{.num}}" [1m]))`,
      `sum(bytes_over_time(${sel} | ${parser} | keep g | g="a" [1m]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | line_format "{{.msg}}" | __error__="" [1m]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | line_format "{{ .msg }}" |= "a" [1m]))`,
      `sum by (t) (count_over_time(${sel} | ${parser} | label_format t="{{.g}}/{{.num}}" [1m]))`,
      `sum by (g, num) (rate(${sel} | ${parser} | label_format g="{{.g | ToUpper}}{{.none}}" [30s]))`,
      `sum by (num) (count_over_time(${sel} | ${parser} | label_format t="{{.g}}/{{.num}}" | t=~"a/.*|bb/1.*" [1m]))`,
      `sum(count_over_time(${sel} | ${parser} | label_format t="{{.g | ToUpper}}" | t!="A" | num >= 0 [1m]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | line_format "{{.g}}: {{ .msg }}" |~ "^a: |: $" [1m]))`,
      `sum(count_over_time(${sel} | ${parser} | line_format "{{.msg}}\\n{{.g | ToUpper}}" != "probe" |= "\\nA" [1m]))`,
      `sum by (h) (count_over_time(${sel} | ${parser} | label_format h=g [1m]))`,
      `sum by (g, h) (rate(${sel} | ${parser} | label_format h=g | num > 1 [30s]))`,
      `sum by (h, t) (count_over_time(${sel} | ${parser} | label_format t="{{.num}}", h=g [1m]))`,
      `sum by (num) (count_over_time(${sel} | ${parser} | label_format h=g | h=~"a|" [1m]))`,
      `sum by (g) (count_over_time(${sel} | decolorize | ${parser} [1m]))`,
      `sum by (g) (bytes_over_time(${sel} | decolorize | decolorize | ${parser} | num >= 1 [1m]))`,
    ]);
  };

  it("every set and shape: pushed equals local; plain sets are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      sets.length,
      (k) => shapes(sets[k]!.kind, `{app="pstage", set="s${k}"}`),
      (k) => sets[k]!.plain,
      DATA_START,
      TENANT,
    );
    expect(pushedAsRequired).toBeGreaterThan(30);
    expect(fellBack).toBeGreaterThan(10);
  }, 300_000);
});

describe("json parameters renaming a top-level key (compat data)", () => {
  it("pushes labels read from a key of another name down", async () => {
    await expectPushed([
      'sum by (m) (count_over_time({app="checkout"} | json m="method" | drop __error__ | m!="" [5m]))',
      'sum by (m, s) (rate({app="checkout"} | json m="method", s="status", path | drop __error__ | m!="", m=~"GET|POST", s!="" [5m]))',
      'sum by (m) (count_over_time({app="checkout"} | json m="method", u="[\\"user_id\\"]" | drop __error__ | m!="" [5m]))',
      // Grouped without a filter requiring a value: a missing key's empty label is a series of its own.
      'sum by (m) (count_over_time({app="checkout"} | json m="method" | drop __error__ [5m]))',
      'sum by (m, method) (count_over_time({app=~"checkout|nginx"} | json m="method", method | drop __error__ [5m]))',
      // Parser errors (lines not starting with `"`, `{` or `[`) fail the query, or are filtered out.
      'sum by (m) (count_over_time({app="checkout"} | json m="method", status="status" [5m]))',
      'sum by (s) (count_over_time({app=~"checkout|nginx"} | json m="method", s="status" | __error__="" [5m]))',
      // A typed filter on a label a missing key sets to "": every line here has the key.
      'sum by (m) (count_over_time({app="checkout"} | json m="method", s="status" | drop __error__ | m!="" | s >= 400 [5m]))',
    ]);
  });

  it("keeps what it cannot tell apart local, with the same answer", async () => {
    await expectLocal([
      // A line the parser refuses (nginx's) fails the query.
      'sum by (m) (count_over_time({app=~"checkout|nginx"} | json m="method" [5m]))',
      // A label named as another one's key.
      'sum by (method) (count_over_time({app="checkout"} | json method="status", status="method" | drop __error__ | method!="" [5m]))',
      // A typed filter lets the lines the parser refuses through with their error: read back.
      'sum by (m) (count_over_time({app=~"checkout|nginx"} | json m="method", s="status" | s >= 400 | drop __error__ [5m]))',
    ]);
  });
});

/** Keys renamed by `| json label="key"` among look-alikes, duplicates, nulls and nested objects. */
describe("json parameters over generated lines (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:613" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const method = fc.constantFrom("GET", "POST", "x y");
  const plain = fc
    .tuple(method, fc.constantFrom("a", "b"), fc.integer({ min: 200, max: 503 }))
    .map(([m, g, s]) => `{"method": "${m}", "g": "${g}", "status": ${s}}`);
  const TRICKY = [
    '{"method": "GET", "method": "POST", "g": "a"}',
    '{"method": null, "g": "a"}',
    '{"method": {"x": 1}, "g": "a"}',
    '{"method": ["GET"], "g": "a"}',
    '{"m": "PUT", "g": "a"}',
    '{"m": "PUT", "method": "GET", "g": "b"}',
    '{"Method": "GET", "g": "a"}',
    '{"method ": "GET", "g": "a"}',
    '{"meth\\u006fd": "GET", "g": "a"}',
    '{"sub": {"method": "GET"}, "g": "a"}',
    '{"method": "", "g": "a"}',
    '{"g": "a"}',
    "method=GET g=a",
    "not json",
    '{"method": "GET", "g": "a"',
    '{"method": 12, "g": "a"}',
    '["GET"]',
    '"GET"',
    ' {"method": "GET", "g": "a"}',
  ];
  interface RenameSet {
    lines: string[];
    plain: boolean;
    label?: "stream" | "metadata";
  }
  const sets: RenameSet[] = [
    ...TRICKY.map((line, k) => ({ plain: false, lines: [...fc.sample(plain, { numRuns: 4, seed: k }), line] })),
    ...[1, 2, 3].map((seed) => ({ plain: true, lines: fc.sample(plain, { numRuns: 8, seed }) })),
    { plain: false, lines: fc.sample(plain, { numRuns: 6, seed: 7 }), label: "stream" },
    { plain: false, lines: fc.sample(plain, { numRuns: 6, seed: 8 }), label: "metadata" },
  ];

  beforeAll(async () => {
    const streams = sets.map((set, k) => ({
      stream: { app: "prename", set: `s${k}`, ...(set.label === "stream" ? { m: "from-stream" } : {}) },
      values: set.lines.map((line, i) => {
        const ts = String(base + BigInt(i * 7 + k) * 1_000_000_000n);
        return set.label === "metadata" ? [ts, line, { m: "from-metadata" }] : [ts, line];
      }),
    }));
    await pushCounted("26:613", "prename", streams, DATA_START);
  });

  const shapes = (sel: string) => [
    `sum by (m) (count_over_time(${sel} | json m="method" | drop __error__ | m!="" [1m]))`,
    `sum(count_over_time(${sel} | json m="method", g | drop __error__ | m="GET" or g="a" [1m]))`,
    `sum by (m, g) (count_over_time(${sel} | json m="method", g="g" | logfmt | drop __error__, __error_details__ | m!="", g!="" [1m]))`,
    `sum by (g) (bytes_over_time(${sel} | json m="method" | drop __error__ | m!~"G.*" [30s]))`,
    `sum by (m, set) (rate(${sel} | json m="method", code="status" | drop __error__ | m!="", code!="200" [1m]))`,
    `sum by (m) (count_over_time(${sel} | json m="method" | drop __error__ [1m]))`,
    `sum by (m) (count_over_time(${sel} | json m="method" [1m]))`,
    `sum by (g) (count_over_time(${sel} | json m="method", g | m!="POST" [1m]))`,
    `sum by (m) (rate(${sel} | json m="method", g | __error__="" | g="a" [30s]))`,
    `sum(count_over_time(${sel} | json m="method" | logfmt | __error__="" [1m]))`,
    `sum by (m, g) (bytes_over_time(${sel} | json m="method", g | logfmt | drop __error__, __error_details__ [30s]))`,
    `sum by (code) (count_over_time(${sel} | json m="method", code="status" | drop __error__ | m="GET" or g!="b" [1m]))`,
  ];

  it("groups a missing key's empty label apart from lines the parser did not read", async () => {
    const missing = TRICKY.indexOf('{"g": "a"}');
    const notJson = TRICKY.indexOf("not json");
    const query = `sum by (m) (count_over_time({app="prename", set=~"s${missing}|s${notJson}"} | json m="method" | drop __error__ [10m]))`;
    const { pushed, local } = await pushedAndLocal(query, { time: String(DATA_START + 600) }, TENANT);
    expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    expect(local.series.get(JSON.stringify([["m", ""]]))?.[0]?.[1]).toBe("1");
    expect(local.series.get(JSON.stringify([]))?.[0]?.[1]).toBe("1");
  });

  it("every set and shape: pushed equals local; plain sets are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      sets.length,
      (k) => shapes(`{app="prename", set="s${k}"}`),
      (k) => sets[k]!.plain,
      DATA_START,
      TENANT,
    );
    expect(pushedAsRequired).toBeGreaterThan(10);
    expect(fellBack).toBeGreaterThan(10);
  }, 300_000);
});

/** Groups whose template renders alike are one series: their counts add up per window. */
describe("a grouped label set by a template from values that render alike", () => {
  const TENANT = { "X-Scope-OrgID": "26:614" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const lines = [
    '{"m": "GET", "p": "/a"}',
    '{"m": "get", "p": "/a"}',
    '{"m": "Get", "p": "/b"}',
    '{"m": "post", "p": "/a"}',
  ];

  beforeAll(async () => {
    const values = lines.map((line, i) => [String(base + BigInt(10 + i) * 1_000_000_000n), line]);
    const streams = [{ stream: { app: "ptmpl" }, values }];
    await pushCounted("26:614", "ptmpl", streams, DATA_START);
  });

  it("counts every group of the series, pushed as local", async () => {
    const query = 'sum by (u) (count_over_time({app="ptmpl"} | json | label_format u="{{.m | ToUpper}}" [1m]))';
    const params = { start: String(DATA_START + 60), end: String(DATA_START + 60), step: "60" };
    const { pushed } = await pushedAndLocal(query, params, TENANT);
    expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    // Lines at 10-13 s: the window ending at 60 s holds them all, three of them GET.
    expect([...pushed.series]).toEqual([
      ['[["u","GET"]]', [[DATA_START + 60, "3"]]],
      ['[["u","POST"]]', [[DATA_START + 60, "1"]]],
    ]);
  });

  it("filters each group's rendered value, pushed as local", async () => {
    const params = { start: String(DATA_START + 60), end: String(DATA_START + 60), step: "60" };
    for (const [query, series] of [
      // Rendered "GET /a", "GET /a", "GET /b", "POST /a": three of them start with GET.
      [
        'sum by (p) (count_over_time({app="ptmpl"} | json | label_format r="{{.m | ToUpper}} {{.p}}" | r=~"GET .*" [1m]))',
        [
          ['[["p","/a"]]', [[DATA_START + 60, "2"]]],
          ['[["p","/b"]]', [[DATA_START + 60, "1"]]],
        ],
      ],
      [
        'sum(count_over_time({app="ptmpl"} | json | label_format r="{{.m | ToUpper}} {{.p}}" | r!="GET /a" | r!="POST /a" [1m]))',
        [["[]", [[DATA_START + 60, "1"]]]],
      ],
    ] as const) {
      const { pushed } = await pushedAndLocal(query, params, TENANT);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
      expect([...pushed.series], query).toEqual(series);
    }
  });
});

/**
 * Grouped by `service_name`, which Loki's distributor gives a stream without one: from its first
 * label of the discovery list, else `unknown_service`. The origin groups by the stream, the
 * Worker derives each stream's.
 */
describe("grouped by a derived service_name", () => {
  const TENANT = { "X-Scope-OrgID": "26:615" };
  const SERVICE_NAMES: Partial<Env> = { DISCOVER_SERVICE_NAME: DEFAULT_SERVICE_NAME_LABELS.join(",") };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const streams = [
    { stream: { app: "psvc", service_name: "own" }, lines: ['{"level": "error"}', '{"level": "info"}'] },
    { stream: { app: "psvc", set: "b" }, lines: ['{"level": "error"}', '{"level": "error", "service_name": "x"}'] },
    { stream: { app: "psvc", service: "svc", set: "c" }, lines: ['{"level": "error"}', "level=error"] },
    { stream: { app: "psvc", set: "d" }, lines: ['{"level": "error"}'] },
  ];

  beforeAll(async () => {
    const pushed = streams.map(({ stream, lines }, k) => ({
      stream,
      values: lines.map((line, i) => [String(base + BigInt(10 + 4 * i + k) * 1_000_000_000n), line]),
    }));
    await pushCounted("26:615", "psvc", pushed, DATA_START, SERVICE_NAMES);
  });

  it("counts each stream under the service_name Loki gives it, pushed as local", async () => {
    const query = 'sum by (service_name) (count_over_time({app="psvc"} | json | level="error" [1m]))';
    const params = { start: String(DATA_START + 60), end: String(DATA_START + 60), step: "60" };
    const { pushed } = await pushedAndLocal(query, params, TENANT, SERVICE_NAMES);
    expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    // The stream's own service_name; `app` for sets b and d (a JSON key does not change the
    // stream's); `service` before `app` for set c, whose logfmt line `| json` refuses.
    expect([...pushed.series]).toEqual([
      ['[["service_name","own"]]', [[DATA_START + 60, "1"]]],
      ['[["service_name","psvc"]]', [[DATA_START + 60, "3"]]],
      ['[["service_name","svc"]]', [[DATA_START + 60, "1"]]],
    ]);
  });
});

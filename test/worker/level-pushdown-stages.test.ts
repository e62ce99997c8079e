/**
 * Counts grouped by `detected_level` behind the stages Explore's logs volume meets in a user's
 * query: `| logfmt name="key"`, a `keep` (which removes the level), `line_format` templates with
 * string functions, and line filters after `line_format "{{ .name }}"`. Every answer is computed
 * twice against the real VictoriaLogs, level discovery on — pushed down, and by the Worker from rows
 * (PUSHDOWN=off) — and the two must agree; hand-worked answers pin Loki's semantics, and the shapes
 * the push-down settles must read no row.
 */
import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { pushCounted, pushedAndLocal } from "./support/metric-answers";
import { queryTraffic } from "./support/traffic";
import type { Env } from "../../src/config";
import { DEFAULT_SERVICE_NAME_LABELS } from "../../src/engine/derived-fields";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;
/** Grafana's defaults: levels and service names discovered. */
const DISCOVERY: Partial<Env> = {
  DISCOVER_LOG_LEVELS: "true",
  DISCOVER_SERVICE_NAME: DEFAULT_SERVICE_NAME_LABELS.join(","),
};
const both = (query: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
  pushedAndLocal(query, params, headers, DISCOVERY);

/** Explore's logs volume of queries with these stages, on the compat data. */
const VOLUMES = [
  'sum by (level, detected_level) (count_over_time({app="worker"} | logfmt lvl="level" [1m]))',
  'sum by (level, detected_level) (count_over_time({app="checkout"} | json | keep method, status [1m]))',
  'sum by (level, detected_level) (count_over_time({app="checkout"} | json | keep method, status | drop __error__ [1m]))',
  'sum by (level, detected_level) (count_over_time({app="checkout"} | json | line_format "{{.method | ToUpper}}" [1m]))',
  'sum by (level, detected_level) (count_over_time({app="checkout"} | json | line_format "{{.method}}" |= "GET" [1m]))',
  'sum by (level, detected_level) (count_over_time({app="checkout"} |= "order" | json | line_format "{{ .msg }}" |= "created" | drop __error__ [1m]))',
  'sum by (app, detected_level) (rate({namespace="prod"} | keep app, namespace [5m]))',
  'sum by (level, detected_level) (count_over_time({app="checkout"} | unpack | drop __error__ [1m]))',
  'sum by (detected_level) (count_over_time({service_name="worker"} | unpack | drop __error__, __error_details__ [1m]))',
  // Templates: grouped by what they read, rendered and filtered by the Worker.
  'sum by (detected_level) (count_over_time({app="checkout"} | json | line_format "{{.method}} {{.path}}" |= "GET /" [1m]))',
  'sum by (level, detected_level) (count_over_time({app="worker"} | logfmt | line_format "{{.msg}} by {{.caller}}" |~ "(?i)order.* by " | drop __error__ [1m]))',
  'sum by (route, detected_level) (count_over_time({app="checkout"} | json | label_format route="{{.method | ToLower}} {{.path}}" [1m]))',
  'sum by (detected_level) (count_over_time({app="checkout"} | json | label_format route="{{.method}} {{.path}}" | route=~"GET /api.*" [1m]))',
];

describe("level push-down behind more stages (compat data, 6 h)", () => {
  const range = { start: String(DATA_START), end: String(DATA_END), step: "60" };

  it("pushes the logs volume down, with the answer of local evaluation", async () => {
    for (const query of VOLUMES) {
      const { pushed, local } = await both(query, range);
      expect(local.series.size, query).toBeGreaterThan(0);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    }
  });

  describe("origin traffic", () => {
    afterEach(() => vi.restoreAllMocks());

    it("reads groups instead of lines", async () => {
      for (const query of VOLUMES.slice(0, 5)) {
        const local = await queryTraffic(query, range, false, DISCOVERY);
        const pushed = await queryTraffic(query, range, true, DISCOVERY);
        console.info(
          `${query}: origin bytes ${local.originBytes} -> ${pushed.originBytes}, rows ${local.rows} -> ${pushed.rows}`,
        );
        expect(pushed.rows, query).toBe(0);
        expect(local.rows, query).toBeGreaterThan(10_000);
        expect(pushed.originBytes * 5, query).toBeLessThan(local.originBytes);
      }
    });
  });

  it("counts behind templates of total string functions in the parser push-down too", async () => {
    for (const query of [
      'sum by (job) (count_over_time({app="worker"} | logfmt | line_format "{{ .job | upper }}" [5m]))',
      'sum by (method) (count_over_time({app="checkout"} | json | line_format "{{ ToLower .path }}" | drop __error__ [5m]))',
    ]) {
      const { pushed, local } = await pushedAndLocal(query, range);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    }
  });

  it("keeps local what it cannot push, with the same answer", async () => {
    for (const query of [
      // A label_format writes a grouped label from one another stage changes; a template whose
      // function may fail; a line filter on a line a template reading the line makes.
      'sum by (level, detected_level) (count_over_time({app="checkout"} | json | label_format level="{{.method}}" | label_format method=path [1m]))',
      'sum by (detected_level) (count_over_time({app="checkout"} | json | line_format "{{ .status | duration }}" | drop __error__ [1m]))',
      'sum by (detected_level) (count_over_time({app="checkout"} | json | line_format "{{.method}} {{__line__}}" |= "GET /" [1m]))',
    ]) {
      const { pushed } = await both(query, range);
      expect(pushed.linesScanned, query).not.toBe(0);
    }
  });
});

/** Answers worked out by hand, line by line, from Loki's rules; push-down on and off. */
describe("hand-worked answers", () => {
  const TENANT = { "X-Scope-OrgID": "26:2691" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const AT = { time: String(DATA_START + 120) };
  const JSON_LINES = [
    '{"level":"error","method":"get","status":500}',
    '{"level":"info","method":"GET","status":200}',
    '{"level":"info","method":"post","status":201}',
    '{"msg":"no method"}',
  ];
  const LOGFMT_LINES = ["level=warn msg=a", "level=error msg=b", "just c"];
  /** Objects Loki's unpack reads to the end: nested two levels, arrays, escapes in values. */
  const NESTED_LINES = [
    '{"level":"info","o":{"a":[1,"x",true,null],"b":"c\\\\d"},"n":-1.5e3}',
    '{"level":"warn","msg":"q\\"uote \\/ \\t","arr":[],"obj":{}} ',
    "{}",
  ];
  const PACKED_LINES = [
    '{"_entry":"an error happened","level":"info","app":"x"}',
    '{"level":"warn","msg":"x"}',
    "not json at all",
    '{"level": "error", broken',
  ];

  beforeAll(async () => {
    const at = (i: number) => String(base + BigInt(i * 10) * 1_000_000_000n);
    const streams = [
      { stream: { app: "lhand", set: "json" }, values: JSON_LINES.map((l, i) => [at(i), l]) },
      { stream: { app: "lhand", set: "logfmt" }, values: LOGFMT_LINES.map((l, i) => [at(i), l]) },
      { stream: { app: "lhand", set: "packed" }, values: PACKED_LINES.map((l, i) => [at(i), l]) },
      { stream: { app: "lhand", set: "nested" }, values: NESTED_LINES.map((l, i) => [at(i), l]) },
      { stream: { app: "lhand", set: "deeper" }, values: [[at(0), '{"level":"info","o":{"a":{"b":1}}}']] },
    ];
    await pushCounted("26:2691", "lhand", streams, DATA_START, DISCOVERY);
  });
  /** The instant answer as `name=value,…` (labels sorted) → value, pushed and local, each `expected`. */
  const expectAnswer = async (query: string, expected: Record<string, string>, mustPush = true) => {
    const { pushed, local } = await both(query, AT, TENANT);
    for (const answer of [local, pushed]) {
      const values: Record<string, string> = {};
      for (const [key, points] of answer.series) {
        const labels = (JSON.parse(key) as [string, string][]).map(([k, v]) => `${k}=${v}`).join(",");
        values[labels] = points[0]![1];
      }
      expect(values, query).toEqual(expected);
    }
    if (mustPush) expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    else expect(pushed.linesScanned, query).toBeGreaterThan(0);
  };

  it("a keep removes detected_level and every label it does not list (stream labels too)", async () => {
    // Loki's keep deletes structured metadata too, and `detected_level` is structured metadata.
    await expectAnswer(
      'sum by (level, detected_level) (count_over_time({app="lhand", set="json"} | json | keep method, status [5m]))',
      { "": "4" },
    );
    await expectAnswer(
      'sum by (method, detected_level) (count_over_time({app="lhand", set="json"} | json | keep method | drop __error__ [5m]))',
      { "method=get": "1", "method=GET": "1", "method=post": "1", "": "1" },
    );
    await expectAnswer('sum by (set, detected_level) (count_over_time({app="lhand"} | keep set [5m]))', {
      "set=json": "4",
      "set=logfmt": "3",
      "set=packed": "4",
      "set=nested": "3",
      "set=deeper": "1",
    });
  });

  it("line_format's string functions cannot fail: every line counts, by its stored level", async () => {
    await expectAnswer(
      'sum by (detected_level) (count_over_time({app="lhand", set="json"} | json | line_format "{{.method | ToUpper}}" [5m]))',
      { "detected_level=error": "1", "detected_level=info": "2", "detected_level=unknown": "1" },
    );
  });

  it("a line filter after line_format reads the label's value", async () => {
    await expectAnswer(
      'sum by (detected_level) (count_over_time({app="lhand", set="json"} | json | line_format "{{.method}}" |= "GET" [5m]))',
      { "detected_level=info": "1" },
    );
    // The line without `method` is "" (missingkey=zero), which holds no "GET".
    await expectAnswer(
      'sum by (detected_level) (count_over_time({app="lhand", set="json"} | json | line_format "{{ .method }}" != "GET" or "po" [5m]))',
      { "detected_level=error": "1", "detected_level=unknown": "1" },
    );
  });

  it("| unpack sets labels only from a packed line; its errors dropped, every other line counts as it is", async () => {
    // Not packed: no label, the level the line's own. Not an object, or broken: the parser's error,
    // dropped. Packed (`_entry`): `level` is set and `app` becomes `app_extracted`, which the origin
    // does not reproduce, so that line sends the query to the Worker.
    await expectAnswer(
      'sum by (level, detected_level) (count_over_time({app="lhand", set="packed"} | unpack | drop __error__ [5m]))',
      {
        "detected_level=info,level=info": "1",
        "detected_level=warn": "1",
        "detected_level=unknown": "1",
        "detected_level=error": "1",
      },
      false,
    );
    // Without the drop, plain objects (as every line of `json`) count as they are; a line that is no
    // object fails the query, as in Loki.
    await expectAnswer('sum by (level, detected_level) (count_over_time({app="lhand", set="json"} | unpack [5m]))', {
      "detected_level=error": "1",
      "detected_level=info": "2",
      "detected_level=unknown": "1",
    });
    await expectAnswer('sum by (level, detected_level) (count_over_time({app="lhand", set="nested"} | unpack [5m]))', {
      "detected_level=info": "1",
      "detected_level=warn": "1",
      "detected_level=unknown": "1",
    });
    // Three levels deep: beyond what the origin checks, so read by the Worker.
    await expectAnswer(
      'sum by (level, detected_level) (count_over_time({app="lhand", set="deeper"} | unpack [5m]))',
      { "detected_level=info": "1" },
      false,
    );
    const failing = await both(
      'sum by (level, detected_level) (count_over_time({app="lhand", set="logfmt"} | unpack [5m]))',
      AT,
      TENANT,
    );
    expect(failing.local.status, failing.local.body).not.toBe(200);
    await expectAnswer(
      'sum by (level, detected_level) (count_over_time({app="lhand", set=~"json|logfmt"} | unpack | drop __error__ [5m]))',
      {
        "detected_level=error": "2",
        "detected_level=info": "2",
        "detected_level=unknown": "2",
        "detected_level=warn": "1",
      },
    );
  });

  it('| logfmt lvl="level" under the hints of a volume query', async () => {
    // Hints {lvl, detected_level}: the key `level` is not read, every lvl is the "" set first.
    await expectAnswer(
      'sum by (lvl, detected_level) (count_over_time({app="lhand", set="logfmt"} | logfmt lvl="level" [5m]))',
      { "detected_level=warn,lvl=": "1", "detected_level=error,lvl=": "1", "detected_level=unknown,lvl=": "1" },
    );
    // Hints {level, detected_level}: `level` is read into lvl, no row holds a label `level`.
    await expectAnswer(
      'sum by (level, detected_level) (count_over_time({app="lhand", set="logfmt"} | logfmt lvl="level" [5m]))',
      { "detected_level=warn": "1", "detected_level=error": "1", "detected_level=unknown": "1" },
    );
  });
});

/**
 * Random JSON and logfmt lines from pieces the stages and the guards read (duplicate and missing
 * keys, escapes, nested values, case-changing letters, quotes, level words): pushed or not, every
 * set gives the answer of local evaluation; sets built from plain pieces only must be pushed.
 */
describe("generated lines (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:2692" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const PLAIN_VALUES = ["GET", "get", "post", "info", "error", "created order", "x"];
  const TRICKY_VALUES = ["ß", "ı", "İnfo", "a\\u0041", 'q\\"uote', "a=b", "", "K", "GE\tT"];
  const KEYS = ["level", "lvl", "method", "msg", "status", "job"];

  const jsonLine = (values: string[], tricky: boolean) =>
    fc
      .tuple(
        fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 4 }),
        fc.array(fc.constantFrom(...values), { minLength: 4, maxLength: 4 }),
        tricky
          ? fc.constantFrom(
              "",
              ', "method": "dup"',
              ', "n": {"method": "x"}',
              ', "detected_level": "c"',
              ', "_entry": "x"',
              ', "o": {"a": [1, "x"], "b": "c\\\\d"}',
              ', "o": {"a": {"b": 1}}',
              ', "n": NaN',
              "} x",
            )
          : fc.constant(""),
      )
      .map(
        ([keys, vals, extra]) =>
          `{${keys.map((k, i) => (k === "status" ? `"status": ${200 + i}` : `"${k}": "${vals[i]}"`)).join(", ")}${extra}}`,
      );
  const logfmtValue = (values: string[]) =>
    fc.constantFrom(...values).map((v) => (/[ "\\=]/.test(v) || v === "" ? JSON.stringify(v) : v));
  const logfmtLine = (values: string[], tricky: boolean, keys = KEYS) =>
    fc
      .tuple(
        fc.uniqueArray(fc.constantFrom(...keys), { minLength: 1, maxLength: 4 }),
        fc.array(logfmtValue(values), { minLength: 4, maxLength: 4 }),
        tricky ? fc.constantFrom("", " level=dup", " bare", ' "q"=1', " msg=a=b") : fc.constant(""),
      )
      .map(([names, vals, extra]) => `${names.map((k, i) => `${k}=${vals[i]}`).join(" ")}${extra}`);
  // A plain logfmt line names its level first: a line with pairs but no level pair is one the
  // level reduction leaves to the Worker (plan/level-pushdown.ts). It has no `lvl` key: with
  // `level` it would be two keys of the label `lvl`, which the guard of `| logfmt lvl="level"` sends.
  const plainLogfmtLine = fc
    .tuple(
      fc.constantFrom("info", "error", "warn", "x"),
      logfmtLine(
        PLAIN_VALUES,
        false,
        KEYS.filter((k) => k !== "level" && k !== "lvl"),
      ),
    )
    .map(([level, line]) => `level=${level} ${line}`);
  const plainJson = fc.array(jsonLine(PLAIN_VALUES, false), { minLength: 1, maxLength: 6 });
  const plainLogfmt = fc.array(plainLogfmtLine, { minLength: 1, maxLength: 6 });
  const allValues = [...PLAIN_VALUES, ...TRICKY_VALUES];
  const mixed = fc.array(
    fc.oneof(
      jsonLine(allValues, true),
      logfmtLine(allValues, true),
      fc.constantFrom("an error", "{", "", ' {"level": "warn"}', '{"k\\u0065y": "v"}', '{"a": [{"b": 1}]}'),
    ),
    { minLength: 1, maxLength: 6 },
  );
  const sets = [
    ...fc.sample(plainJson, { numRuns: 6, seed: 2691 }).map((lines) => ({ lines, plain: "json" })),
    ...fc.sample(plainLogfmt, { numRuns: 6, seed: 2692 }).map((lines) => ({ lines, plain: "logfmt" })),
    ...fc.sample(mixed, { numRuns: 24, seed: 2693 }).map((lines) => ({ lines, plain: "" })),
  ];

  beforeAll(async () => {
    const streams = sets.map((set, k) => ({
      stream: { app: "lstage", set: `s${k}` },
      values: set.lines.map((l, i) => [String(base + BigInt(i * 11 + k) * 1_000_000_000n), l]),
    }));
    await pushCounted("26:2692", "lstage", streams, DATA_START, DISCOVERY);
  });

  it("pushed or not, every set gives the answer of local evaluation", async () => {
    const range = { start: String(DATA_START), end: String(DATA_START + 600), step: "60" };
    let pushedAsRequired = 0;
    let fellBack = 0;
    let pushedMixed = 0;
    for (const [k, set] of sets.entries()) {
      const sel = `{app="lstage", set="s${k}"}`;
      const queries: [string, string][] = [
        [`sum by (level, detected_level) (count_over_time(${sel} | logfmt lvl="level" [1m]))`, "logfmt"],
        [`sum by (lvl, detected_level) (count_over_time(${sel} | logfmt lvl="level", job | job!="x" [1m]))`, "logfmt"],
        [
          `sum by (detected_level) (count_over_time(${sel} | logfmt | line_format "{{.msg}}" != "a" or "x" [1m]))`,
          "logfmt",
        ],
        [
          `sum by (method, detected_level) (count_over_time(${sel} | json | keep method, status | drop __error__ [1m]))`,
          "json",
        ],
        [`sum by (level, detected_level) (count_over_time(${sel} | json | keep method | __error__="" [1m]))`, "json"],
        [
          `sum by (detected_level) (count_over_time(${sel} | json | line_format "{{.method | ToUpper}}" | drop __error__ [1m]))`,
          "json",
        ],
        [
          `sum by (level, detected_level) (count_over_time(${sel} | json | line_format "{{ .method }}" |= "GE" or "ß" | drop __error__ [1m]))`,
          "json",
        ],
        [`sum by (set, detected_level) (count_over_time(${sel} | keep set [1m]))`, "any"],
        [`sum by (level, detected_level) (count_over_time(${sel} | unpack | drop __error__ [1m]))`, "any"],
        [`sum by (level, detected_level) (count_over_time(${sel} | unpack [1m]))`, "json"],
        // A label `| json name="…"` sets to "" where the key is missing: a series of its own.
        [`sum by (m, detected_level) (count_over_time(${sel} | json m="method" | drop __error__ [1m]))`, "json"],
        // Templates of several labels, rendered and filtered by the Worker per group.
        [
          `sum by (detected_level) (count_over_time(${sel} | json | line_format "{{.method}} {{.status}}" |~ "^G.* 2" | drop __error__ [1m]))`,
          "json",
        ],
        [
          `sum by (r, detected_level) (count_over_time(${sel} | logfmt | label_format r="{{.msg | ToUpper}}-{{.job}}" | r!="-" [1m]))`,
          "logfmt",
        ],
      ];
      for (const [query, kind] of queries) {
        const { pushed } = await both(query, range, TENANT);
        if (set.plain !== "" && (kind === set.plain || kind === "any")) {
          expect(pushed.linesScanned, `${query} was not pushed down: ${JSON.stringify(set.lines)}`).toBe(0);
          pushedAsRequired++;
        } else if (pushed.linesScanned > 0) fellBack++;
        else if (set.plain === "") pushedMixed++;
      }
    }
    expect(pushedAsRequired).toBe(6 * 9 + 6 * 6);
    // The mixed sets reach the guards: some answers fell back to rows, others were compared pushed.
    console.info(`mixed sets: ${pushedMixed} answers pushed, ${fellBack} fell back`);
    expect(fellBack).toBeGreaterThan(0);
    expect(pushedMixed).toBeGreaterThan(sets.length);
  });
});

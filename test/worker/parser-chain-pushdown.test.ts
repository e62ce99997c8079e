/**
 * Logs Drilldown's field panels over a service with JSON and logfmt bodies
 * (`| json f="[\"f\"]" | logfmt | drop __error__, __error_details__ | f!=""`), its JSON-only form
 * and the parameterless `| json | logfmt`, pushed down: every query is answered twice against the
 * real VictoriaLogs — pushed, and evaluated by the Worker from rows (PUSHDOWN=off) — and the two
 * must agree. Generated streams mix JSON, logfmt and plain lines, with lines both parsers read,
 * keys spelled or nested so that the two sides could differ, and the label as a stream label or
 * structured metadata; plain mixtures must be pushed (no rows read in the Worker). The same for
 * fields found at a nested JSON path (`| json http_method="[\"http\"][\"method\"]"`), over lines
 * that repeat, dot, escape or reshape the path's keys.
 */
import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { pushCounted, pushedAcrossSets, pushedAndLocal } from "./support/metric-answers";
import { expectBucketsNotLines } from "./support/traffic";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;

describe("parser chains on the compat data", () => {
  const range = { start: String(DATA_START), end: String(DATA_END), step: "300" };
  const DRILLDOWN =
    'sum by (level) (count_over_time({app=~"checkout|worker"} | json level="[\\"level\\"]" | logfmt | drop __error__, __error_details__ | level!="" [5m]))';

  it("pushes Drilldown's field panel over JSON and logfmt bodies, with the local answer", async () => {
    for (const query of [
      DRILLDOWN,
      'sum by (method) (count_over_time({app="checkout"} | json method="[\\"method\\"]" | drop __error__, __error_details__ | method!="" [5m]))',
      'sum by (level) (count_over_time({app=~"checkout|worker"} | json | logfmt | drop __error__, __error_details__ | level!="" [5m]))',
      // A numeric filter: JSON lines name `"status":` without a logfmt `=`, which no side reads.
      'sum by (method) (count_over_time({app="checkout"} | json | logfmt | drop __error__, __error_details__ | status >= 500 [5m]))',
      // Typed filters on the expression parser's labels: every line has the keys.
      'sum by (method) (count_over_time({app="checkout"} | json method="method", status="status" | status >= 500 [5m]))',
      'sum by (method) (count_over_time({app="checkout"} | json method, latency_ms | drop __error__, __error_details__ | latency_ms > 250 [5m]))',
    ]) {
      const { pushed, local } = await pushedAndLocal(query, range);
      expect(local.series.size, query).toBeGreaterThan(1);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    }
  });

  describe("origin traffic", () => {
    afterEach(() => vi.restoreAllMocks());

    it("reads buckets instead of lines", async () => {
      const params = { start: String(DATA_START), end: String(DATA_END), step: "60" };
      const query = DRILLDOWN.replace("[5m]", "[1m]");
      await expectBucketsNotLines(query, params);
    });
  });
});

/**
 * Lines for one stream: plain ones, tricky ones, and the grouped label also as a stream label or
 * as structured metadata, besides the lines'.
 */
interface LineSet {
  plain: string[];
  tricky: string[];
  label?: "stream" | "metadata";
}

/** Random mixtures of plain lines, up to two tricky ones, and the label's other sources. */
function mixturesOf(plainLine: fc.Arbitrary<string>, tricky: readonly string[]): fc.Arbitrary<LineSet> {
  return fc.record({
    plain: fc.array(plainLine, { minLength: 2, maxLength: 10 }),
    tricky: fc.array(fc.constantFrom(...tricky), { maxLength: 2 }),
    label: fc.constantFrom(undefined, undefined, "stream" as const, "metadata" as const),
  });
}

/**
 * Each set a stream of its own (`set="s<k>"`), one line every 7 s from `base` (so windows hold
 * several and cut sets in between), `label` set to `from-stream` or `from-metadata` as the set says.
 */
function setStreams(sets: readonly LineSet[], app: string, label: string, base: bigint) {
  return sets.map((set, k) => ({
    stream: { app, set: `s${k}`, ...(set.label === "stream" ? { [label]: "from-stream" } : {}) },
    values: [...set.plain, ...set.tricky].map((line, i) => {
      const ts = String(base + BigInt(i * 7 + k) * 1_000_000_000n);
      return set.label === "metadata" ? [ts, line, { [label]: "from-metadata" }] : [ts, line];
    }),
  }));
}

describe("parser chains over generated lines (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "33:5" };
  const base = BigInt(DATA_START) * 1_000_000_000n;

  const word = fc.constantFrom("a", "bb", "1.2.3", "x-y", "élan", "GET");
  const number = fc.integer({ min: -20, max: 20 }).map(String);
  const plainJson = fc
    .tuple(word, number, fc.constantFrom("info", "warn"))
    .map(([g, n, l]) => `{"msg": "probe", "g": ${JSON.stringify(g)}, "num": ${n}, "level": "${l}"}`);
  const plainLogfmt = fc
    .tuple(word, number, fc.constantFrom("info", "error"))
    .map(([g, n, l]) => `level=${l} g=${g} num=${n} msg="a probe"`);
  const plainText = fc.constantFrom("GET /health 200", "starting worker", "2026-02-01 probe done");
  const plainLine = fc.oneof(plainJson, plainLogfmt, plainText);

  /** Lines where the two parsers, or the two sides, could read `g` differently. */
  const TRICKY = [
    // JSON lines logfmt also reads.
    '{"g": "j", "msg": "x g=l y"}',
    '{"g":"j","msg":"g=l"}',
    '{"g": "j"} g=l',
    'g=l {"g": "j"}',
    '{"g": ""} g=l',
    '{"msg": "a g= b", "g": "j"}',
    // Loki keeps the first parser's label, even ""; logfmt sets it where JSON set none.
    '{"h": "k"} g=l',
    '{"g": null} g=l',
    '{"g": [1]} g=l',
    '{"x": {"g": "n"}} g=l',
    "[1] g=l",
    '"q" g=l',
    // Values `| json g="…"` reads as raw text, or not at all.
    '{"g": null, "num": 1}',
    '{"g": {"x": 1}, "num": 2}',
    '{"g": [1, 2], "num": 3}',
    '{"g": 1.50, "num": 4}',
    '{"g": 1e3}',
    '{"g": true}',
    '{"g": -0}',
    ' {"g": "lead"}',
    '[{"g": "arr"}]',
    '"g=str"',
    '{"g": "a", "g": "b"}',
    '{"G": "case", "g": "low"}',
    '{"g ": "sp"}',
    '{"x": {"g": "nested"}}',
    '{"g_x": "under", "g": "top"}',
    '{"g": "esc\\"q"}',
    '{"g": "\\u00e9"}',
    '{"g": "ünï"}',
    '{"g": "a", "x": NaN}',
    '{"x": NaN, "g": "a"}',
    '{"g": 01}',
    '{"g": "a"} trailing',
    '{"broken": , "g": "a"}',
    '{"g": "a", "broken": }',
    '{"g": "tab\there"}',
    '{"g": "bad \\x escape"}',
    // logfmt lines.
    'g="x y" num=2',
    'g="unterminated num=5',
    '"g"=q num=6',
    "g=a g=b",
    "g =1",
    "g= num=8",
    "g",
    "g=é",
    "g=a\tnum=5",
    "g=a=b",
    'g=x"y',
    "g=repl\ufffd",
    // Escapes in logfmt: a relevant key's quoted value, a quoted key, another key's value.
    'g="caf\\u00e9" num=1',
    'g="\\ud83d" num=2',
    'g="a\\u0022b" num=3',
    '"\\u0067"=q num=4',
    'x="\\ud83d" g=a',
    '{"x": "a=\\u00e9", "g": "j"}',
    "\u001b[31mERROR\u001b[0m g=ansi",
    "g.x=1 g-x=2",
    // Keys without a value: neither side sets a label (Loki's logfmt skips empty values).
    "num g=bare",
    "g=a num= level=info",
    '{"g": "j", "num": 7} num',
    "num=4 num",
  ];

  const plainOf = (seed: number) => fc.sample(plainLine, { numRuns: 6, seed });
  const setOf = mixturesOf(plainLine, TRICKY);
  // Every tricky line once among plain ones, plain mixtures alone, then random mixtures.
  const sets: LineSet[] = [
    ...TRICKY.map((line, k) => ({ plain: plainOf(k), tricky: [line] })),
    {
      plain: [...fc.sample(plainJson, { numRuns: 4, seed: 1 }), ...fc.sample(plainLogfmt, { numRuns: 4, seed: 2 })],
      tricky: [],
    },
    { plain: plainOf(3), tricky: [] },
    { plain: plainOf(4), tricky: [] },
    { plain: plainOf(5), tricky: [], label: "stream" },
    { plain: fc.sample(plainText, { numRuns: 4, seed: 6 }), tricky: [], label: "metadata" },
    ...fc.sample(setOf, { numRuns: 12, seed: 3305 }),
    // Last: JSON lines as Go's encoding/json and Python's json.dumps escape them (values only).
    {
      plain: [],
      tricky: [
        '{"msg": "a\\u0026b \\u003cc\\u003e", "g": "caf\\u00e9", "level": "info"}',
        '{"msg": "\\u65e5\\u672c", "g": "a", "level": "warn", "url": "/p?x=1\\u0026y=2"}',
      ],
    },
  ];

  beforeAll(() => pushCounted("33:5", "pchain", setStreams(sets, "pchain", "g", base), DATA_START));

  const DROP = "drop __error__, __error_details__";
  const shapes = (sel: string) => [
    `sum by (g) (count_over_time(${sel} | json g="[\\"g\\"]" | logfmt | ${DROP} | g!="" [1m]))`,
    `sum by (g) (count_over_time(${sel} | json g="[\\"g\\"]" | ${DROP} | g!="" [30s]))`,
    `sum by (g) (count_over_time(${sel} | json | logfmt | ${DROP} | g!="" [1m]))`,
    `sum by (g, level) (rate(${sel} | json g="[\\"g\\"]", level | logfmt | drop __error__ | g=~"a|b.*|j|l" | level!="", g!="" [20s]))`,
    // Not pushed: the JSON key's label is kept empty on JSON lines without it, apart from the rest.
    `sum by (g) (count_over_time(${sel} | json g="[\\"g\\"]" | logfmt | ${DROP} [1m]))`,
    `sum(bytes_over_time(${sel} | json g | logfmt | ${DROP} | num!="2" [1m]))`,
    `sum by (level) (count_over_time(${sel} | json g="[\\"g\\"]" | logfmt | ${DROP} | g="" [1m]))`,
    `sum by (g) (count_over_time(${sel} | json | logfmt | ${DROP} | num > 2 [1m]))`,
  ];

  it("every set and shape: pushed equals local; plain sets are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      sets.length,
      (k) => shapes(`{app="pchain", set="s${k}"}`),
      (k, query) => {
        const set = sets[k]!;
        return set.tricky.length === 0 && set.label !== "metadata" && !query.endsWith(`${DROP} [1m]))`);
      },
      DATA_START,
      TENANT,
    );
    expect(pushedAsRequired).toBeGreaterThan(20);
    expect(fellBack).toBeGreaterThan(20);
    // About 500 queries, each answered twice: longer than one request's test on a shared machine.
  }, 360_000);

  it("typed filters on the expression parser's labels: pushed equals local on every set", async () => {
    // A line without the key (or refused by the expression parser) is a row Loki's filter errs
    // on: the query fails, or, with the error dropped after the filter, the row is counted.
    const typedShapes = (sel: string) => [
      `sum by (g) (count_over_time(${sel} | json g="[\\"g\\"]", num | logfmt | ${DROP} | num > 2 [1m]))`,
      `sum by (g) (count_over_time(${sel} | json g, num="[\\"num\\"]" | num >= 2 | drop __error__ | g!="" [20s]))`,
    ];
    const { fellBack } = await pushedAcrossSets(
      sets.length,
      (k) => typedShapes(`{app="pchain", set="s${k}"}`),
      () => false,
      DATA_START,
      TENANT,
    );
    expect(fellBack).toBeGreaterThan(20);
  }, 240_000);

  it("keeps a JSON-only chain pushed over values escaped as encoders write them", async () => {
    const query = shapes(`{app="pchain", set="s${sets.length - 1}"}`)[1]!;
    const range = { start: String(DATA_START), end: String(DATA_START + 300), step: "30" };
    const { pushed, local } = await pushedAndLocal(query, range, TENANT);
    expect(local.series.size).toBe(2);
    expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
  });
});

describe("Drilldown's nested JSON fields over generated lines (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "33:6" };
  const base = BigInt(DATA_START) * 1_000_000_000n;

  const word = fc.constantFrom("GET", "POST", "put", "1.2", "x-y", "élan", "日本");
  const plainNested = fc
    .tuple(word, word, fc.integer({ min: 100, max: 599 }), fc.constantFrom("info", "warn"), fc.boolean())
    .map(([m, ua, status, level, statusFirst]) => {
      const http = statusFirst ? `{"status": ${status}, "method": "${m}"}` : `{"method":"${m}","status":${status}}`;
      return `{"msg": "probe", "http": ${http}, "req": {"headers": {"ua": "${ua}", "n": 1}}, "level": "${level}"}`;
    });
  const plainOther = fc.constantFrom(
    '{"msg": "no http here", "level": "info"}',
    '{"msg": "other object", "user": {"name": "ann"}, "level": "warn"}',
    "level=info msg=logfmt http_method=PATCH",
    "GET /health 200",
  );
  const plainLine = fc.oneof(plainNested, plainNested, plainOther);

  /** Lines where Loki's path and VictoriaLogs' flattened `http.method` (or `req.headers.ua`) could differ. */
  const TRICKY = [
    // A key repeated at each level of the path; the first of them null or not an object.
    '{"http": {"method": "GET"}, "http": {"method": "POST"}}',
    '{"http": {"method": "GET", "method": "PUT"}}',
    '{"http": {"method": null, "method": "PUT"}}',
    '{"http": "flat", "http": {"method": "PUT"}}',
    '{"req": {"headers": {"ua": "a"}, "headers": {"ua": "b"}}}',
    '{"req": {"headers": {"ua": "a", "ua": "b"}}}',
    '{"x": {"http": {"method": "deep"}}, "http": {"method": "GET"}}',
    '{"x": {"http": {"method": "deep"}}}',
    '{"user": {"method": "m"}, "http": {"method": "GET"}}',
    // Keys with dots VictoriaLogs flattens to the same name.
    '{"http.method": "DOT"}',
    '{"http.method": "DOT", "http": {"method": "GET"}}',
    '{"req.headers": {"ua": "DOT"}}',
    '{"req": {"headers.ua": "DOT"}}',
    // Values the path reaches that are not scalars, or nothing.
    '{"http": {"method": {"x": 1}}}',
    '{"http": {"method": {}}}',
    '{"http": {"method": ["GET"]}}',
    '{"http": {"method": [ 1, 2 ]}}',
    '{"http": [{"method": "GET"}]}',
    '{"http": {"method": null}}',
    '{"http": {"method": ""}}',
    '{"http": {}}',
    '{"http": null}',
    '{"http": {"method": 1.50}}',
    '{"http": {"method": true}}',
    '{"http": {"method": -0}}',
    '{"http": {"method": 1e3}}',
    '{"http": {"method": "[x"}}',
    // Escapes, unicode, spacing and case.
    '{"http": {"method": "G\\"ET"}}',
    '{"http": {"\\u006dethod": "esc"}}',
    '{"ht\\u0074p": {"method": "esc"}}',
    '{"http": {"method": "\\u00e9"}}',
    '{"http": {"method": "ünï"}}',
    '{"http": {"méthod": "x", "method": "ok"}}',
    '{ "http" : { "method" : "sp" } }',
    '{"http":\n{"method": "nl"}}',
    '{"Http": {"method": "case"}}',
    '{"http": {"method ": "trail"}}',
    '{"http_method": "TOP"}',
    '{"http_method": "TOP", "http": {"method": "GET"}}',
    '{"http": {"method": "GET"}, "http_method": "TOP"}',
    '{"http": {"method": "GET", "x": {"method": "inner"}}}',
    '{"http": {"method": "GET"}, "http-method": "SAN"}',
    '{"http ": {"method": "TRIM"}}',
    '{"req": {"headers_ua": "under", "headers": {"ua": "nested"}}}',
    '{"http": {"status": 500, "status": "x"}, "level": "warn"}',
    '{"http": {"method": "tab\there"}}',
    '{"http": {"method": "repl\ufffd"}}',
    // Lines VictoriaLogs or Loki read only part of, or not as objects.
    '{"http": {"method": "GET"}} trailing',
    '{"http": {"method": "GET"}, "broken": }',
    '{"broken": , "http": {"method": "GET"}}',
    '{"http": {"method": "GET"',
    '{"http": {"method": "GET", "x": NaN}}',
    '{"x": NaN, "http": {"method": "GET"}}',
    '{"http": {"method": 01}}',
    ' {"http": {"method": "lead"}}',
    '[{"http": {"method": "arr"}}]',
    // logfmt lines the chains with `| logfmt` read.
    "http_method=LOGFMT level=info",
    "http.method=1 http-method=2",
    `{"http": {"method": "GET", "${"k".repeat(200)}": 1}}`,
  ];

  const plainOf = (seed: number) => fc.sample(plainLine, { numRuns: 6, seed });
  const setOf = mixturesOf(plainLine, TRICKY);
  const sets: LineSet[] = [
    ...TRICKY.map((line, k) => ({ plain: plainOf(k), tricky: [line] })),
    { plain: fc.sample(plainNested, { numRuns: 8, seed: 1 }), tricky: [] },
    { plain: plainOf(3), tricky: [] },
    { plain: plainOf(4), tricky: [] },
    { plain: plainOf(5), tricky: [], label: "stream" },
    { plain: plainOf(6), tricky: [], label: "metadata" },
    ...fc.sample(setOf, { numRuns: 12, seed: 3306 }),
  ];

  beforeAll(() => pushCounted("33:6", "pnest", setStreams(sets, "pnest", "http_method", base), DATA_START));

  const DROP = "drop __error__, __error_details__";
  const METHOD = 'http_method="[\\"http\\"][\\"method\\"]"';
  const UA = 'req_headers_ua="[\\"req\\"][\\"headers\\"][\\"ua\\"]"';
  const shapes = (sel: string) => [
    `sum by (http_method) (count_over_time(${sel} | json ${METHOD} | ${DROP} | http_method!="" [1m]))`,
    `sum by (http_method) (count_over_time(${sel} | json ${METHOD} | logfmt | ${DROP} | http_method!="" [30s]))`,
    `sum by (req_headers_ua) (count_over_time(${sel} | json ${UA} | ${DROP} | req_headers_ua!="" [1m]))`,
    `sum by (http_method, level) (rate(${sel} | json level="[\\"level\\"]", ${METHOD} | drop __error__ | http_method=~"G.*|P.*|put" | level!="", http_method!="" [20s]))`,
    `sum(bytes_over_time(${sel} | json ${UA}, ${METHOD} | logfmt | ${DROP} | http_method="GET" or req_headers_ua!~"x.*" [1m]))`,
    // `| json` names the same fields `http_method`, `req_headers_ua` and `http_status`.
    `sum by (http_method) (count_over_time(${sel} | json | ${DROP} [20s]))`,
    `sum by (req_headers_ua, http_method) (count_over_time(${sel} | json | logfmt | ${DROP} | req_headers_ua!="" [30s]))`,
    `sum by (level) (count_over_time(${sel} | json | http_status >= 400 | ${DROP} [40s]))`,
    // Not pushed: the path's label is kept empty on JSON lines without it, apart from the rest.
    `sum by (http_method) (count_over_time(${sel} | json ${METHOD} | ${DROP} [1m]))`,
  ];
  const mayStayLocal = (query: string) => query.endsWith(`${DROP} [1m]))`);

  it("every set and shape: pushed equals local; plain sets are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      sets.length,
      (k) => shapes(`{app="pnest", set="s${k}"}`),
      (k, query) => {
        const set = sets[k]!;
        return set.tricky.length === 0 && set.label !== "metadata" && !mayStayLocal(query);
      },
      DATA_START,
      TENANT,
    );
    expect(pushedAsRequired).toBeGreaterThan(40);
    expect(fellBack).toBeGreaterThan(60);
  }, 360_000);

  describe("origin traffic", () => {
    afterEach(() => vi.restoreAllMocks());
    const BULK_AT = DATA_START + 7200;

    beforeAll(async () => {
      // Half an hour of a service's nested JSON lines, 12,000 of them, in four streams.
      const lines = fc.sample(plainNested, { numRuns: 12_000, seed: 26 });
      const streams = [0, 1, 2, 3].map((s) => ({
        stream: { app: "pnestbulk", pod: `p${s}` },
        values: lines
          .filter((_, i) => i % 4 === s)
          .map((line, i) => [String(BigInt(BULK_AT) * 1_000_000_000n + BigInt(i * 4 + s) * 150_000_000n), line]),
      }));
      await pushCounted("33:6", "pnestbulk", streams, BULK_AT);
    });

    it("reads buckets instead of lines for a nested field's panel", async () => {
      const params = { start: String(BULK_AT), end: String(BULK_AT + 1800), step: "60" };
      for (const query of [
        `sum by (http_method) (count_over_time({app="pnestbulk"} | json ${METHOD} | logfmt | ${DROP} | http_method!="" [1m]))`,
        `sum by (http_method) (count_over_time({app="pnestbulk"} | json | ${DROP} [1m]))`,
      ]) {
        await expectBucketsNotLines(query, params, { exactly: 12_000 }, TENANT);
      }
    });
  });
});

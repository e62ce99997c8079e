/**
 * Counting metrics over `| json` / `| logfmt` pushed down must never change an answer. Every query
 * is answered twice against the real VictoriaLogs — pushed down, and evaluated by the Worker from
 * rows (PUSHDOWN=off) — and the two must agree in status, series and values. Generated lines cover
 * what the two sides could read differently (malformed, nested, duplicate and respelled keys,
 * unicode, control characters, number spellings, stream and metadata labels of the same name); the
 * tests also check which answers really were pushed (no rows scanned), so the property never just
 * compares local evaluation with itself.
 */
import type { Env } from "../../src/config";
import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { editedLine, lineEdit, SYNTAX_TOKENS } from "./support/line-edits";
import { lineSetStreams, pushCounted, pushedAcrossSets, pushedAndLocal } from "./support/metric-answers";
import { expectBucketsNotLines } from "./support/traffic";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;

describe("parser push-down on the compat data", () => {
  const range = { start: String(DATA_START), end: String(DATA_END), step: "300" };

  it("pushes Drilldown's field panels and parsed-field filters down", async () => {
    for (const query of [
      'sum by (job) (count_over_time({app="worker"} | logfmt | attempt > 3 [5m]))',
      'sum by (method) (count_over_time({service_name="checkout"} | json | drop __error__, __error_details__ [1m]))',
      'sum by (job) (count_over_time({service_name="worker"} | logfmt | drop __error__, __error_details__ [1m]))',
      'sum by (level, method) (rate({app=~"checkout|payments"} | json | drop __error__ | status >= 200 [5m]))',
      'sum(bytes_over_time({app="worker"} | logfmt | msg=~"order.*|request served" [10m]))',
      'sum by (level) (count_over_time({app="worker"} | logfmt [5m]))',
      'topk(2, sum by (job) (count_over_time({app="auth"} | logfmt | attempt >= 2 and ok="true" [10m])))',
      'sum by (user_id) (count_over_time({app="payments"} | json | drop __error__ | method="GET" or status==404 [10m]))',
      'sum by (app) (bytes_rate({app=~"worker|auth"} |= "order" | logfmt | level!="debug", attempt != 2 [15m]))',
      'sum by (path) (count_over_time({app="checkout"} | json | drop __error__ | __error__="" | method!~"GET|PUT" [30m] offset 10m))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | duration > 50ms [5m]))',
      'sum by (level) (rate({app=~"worker|auth"} | logfmt | size >= 100MB or size < 1KiB [10m]))',
      'sum by (method) (count_over_time({app="checkout"} | json | drop __error__ | duration <= 40ms [10m]))',
      // Without dropping parser errors: no line is malformed, so no pipeline error.
      'sum by (method) (count_over_time({app="checkout"} | json [10m]))',
      'sum by (status) (rate({app="checkout"} | json | __error__="" | method="GET" [5m]))',
      // Selectors over JSON and other lines: neither side reads a key from a line not an object.
      'sum by (app) (count_over_time({app=~".+"} | json | drop __error__ [5m]))',
      'sum by (method) (count_over_time({app=~"checkout|nginx"} | json | method="GET" [5m]))',
      'sum by (app, level) (count_over_time({app=~".+"} | json | __error__="" [5m]))',
      // Names `| json` flattens from a nested object (`"http": {"proto": …, "host": …}`).
      'sum by (http_proto, http_host) (count_over_time({app="payments"} | json | drop __error__ [10m]))',
    ]) {
      const { pushed, local } = await pushedAndLocal(query, range);
      expect(local.series.size, query).toBeGreaterThan(0);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    }
  });

  it("instant queries agree", async () => {
    for (const query of [
      'sum by (job) (count_over_time({app="worker"} | logfmt | attempt > 3 [1h]))',
      'sum by (method) (rate({app="checkout"} | json | drop __error__ [30m]))',
    ]) {
      const { pushed } = await pushedAndLocal(query, { time: String(DATA_START + 4 * 3600) });
      expect(pushed.linesScanned, query).toBe(0);
    }
  });

  it("keeps what it cannot prove equal local, with the same answer", async () => {
    for (const query of [
      // An object under the grouped name: Loki names its members, VictoriaLogs' field is empty.
      'sum by (http) (count_over_time({app="payments"} | json | drop __error__ [10m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | client_ip = ip("2001:db8::/32") [5m]))',
      'count by (job) (count_over_time({app="worker"} | logfmt [5m]))',
      'sum without (pod) (count_over_time({app="worker"} | logfmt [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt --strict [5m]))',
    ]) {
      const { pushed } = await pushedAndLocal(query, range);
      expect(pushed.linesScanned, query).not.toBe(0);
    }
  });
});

describe("origin traffic of Drilldown's field panels (compat data, 6 h)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("reads buckets instead of lines", async () => {
    const params = { start: String(DATA_START), end: String(DATA_END), step: "60" };
    for (const query of [
      'sum by (method) (count_over_time({service_name="checkout"} | json | drop __error__, __error_details__ [1m]))',
      'sum by (job) (count_over_time({service_name="worker"} | logfmt | drop __error__, __error_details__ [1m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | attempt > 3 [5m]))',
    ]) {
      await expectBucketsNotLines(query, params);
    }
  });
});

/**
 * Lines built to probe key extraction and number reading, each set in a stream of its own (in a
 * tenant of its own). A set of plain lines must be pushed; a set with a line VictoriaLogs could read
 * differently may be pushed or sent back, but must give the same answer.
 */
describe("generated lines (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:1" };

  const word = fc.constantFrom("a", "bb", "sync", "x-y", "élan", "GET");
  const number = fc.oneof(
    fc.integer({ min: -20, max: 20 }).map(String),
    fc.tuple(fc.integer({ min: -9, max: 9 }), fc.integer({ min: 0, max: 99 })).map(([i, f]) => `${i}.${f}`),
  );
  const dur = fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: 120 }), fc.constantFrom("ns", "ms", "s", "m", "h")).map(([n, u]) => `${n}${u}`),
    // As Go's Duration.String() writes them; never within a nanosecond of a shape's constant.
    fc
      .tuple(
        fc.integer({ min: 10, max: 99 }),
        fc.integer({ min: 1, max: 999_999 }).filter((f) => f % 10 !== 0),
        fc.constantFrom("ms", "s", "m", "h"),
      )
      .map(([n, f, u]) => `${n}.${f}${u}`),
    // Go's Duration.String() of microseconds (the micro sign) and of a minute or more.
    fc.constantFrom("250µs", "1.5µs", "999.999µs", "7µs", "1h2m3.5s", "2m30s", "1h0m0s", "59m59.999999999s"),
    fc.constantFrom("1h30m", "12m0.000000001s", "3m0.05s", "0h1m"),
    // Microseconds as other encoders spell them, which Go reads too.
    fc.tuple(fc.integer({ min: 0, max: 999 }), fc.constantFrom("us", "\u03bcs")).map(([n, u]) => `${n}${u}`),
    fc.constantFrom("1.5us", "999.999\u03bcs", "12.25us"),
  );
  const size = fc.oneof(
    fc
      .tuple(fc.integer({ min: 0, max: 5000 }), fc.constantFrom("", "B", "KB", "MB", "KiB", "MiB"))
      .map(([n, u]) => `${n}${u}`),
    // Byte counts logged as plain numbers, up to 15 digits, and the edges of `size <= 2KiB`.
    fc.integer({ min: 0, max: 2 ** 40 }).map(String),
    fc.constantFrom("2048", "2049", "999999999999999"),
    // Any case, as go-humanize reads units; fractions (never within a byte of a shape's constant).
    fc
      .tuple(
        fc.integer({ min: 0, max: 5000 }),
        fc.constantFrom("b", "kb", "kB", "Kb", "k", "K", "Ki", "kib", "KIB", "mb", "M", "mib", "Gi", "gb"),
      )
      .map(([n, u]) => `${n}${u}`),
    fc
      .tuple(
        fc.integer({ min: 3, max: 99 }),
        fc.integer({ min: 1, max: 999_999 }),
        fc.constantFrom("KB", "kb", "KiB", "kib", "MB", "Mi", "gb", "B"),
      )
      .map(([n, f, u]) => `${n}.${f}${u}`),
  );
  const plainJson = fc
    .tuple(word, number, fc.integer({ min: 100, max: 599 }), dur, size)
    .map(
      ([g, n, c, d, z]) =>
        `{"msg": "probe", "g": ${JSON.stringify(g)}, "num": ${n}, "http_code": ${c}, "dur": "${d}", "size": "${z}"}`,
    );
  const plainLogfmt = fc
    .tuple(word, number, fc.integer({ min: 100, max: 599 }), dur, size)
    .map(([g, n, c, d, z]) => `level=info g=${g} num=${n} msg="a probe" http_code=${c} dur=${d} size=${z}`);

  const TRICKY_JSON = [
    '{"g": "a", "g": "b", "num": 1}',
    // A three-letter key twice: its repetition is counted before its regex runs.
    '{"num": 5, "g": "a", "num": -1}',
    '{"g": {"x": 1}, "num": 2}',
    '{"g": ["a"], "num": 3}',
    '{"g": null, "num": 4}',
    '{"g": null, "g": "b", "num": 4}',
    '{"g": "a", "g_extracted": "z", "num": 1}',
    '{"g_extracted": "z", "g": "a", "num": 1}',
    '{"g": nul, "num": 4}',
    '{"g": nullx, "num": 4}',
    '{"g":null}',
    '{"x": {"g": null}, "g": null, "num": 4}',
    '{"g": "", "num": ""}',
    '{"g": "a", "num": 5, "broken": }',
    '{"broken": , "g": "a", "num": 5}',
    '{"\\u0067": "u", "num": 1}',
    '{"g ": "sp", "num": 6}',
    '{"g\\t": "tab", "num": 6}',
    '{"num": 01, "g": "z"}',
    '{"num": 1.5e3, "g": "exp"}',
    '{"num": 1., "g": "dot"}',
    '{"num": -0, "g": "negzero"}',
    '{"num": 12345678901234567890, "g": "big"}',
    '{"num": "7", "g": "str"}',
    '{"num": "0x10", "g": "hex"}',
    '{"num": "1_000", "g": "under"}',
    '{"num": true, "g": "bool"}',
    '{"g": "a"} trailing',
    '{"g": "tab\there", "num": 1}',
    '{"g": "bad \\x escape"}',
    '{"g": "repl \ufffd char"}',
    '{"http": {"code": 500}, "g": "nest"}',
    '{"http_code": 200, "http-code": 404}',
    // HTTP headers' spelling, which the origin also reads: alone, null, an array, beside other spellings.
    '{"http-code": 404, "g": "dash"}',
    '{"http-code": null, "g": "dashnull"}',
    '{"http-code": [1], "g": "dasharr"}',
    '{"http-code": 404, "http.code": 500}',
    '{"http": {"code": 1}, "http-code": 2}',
    '{"http-code": 1, "http/code": 2}',
    '{"http-code": "", "g": "dashempty"}',
    '{"http": {"code-x": 1}, "g": "nestdash"}',
    '{"http.code": 404, "g": "dotkey"}',
    '{"ünï": "key", "g": "a"}',
    "g=logfmt num=3",
    // logfmt keys Loki sanitises to `http_code`, which the origin also reads: alone, empty, quoted, beside others.
    "http.code=404 g=dot",
    "http-code=404 g=dash",
    "http.code= g=dotempty",
    'http.code="5 0" g=dotquoted',
    "http.code=1 http-code=2",
    "http_code=1 http.code=2",
    "http/code=1 g=slash",
    "not json at all",
    '{"msg": "no keys we read"}',
    '{"x": NaN, "g": "nan"}',
    '{"x": .5, "g": "lead"}',
    '{"x":NaN,"g":"compact"}',
    '{"x":+1,"g":"plus"}',
    // A value led by an exponent's letter: VictoriaLogs reads a number, Loki's scanner an error.
    '{"x":e5,"g":"exp"}',
    '{"x": E, "g": "upexp"}',
    '{"g": "\u212a\\q", "num": 1}',
    '{"g": "a", "dur": "1.5s", "size": "1.5KB"}',
    '{"g": "a", "dur": "7", "size": "2kb"}',
    '{"g": "a", "dur": "50us", "size": "1 KB"}',
    '{"g": "a", "dur": "1h30m", "size": "1TB"}',
    '{"g": "a", "dur": "-5ms", "size": "-1"}',
    // Microseconds spelt otherwise than Go writes them, compound forms outside the shape.
    '{"g": "a", "dur": "250us", "num": 1}',
    '{"g": "a", "dur": "250μs", "num": 1}',
    '{"g": "a", "dur": "1h2.5m", "num": 1}',
    '{"g": "a", "dur": "1s500ms", "num": 1}',
    '{"g": "a", "dur": "1000h0m0s", "num": 1}',
    '{"g": "a", "dur": "1.0001µs", "num": 1}',
    // VictoriaLogs reads these a nanosecond short of Go (8199999 ns), `>= 8.2ms` on the edge.
    '{"g": "a", "dur": "8.2ms", "num": 1}',
    '{"g": "b", "dur": "0.0082s", "num": 1}',
    '{"g": "a", "dur": "8.20ms", "num": 2}',
    // Fractions finer than Go's nanoseconds, or than its exact unit quotient; a fraction of days.
    '{"g": "a", "dur": "8.2000001ms", "num": 1}',
    '{"g": "a", "dur": "0.0000000082h", "num": 1}',
    '{"g": "a", "dur": "50.5d", "num": 1}',
    '{"g": "a", "dur": "3000000h", "size": "99999999GiB"}',
    '{"g": "a", "size": "1234567890123456"}',
    '{"g": "a", "size": 999999999999999}',
    '{"g": "a", "size": "002048"}',
    // Within a byte of `size <= 2KiB` (2048) read through a float, a dotless i (which upper-cases
    // to `I`, where go-humanize's lower-casing does not give `i`), a plain fraction (go-humanize
    // truncates it, VictoriaLogs reads a number), a space.
    '{"g": "a", "size": "2.0KiB"}',
    '{"g": "b", "size": "1.99999kib"}',
    '{"g": "a", "size": "2.0009765625kib"}',
    '{"g": "a", "size": "2048.5b"}',
    '{"g": "a", "size": "1k\u0131b"}',
    '{"g": "a", "size": "2048.5"}',
    '{"g": "a", "size": "1.5 kb"}',
    '{"g": "a", "dur": "3000000us", "size": "2kIb"}',
    // Escapes: in a key any may change the name Loki reads; in a value surrogates, controls, U+FFFD.
    '{"g\\u0020": "sp", "num": 6}',
    '{"g\\u2028": "ls", "num": 6}',
    '{"http\\u0026code": 404, "g": "amp"}',
    '{"http\\u005fcode": 404, "g": "under"}',
    '{"g": "\\ud83d\\ude00", "num": 1}',
    '{"g": "lone \\ud800", "num": 1}',
    '{"g": "\\ude00 low first", "num": 1}',
    '{"g": "\\ud83d\\ud83d\\ude00", "num": 1}',
    '{"g": "\\ud83d\\ude00\\ude01", "num": 1}',
    '{"g": "\\\\ud83d\\ude00", "num": 1}',
    '{"g": "\\ud83d\\u0041", "num": 1}',
    '{"g": "nul\\u0000x", "num": 1}',
    '{"g": "x\\ufffd", "num": 1}',
    '{"g": "\\\\u0067", "num": 1}',
    '{"g": "a", "note": "x\\u0022, \\u0022g\\u0022: \\u0022y"}',
    // A `\u` without four hex digits: Loki's value is empty, its key an error.
    '{"g": "short \\u12", "num": 1}',
    '{"g\\u12": "k", "num": 1}',
    '{"g": "a\\u", "num": 1}',
    // JSON that is not an object, what follows an object, and what parses only for one side.
    '[{"g": "arr", "num": 1}]',
    '"a string"',
    "42",
    '{"g": "a", "num": 1},"b": 2',
    '{"g": "a"},"__lvw":{"g":"fake"},"__lvw.g":"fake"',
    '  {"g": "lead ws", "num": 1}',
    '{"g": "a", "num": 1,}',
    '{"g": "a", "num": 1} {"g": "b"}',
    '{"g": tru, "num": 1}',
    // Raw control characters: JSON's whitespace before a number VictoriaLogs reads and Loki rejects,
    // one Loki's key trimming removes, one outside a string (both parsers stop there).
    '{"x":\t+1,"g":"tabplus","num": 1}',
    '{"x":\n.5,"g":"nldot","num": 2}',
    '{"x":\r\nNaN,"g":"crnan","num": 3}',
    '{"g\u000b": "vt", "num": 1}',
    '{"num": 1,\u0001"g": "ctl"}',
    '{"g": "a",\u0001"num": 5}',
    '{"g":\t"tabbed",\n"num":\t4}',
  ];
  /**
   * Lines as encoders write them, with every field the shapes read: Go's encoding/json escapes `&`,
   * `<`, `>`, U+2028 and U+2029, Python's json.dumps every non-ASCII character. Escapes in values
   * decode alike on both sides, so a stream of such lines must still be pushed down.
   */
  const ENCODER_ESCAPED_JSON = [
    '{"msg": "a\\u0026b \\u003cok\\u003e", "g": "caf\\u00e9", "num": 3, "http_code": 200, "dur": "5ms", "size": "10KB"}',
    '{"msg": "\\u65e5\\u672c\\u8a9e", "g": "a", "num": 1, "http_code": 404, "dur": "7s", "size": "1MB", "url": "/p?x=1\\u0026y=2"}',
    '{"msg": "line\\u2028sep\\u2029", "g": "b\\u00e9b", "num": -2, "http_code": 500, "dur": "1m", "size": "0"}',
    '{"msg": "tab\\tquote\\"", "g": "\\u00fcber", "num": 4, "http_code": 201, "dur": "3s", "size": "2KiB"}',
    // None and nil are written `null`: neither side sets a label from one.
    '{"text": "none", "g": null, "num": 6, "http_code": null, "dur": "4s", "size": "1KB"}',
    // Python's json.dumps writes a character outside the BMP as a surrogate pair.
    '{"msg": "ok \\ud83d\\ude00", "g": "\\ud83c\\udf89", "num": 5, "http_code": 200, "dur": "2s", "size": "3KB"}',
  ];
  /**
   * Quoted logfmt values holding `=` beside a space, or without one (go-kit and logrus quote a value
   * holding `=`): both sides read them alike, so pushed.
   */
  const QUOTED_LOGFMT = [
    'level=info g="cache miss key=42" num=1 msg="a probe" http_code=200 dur=5ms size=10KB',
    'level=warn g="a b=c=d" num=2 msg="x=y z" http_code=503 dur=7s size=2KiB',
    'level=info g=plain num=3 msg="a probe" http_code=200 dur=1m size=0',
    'level=info g="/v1/search?q=shoes" num=4 msg="proxied request" http_code=200 dur=5ms size=1KB',
    'level=info msg="q=1" g="a=b=" num=5 http_code=404 dur=1s size=2KB',
  ];
  const TRICKY_LOGFMT = [
    'g="x y=z num=3',
    'g="x y=z" num="3 =4"',
    "g=a=b c num=3",
    "g=a g=b num=1",
    "num=5 g=a num=-1",
    "g=a g_extracted=z num=1",
    'g="x y" num=2',
    'g="a=b" num=3',
    "g=a=b num=3",
    // The key twice, one value quoted: which one a side keeps is the repetition's question.
    'g="a=b" g=c=d num=3',
    'msg="x g=y" g=a=b num=3',
    'g=a=b msg="g=" num=3',
    'g=x"y num=4',
    'g="unterminated num=5',
    '"g"=q num=6',
    '"g\u212a"=q num=6',
    "g num=7",
    "g= num=8",
    "g=a num=",
    "g=a num",
    "g=a num=abc",
    "g=a num=1e3",
    "g=a num=0x10",
    "g=a num=07",
    "g=a num=-0",
    "g=a\tnum=5",
    // Whitespace between a key and its `=`: VictoriaLogs trims it off the key, Loki ends the key there.
    "g\t=tab num=5",
    "g=a num\n=6",
    "g\u00a0\t=nbsp num=7",
    // An escaped quote leaves a quoted value unterminated, with an even number of quotes in the line.
    'x="ok\\" g=a num=5',
    'x="a\\\\\\" y" g=b num=2',
    "g=a num=5\u001b[0m",
    "\u001b[31mERROR\u001b[0m g=ansi num=9",
    "g.x=1 g-x=2 num=1",
    "g=é num=2",
    "g=a\\b num=3",
    'g="a\\"b" num=3',
    'g="tab\\there" num=3',
    "g=a num=3.000001",
    "g=a http_code=200 http-code=404",
    "g=repl\ufffd num=1",
    '{"g": "json", "num": 3}',
    "no pairs here",
    "g=a dur=1.5s size=1.5KB",
    "g=a dur=7 size=2kb",
    "g=a dur=50µs size=1kB",
    "g=a dur=1h30m size=1TB",
    "g=a dur=0 size=0",
    "g=a dur=1d size=5EB",
    "g=a dur=8.2ms num=1",
    "g=b dur=0.0082s num=2",
    "g=a dur=12.3456789ms num=3",
    "g=a dur=1.5.5s num=3",
    "g=a dur=50us num=1",
    "g=a dur=2m3.5s500ms num=1",
    "g=b dur=0h0m0.05s num=2",
  ];

  type Kind = "json" | "logfmt";
  interface LineSet {
    kind: Kind;
    plain: string[];
    tricky: string[];
    /** `g` as a stream label or as structured metadata, besides the lines'. */
    label?: "stream" | "metadata";
  }
  const setOf = (kind: Kind) =>
    fc.record({
      kind: fc.constant(kind),
      plain: fc.array(kind === "json" ? plainJson : plainLogfmt, { minLength: 2, maxLength: 10 }),
      tricky: fc.array(fc.constantFrom(...(kind === "json" ? TRICKY_JSON : TRICKY_LOGFMT)), { maxLength: 2 }),
      label: fc.constantFrom(undefined, undefined, "stream" as const, "metadata" as const),
    });
  const plainOf = (kind: Kind, seed: number) =>
    fc.sample(kind === "json" ? plainJson : plainLogfmt, { numRuns: 4, seed });
  // Every tricky line once among plain ones, plain sets alone, then random mixtures.
  const sets: LineSet[] = [
    ...TRICKY_JSON.map((line, k) => ({ kind: "json" as const, plain: plainOf("json", k), tricky: [line] })),
    ...TRICKY_LOGFMT.map((line, k) => ({ kind: "logfmt" as const, plain: plainOf("logfmt", k), tricky: [line] })),
    { kind: "json", plain: plainOf("json", 1), tricky: [] },
    { kind: "logfmt", plain: plainOf("logfmt", 2), tricky: [] },
    { kind: "json", plain: plainOf("json", 3), tricky: [], label: "stream" },
    { kind: "json", plain: [...plainOf("json", 6), ...ENCODER_ESCAPED_JSON], tricky: [] },
    { kind: "json", plain: ENCODER_ESCAPED_JSON, tricky: [], label: "stream" },
    { kind: "logfmt", plain: plainOf("logfmt", 4), tricky: [], label: "stream" },
    { kind: "logfmt", plain: plainOf("logfmt", 5), tricky: [], label: "metadata" },
    { kind: "logfmt", plain: QUOTED_LOGFMT, tricky: [] },
    ...fc.sample(setOf("json"), { numRuns: 10, seed: 2601 }),
    ...fc.sample(setOf("logfmt"), { numRuns: 10, seed: 2602 }),
  ];

  beforeAll(async () => {
    const streams = lineSetStreams("pgen", sets, DATA_START, {
      stream: { g: "from-stream" },
      metadata: { g: "from-metadata" },
    });
    await pushCounted("26:1", "pgen", streams, DATA_START);
  });

  // With `| json` alone a line its parser rejects fails the query (Loki's pipeline error), and
  // `| __error__=""` removes it.
  const jsonErrorShapes = (sel: string) => [
    `sum by (g) (count_over_time(${sel} | json [1m]))`,
    `sum(count_over_time(${sel} | json | num > 0 [30s]))`,
    `sum by (http_code) (rate(${sel} | json | g="a" or num < 0 [20s]))`,
    `sum by (g) (count_over_time(${sel} | json | __error__="" [40s]))`,
    `sum by (g, http_code) (bytes_over_time(${sel} | json | __error__="" | num >= 0 [1m]))`,
    `sum by (set) (count_over_time(${sel} | json | g!="a" | __error__="" | drop __error__ [1m]))`,
  ];
  const shapes = (kind: Kind, sel: string) => {
    const parser = kind === "json" ? "json | drop __error__, __error_details__" : "logfmt";
    return [
      ...(kind === "json" ? jsonErrorShapes(sel) : []),
      `sum by (g) (count_over_time(${sel} | ${parser} [1m]))`,
      `sum by (g, set) (count_over_time(${sel} | ${parser} | num > 0 [30s]))`,
      `sum(bytes_over_time(${sel} | ${parser} | g=~"a|b.*" [1m]))`,
      `sum by (http_code) (rate(${sel} | ${parser} | num <= 3 or g!="a" [20s]))`,
      `sum by (http_code_x) (count_over_time(${sel} | ${parser} [1m]))`,
      `sum by (g) (bytes_rate(${sel} | ${parser} | num != 2 | http_code >= 200 [1m]))`,
      `sum by (set) (count_over_time(${sel} | ${parser} | num == 3, g="a" [1m]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | __error__="" [40s]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | dur > 50ms [1m]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | dur >= 8.2ms [1m]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | dur < 1s [1m]))`,
      // Where `g` is a stream label or metadata, Loki names the line's key `g_extracted`.
      `sum by (g_extracted) (count_over_time(${sel} | ${parser} [1m]))`,
      `sum by (g_extracted, g) (rate(${sel} | ${parser} | num > 0 [30s]))`,
      `sum(count_over_time(${sel} | ${parser} | size <= 2KiB or dur == 3s [30s]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | size > 1.5KB, dur < 500us [1m]))`,
    ];
  };

  it("every set and shape: pushed equals local; plain sets are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      sets.length,
      (k) => shapes(sets[k]!.kind, `{app="pgen", set="s${k}"}`),
      (k) => sets[k]!.tricky.length === 0 && sets[k]!.label !== "metadata",
      DATA_START,
      TENANT,
    );
    expect(pushedAsRequired).toBeGreaterThan(20);
    expect(fellBack).toBeGreaterThan(20);
    // About 1,300 queries, each answered twice: longer than one request's test on a shared machine.
  }, 360_000);
});

/**
 * A property over line sets (each one stream, `label` also a stream label or structured metadata
 * where the set says): every shape answered pushed down and evaluated locally, the two equal, and
 * pushed where `mustPush` requires it.
 */
function lineSetProperty(o: {
  tenant: string;
  app: string;
  label: string;
  sets: readonly { plain: string[]; tricky: string[]; label?: "stream" | "metadata" }[];
  shapes: (selector: string) => string[];
  mustPush: (set: number, query: string) => boolean;
  check: (pushedAsRequired: number, fellBack: number) => void;
  /** The Worker's settings for both answers (level discovery, for one). */
  vars?: Partial<Env>;
}): void {
  beforeAll(async () => {
    const streams = lineSetStreams(o.app, o.sets, DATA_START, {
      stream: { [o.label]: "from-stream" },
      metadata: { [o.label]: "from-metadata" },
    });
    await pushCounted(o.tenant, o.app, streams, DATA_START, o.vars);
  });

  it("every set and shape: pushed equals local; plain sets are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      o.sets.length,
      (k) => o.shapes(`{app="${o.app}", set="s${k}"}`),
      o.mustPush,
      DATA_START,
      { "X-Scope-OrgID": o.tenant },
      o.vars,
    );
    o.check(pushedAsRequired, fellBack);
  }, 240_000);
}

/**
 * The line sets of a property test over one log convention: two of plain lines, one of plain lines
 * whose rows also hold the label (`label`: stream label or metadata), then each tricky line among
 * plain ones.
 */
function lineSets(
  lines: fc.Arbitrary<string>,
  tricky: readonly string[],
  label: "stream" | "metadata",
  runs = 8,
): { plain: string[]; tricky: string[]; label?: "stream" | "metadata" }[] {
  return [
    { plain: fc.sample(lines, { numRuns: runs, seed: 1 }), tricky: [] },
    { plain: fc.sample(lines, { numRuns: runs, seed: 2 }), tricky: [] },
    { plain: fc.sample(lines, { numRuns: 4, seed: 3 }), tricky: [], label },
    ...tricky.map((line, k) => ({ plain: fc.sample(lines, { numRuns: 3, seed: 10 + k }), tricky: [line] })),
  ];
}

/**
 * Labels led by `_`: GELF's additional fields (`_facility`), and Serilog's `@l` and `@mt`, which
 * Loki reads as `_l` and `_mt`. The origin reads both spellings; a field of such a name outside the
 * streams labelled with it is not a label the Worker reads (it is the origin's, by its `_`), so such
 * rows are the guard's, as are lines with another spelling, two of them, or a value of another shape.
 */
describe("labels led by an underscore (property, real VictoriaLogs)", () => {
  const gelf = fc
    .record({
      host: fc.constantFrom("h1", "h2"),
      facility: fc.constantFrom("shop", "billing", "auth"),
      user: fc.integer({ min: 0, max: 9 }),
      level: fc.constantFrom(3, 4, 6),
    })
    .map((r) =>
      JSON.stringify({
        version: "1.1",
        host: r.host,
        short_message: "m",
        level: r.level,
        _facility: r.facility,
        _user_id: r.user,
      }),
    );
  const clef = fc
    .record({ l: fc.constantFrom(undefined, "Warning", "Error"), id: fc.integer({ min: 1, max: 99 }) })
    .map(({ l, id }) =>
      JSON.stringify({ "@t": "2026-02-01T00:00:00Z", "@mt": "Placed {Id}", ...(l ? { "@l": l } : {}), Id: id }),
    );
  const TRICKY = [
    '{"@l": "Warning", "_l": "Error"}',
    '{"_l": "a", "_l": "b"}',
    '{"$l": "Dollar"}',
    '{"@l ": "Padded"}',
    '{"_facility": null, "_user_id": 3}',
    '{"_facility": {"a": 1}}',
    '{"_user_id": "1e3", "_facility": "shop"}',
    '{"x": {"_facility": "nested"}}',
    "_facility=shop _user_id=4 msg=x",
    "@l=warn x=1",
  ];
  const sets: { plain: string[]; tricky: string[]; label?: "stream" | "metadata" }[] = [
    { plain: fc.sample(gelf, { numRuns: 6, seed: 1 }), tricky: [] },
    { plain: fc.sample(clef, { numRuns: 6, seed: 2 }), tricky: [] },
    { plain: [...fc.sample(gelf, { numRuns: 3, seed: 3 }), ...fc.sample(clef, { numRuns: 3, seed: 4 })], tricky: [] },
    { plain: fc.sample(gelf, { numRuns: 4, seed: 5 }), tricky: [], label: "metadata" },
    { plain: fc.sample(gelf, { numRuns: 4, seed: 6 }), tricky: [], label: "stream" },
    ...TRICKY.map((line, k) => ({
      plain: fc.sample(k % 2 ? gelf : clef, { numRuns: 3, seed: 10 + k }),
      tricky: [line],
    })),
  ];

  const shapes = (sel: string) => [
    `sum by (_facility) (count_over_time(${sel} | json | drop __error__, __error_details__ [1m]))`,
    `sum by (_l) (count_over_time(${sel} | json | drop __error__, __error_details__ [1m]))`,
    `sum by (_mt, _l) (count_over_time(${sel} | json | __error__="" [1m]))`,
    `sum(count_over_time(${sel} | json | drop __error__, __error_details__ | _user_id > 3 [30s]))`,
    `sum by (_facility) (bytes_over_time(${sel} | json | drop __error__, __error_details__ | _l!="" [1m]))`,
    `sum by (_facility) (count_over_time(${sel} | json | logfmt | drop __error__, __error_details__ [1m]))`,
    `sum by (_facility) (count_over_time(${sel} | logfmt [1m]))`,
  ];

  lineSetProperty({
    tenant: "26:41",
    app: "ugen",
    label: "_facility",
    sets,
    shapes,
    // `_l` on GELF lines stays local: a key ending in `l` (`level`) may be a spelling of it to the guard.
    mustPush: (k, query) =>
      sets[k]!.tricky.length === 0 &&
      sets[k]!.label !== "metadata" &&
      !query.includes("| logfmt [") &&
      !(query.includes("_l") && k !== 1),
    check: (pushedAsRequired, fellBack) => {
      expect(pushedAsRequired).toBeGreaterThan(10);
      expect(fellBack).toBeGreaterThan(5);
    },
  });
});

/**
 * JSON lines carried as strings: Docker's json-file driver writes each line of a container as the
 * string `log` (a JSON line among them, ending in `\n`). Both sides decode such a value alike, so
 * a panel grouped by it is pushed; a member holding an object or an array is read apart (Loki names
 * its members, the origin keeps its text), and a regex over a value holding a line break is the
 * guard's.
 */
describe("JSON lines wrapped as strings (property, real VictoriaLogs)", () => {
  const inner = fc
    .record({
      level: fc.constantFrom("info", "warn", "error"),
      msg: fc.constantFrom("handled", "retry", "a\tb"),
      status: fc.constantFrom(200, 500),
    })
    .map((r) => JSON.stringify(r));
  const docker = fc
    .record({
      log: fc.oneof(
        inner.map((l) => `${l}\n`),
        fc.constantFrom("[1, 2]\n", "plain text\n", "{not json\n", "x\r\n"),
      ),
      stream: fc.constantFrom("stdout", "stderr"),
    })
    .map((r) => JSON.stringify({ ...r, time: "2026-02-01T00:00:00.000000001Z" }));
  const TRICKY = [
    // Objects and arrays under the grouped name: Loki names their members or skips them.
    '{"log": {"level": "info"}, "stream": "stdout"}',
    '{"log":[1,"a"],"stream":"stderr"}',
    '{"log" :\n{"a": 1}, "stream": "stdout"}',
    '{"log":\t["x"], "stream": "stdout"}',
    // A string so starting beside an object elsewhere in the line.
    '{"log": "{\\"a\\":1}\\n", "attrs": {"k": "v"}, "stream": "stdout"}',
    // Raw control characters inside the string, escaped ones, both sides keep or decode them.
    '{"log": "raw\u0001ctl\\n", "stream": "stdout"}',
    '{"log": "esc\\u0001ctl\\n", "stream": "stdout"}',
    '{"log": "{\\"level\\":\\"info\\"}\\n", "log": "dup", "stream": "stdout"}',
    // Lines `| json` rejects, read by a chain's `| logfmt`: Loki ends a value at a control character.
    "log=ab\tcd stream=stdout",
    "log=x\u0001y stream=stderr",
  ];
  const sets = lineSets(docker, TRICKY, "metadata");

  const shapes = (sel: string) => [
    `sum by (log) (count_over_time(${sel} | json | drop __error__, __error_details__ [1m]))`,
    `sum by (log, stream) (bytes_over_time(${sel} | json | drop __error__, __error_details__ [30s]))`,
    `sum by (stream) (count_over_time(${sel} | json | drop __error__, __error_details__ | log!="" [1m]))`,
    `sum by (log) (count_over_time(${sel} | json | __error__="" | log="[1, 2]\\n" or stream="stderr" [1m]))`,
    // Regexes over values holding a line break: guarded, the same answer.
    `sum by (stream) (count_over_time(${sel} | json | drop __error__, __error_details__ | log=~".*info.*" [1m]))`,
    `sum(count_over_time(${sel} | json | drop __error__, __error_details__ | log!~"(?s).+\\n" [1m]))`,
    `sum by (log) (count_over_time(${sel} | json | logfmt | drop __error__, __error_details__ [1m]))`,
  ];

  lineSetProperty({
    tenant: "26:42",
    app: "dgen",
    label: "log",
    sets,
    shapes,
    mustPush: (k, query) => sets[k]!.tricky.length === 0 && sets[k]!.label !== "metadata" && !/[=!]~/.test(query),
    check: (pushedAsRequired, fellBack) => {
      expect(pushedAsRequired).toBe(10);
      expect(fellBack).toBeGreaterThan(10);
    },
  });
});

/**
 * Traefik's access log names request headers `request_User-Agent`: Loki reads the label
 * `request_User_Agent`, the origin unpacks that spelling among the name's others. Two spellings in
 * a line, or one through a nested object beside another, stay the guard's.
 */
describe("header fields spelt with _ and - (property, real VictoriaLogs)", () => {
  const traefik = fc
    .record({
      ua: fc.constantFrom("curl/8.4.0", "k6/0.50", "Mozilla/5.0"),
      status: fc.constantFrom(200, 404, 500),
      method: fc.constantFrom("GET", "PUT"),
    })
    .map((r) =>
      JSON.stringify({
        DownstreamStatus: r.status,
        RequestMethod: r.method,
        "request_User-Agent": r.ua,
        level: "info",
      }),
    );
  const TRICKY = [
    '{"request_User-Agent": "a", "request-User_Agent": "b"}',
    '{"request_User-Agent": "a", "request_User_Agent": "b"}',
    '{"request": {"User-Agent": "nested"}, "DownstreamStatus": 200}',
    '{"request": {"User-Agent": "n"}, "request_User-Agent": "flat"}',
    '{"request_User": {"Agent": "deep"}}',
    '{"request_User-Agent": ["x"]}',
    '{"request_User-Agent": null, "request-User-Agent": "c"}',
    '{"request_User-Agent ": "padded"}',
  ];
  const sets = lineSets(traefik, TRICKY, "metadata");

  const shapes = (sel: string) => [
    `sum by (request_User_Agent) (count_over_time(${sel} | json | drop __error__, __error_details__ [1m]))`,
    `sum by (RequestMethod) (count_over_time(${sel} | json | request_User_Agent="curl/8.4.0" [1m]))`,
    `sum by (request_User_Agent, DownstreamStatus) (bytes_over_time(${sel} | json | DownstreamStatus >= 400 [30s]))`,
  ];

  lineSetProperty({
    tenant: "26:43",
    app: "tgen",
    label: "request_User_Agent",
    sets,
    shapes,
    mustPush: (k) => sets[k]!.tricky.length === 0 && sets[k]!.label !== "metadata",
    check: (pushedAsRequired, fellBack) => {
      expect(pushedAsRequired).toBe(6);
      expect(fellBack).toBeGreaterThan(8);
    },
  });
});

/**
 * Fluent Bit's Kubernetes wrapper: the line as `log`, the pod's metadata as a nested `kubernetes`
 * object whose keys share their last part (`pod_name`, `namespace_name`, `container_name`). Loki
 * reads `kubernetes_container_name` through the object, the origin unpacks `kubernetes.container_name`;
 * a second spelling of the name (flat, dotted, nested deeper, repeated) stays the guard's.
 */
describe("Kubernetes metadata nested by Fluent Bit (property, real VictoriaLogs)", () => {
  const fluentBit = fc
    .record({
      pod: fc.constantFrom("worker-1a2b3", "worker-9f8e7", "api-55d1c"),
      container: fc.constantFrom("uploader", "api", "sidecar"),
      level: fc.constantFrom("INFO", "WARN", "ERROR"),
      stream: fc.constantFrom("stdout", "stderr"),
    })
    .map((r) =>
      JSON.stringify({
        log: `2026-03-10T18:00:00.123Z ${r.level} sync done\n`,
        stream: r.stream,
        kubernetes: {
          pod_name: r.pod,
          namespace_name: "batch",
          labels: { "app.kubernetes.io/name": r.container, "pod-template-hash": "a1b2c3d4" },
          container_name: r.container,
        },
      }),
    );
  const TRICKY = [
    '{"kubernetes": {"container_name": "a", "container": {"name": "b"}}}',
    '{"kubernetes_container_name": "flat", "kubernetes": {"container_name": "nested"}}',
    '{"kubernetes": {"container_name": "a"}, "kubernetes.container_name": "dotted"}',
    '{"kubernetes": {"container_name": "a", "container_name": "b"}}',
    '{"kubernetes": {"container_name": null}, "kubernetes_container": {"name": "x"}}',
    '{"kubernetes": {"container_name": ["a"]}, "stream": "stdout"}',
    '{"kubernetes": {"container": {"name": "deep"}}, "kubernetes_container_name": "flat"}',
    '{"kubernetes": {"container-name": "dash", "container_name": "under"}}',
  ];
  const sets = lineSets(fluentBit, TRICKY, "stream");

  const shapes = (sel: string) => [
    `sum by (kubernetes_container_name) (count_over_time(${sel} | json | drop __error__, __error_details__ [1m]))`,
    `sum by (kubernetes_pod_name) (count_over_time(${sel} | json | kubernetes_container_name="api" [1m]))`,
    `sum by (kubernetes_container_name, stream) (bytes_over_time(${sel} | json | kubernetes_pod_name=~"w.*" [30s]))`,
  ];

  lineSetProperty({
    tenant: "26:44",
    app: "kgen",
    label: "kubernetes_container_name",
    sets,
    shapes,
    mustPush: (k) => sets[k]!.tricky.length === 0 && sets[k]!.label !== "stream",
    check: (pushedAsRequired, fellBack) => {
      expect(pushedAsRequired).toBe(6);
      expect(fellBack).toBeGreaterThan(8);
    },
  });
});

/**
 * JSON keys holding `""` (Caddy's `user_id` on anonymous requests, Traefik's `msg`): Loki keeps the
 * label set to "" as a series apart from the rows without the key, where the origin reads no value.
 * Grouped alone, or read by string filters alone, such rows are read again from a copy of the line
 * marking the empty value (in a `| json | logfmt` chain too, where the empty value leaves
 * `| logfmt` nothing to set), a filter reading it as ""; a nested `""`, other spellings of the key
 * and the mark's own character stay the guard's.
 */
describe("JSON keys holding the empty string (property, real VictoriaLogs)", () => {
  const access = fc
    .record({
      user: fc.constantFrom("", "", "alice", "bob"),
      keyed: fc.boolean(),
      spaced: fc.boolean(),
      level: fc.constantFrom("info", "error"),
      status: fc.constantFrom(200, 500),
    })
    .map((r) => {
      const line = { level: r.level, ...(r.keyed && { user_id: r.user }), status: r.status, msg: "" };
      return r.spaced ? JSON.stringify(line).replaceAll('":', '": ').replaceAll(',"', ', "') : JSON.stringify(line);
    });
  const TRICKY = [
    '{"level": "info", "a": {"user_id": ""}}',
    '{"user_id": "", "user_id": "x", "level": "info"}',
    '{"user_id": "\\u0001", "level": "info"}',
    '{"user_id": "\u0001", "level": "info"}',
    '{"user_id" : "", "level": "info"}',
    '{"user_id": "", "a": {"user_id": "x"}, "level": "info"}',
    '{"user_id": null, "a": {"user_id": ""}, "level": "error"}',
    '{"msg": "\\"user_id\\":\\"\\"", "level": "info"}',
    '{"user.id": "", "level": "info"}',
    '{"user_id": "", "user-id": "y", "level": "info"}',
  ];
  const sets = lineSets(access, TRICKY, "metadata", 10);

  const shapes = (sel: string) => [
    `sum by (user_id) (count_over_time(${sel} | json | drop __error__, __error_details__ [1m]))`,
    `sum by (user_id, level) (count_over_time(${sel} | json [1m]))`,
    `sum by (user_id, msg) (bytes_over_time(${sel} | json | status >= 500 [30s]))`,
    `sum by (user_id) (count_over_time(${sel} | json | logfmt | drop __error__, __error_details__ [1m]))`,
    // Drilldown's field panel under a level filter: the level push-down's.
    `sum by (user_id) (count_over_time(${sel} | json | drop __error__, __error_details__ | detected_level="info" [1m]))`,
    // Filtered, not grouped: Explore's volume of the anonymous requests, and of the others.
    `sum by (level, detected_level) (count_over_time(${sel} | json | user_id="" | drop __error__ [1m]))`,
    `sum by (status) (count_over_time(${sel} | json | drop __error__, __error_details__ | user_id!="" [1m]))`,
    `sum by (level) (count_over_time(${sel} | json | logfmt | drop __error__, __error_details__ | user_id=~"a.*|" [1m]))`,
    // Grouped and filtered: grouped by a copy of the value taken before the filters read it.
    `sum by (user_id) (count_over_time(${sel} | json | drop __error__, __error_details__ | user_id!="" [1m]))`,
    `sum by (user_id, level) (count_over_time(${sel} | json | user_id=~"|a.*" [1m]))`,
  ];

  lineSetProperty({
    tenant: "26:45",
    app: "egen",
    label: "user_id",
    sets,
    shapes,
    // Grafana's default: the level filter is then the level push-down's.
    vars: { DISCOVER_LOG_LEVELS: "true" },
    mustPush: (k) => sets[k]!.tricky.length === 0 && sets[k]!.label !== "metadata",
    check: (pushedAsRequired, fellBack) => {
      expect(pushedAsRequired).toBe(20);
      expect(fellBack).toBeGreaterThan(8);
    },
  });
});

/**
 * Plain JSON and logfmt lines with a few random edits (a character inserted or removed, a value
 * replaced by a token one of the two readers takes otherwise): a differential test with no claim
 * about which answers are pushed, only that every one equals local evaluation and that some edited
 * lines do fall back.
 */
describe("randomly edited lines (property, real VictoriaLogs)", () => {
  const TOKENS = [
    ...SYNTAX_TOKENS,
    ...["e", "E", "e5", "+1", ".5", "-", "--1", "1x", "NaN", "Inf", "-e", "tru", "nul", "null", "0x1", "1e"],
    ...["\\u00e9", "\\ud800", "\\x", "method=PUT", "g=x", '"g"', '"method"', "status\t=5", '"a b"'],
  ];
  const json = fc
    .record({
      method: fc.constantFrom("GET", "POST"),
      status: fc.constantFrom(200, 500),
      g: fc.constantFrom("a", "b", ""),
      x: fc.constantFrom<unknown>(1, "s", null, [1], { y: 2 }),
      spaced: fc.boolean(),
    })
    .map(({ spaced, ...r }) => {
      const line = JSON.stringify(r);
      return spaced ? line.replaceAll('":', '": ').replaceAll(',"', ', "') : line;
    });
  const logfmt = fc
    .record({
      method: fc.constantFrom("GET", "POST"),
      status: fc.constantFrom(200, 500),
      msg: fc.constantFrom("ok", "a b"),
    })
    // A value holding `=` quoted, as go-kit and logrus write it.
    .map((r) => `method=${r.method} status=${r.status} msg="${r.msg}" g=${r.method === "GET" ? "a" : '"b=1"'}`);
  const edit = lineEdit(TOKENS);
  const edited = fc
    .tuple(fc.oneof(json, logfmt), fc.array(edit, { minLength: 1, maxLength: 2 }))
    .map(([line, edits]) => edits.reduce(editedLine, line));
  const plain = fc.oneof(json, logfmt);
  const sets = fc
    .sample(fc.tuple(fc.array(plain, { minLength: 2, maxLength: 3 }), edited), { numRuns: 240, seed: 2611 })
    .map(([lines, line]) => ({ plain: lines, tricky: [line] }));

  lineSetProperty({
    tenant: "26:46",
    app: "mgen",
    label: "g",
    sets,
    shapes: (sel) => [
      `sum by (method) (count_over_time(${sel} | json | drop __error__, __error_details__ [1m]))`,
      `sum by (method, g) (count_over_time(${sel} | json [1m]))`,
      `sum by (g) (count_over_time(${sel} | json | status >= 500 [1m]))`,
      `sum by (method) (count_over_time(${sel} | json | logfmt | drop __error__, __error_details__ [1m]))`,
      `sum by (method) (count_over_time(${sel} | logfmt | drop __error__, __error_details__ [1m]))`,
      `sum by (g) (count_over_time(${sel} | logfmt | status >= 500 [1m]))`,
      `sum by (method) (sum_over_time(${sel} | logfmt | unwrap status | __error__="" [1m]))`,
      `sum by (method) (sum_over_time(${sel} | json | unwrap status | __error__="" [1m]))`,
    ],
    mustPush: () => false,
    check: (_, fellBack) => expect(fellBack).toBeGreaterThan(0),
  });
});

/**
 * Integers of 10 to 15 digits (Traefik's `Duration` in nanoseconds, epoch milliseconds), which both
 * sides read exactly, compared with constants of as many digits and with short ones: pushed, with
 * the local answer. A 16-digit integer or a fraction with 10 integer digits is the guard's.
 */
describe("integers of up to 15 digits (property, real VictoriaLogs)", () => {
  const EDGES = [
    "999999999",
    "1000000000",
    "1000000001",
    "1565776335",
    "123456789012344",
    "123456789012345",
    "123456789012346",
    "999999999999999",
    "-1000000000",
    "-999999999999999",
  ];
  const value = fc.oneof(
    fc.constantFrom(...EDGES),
    fc.bigInt({ min: -999_999_999_999_999n, max: 999_999_999_999_999n }).map(String),
    fc.integer({ min: -50, max: 50 }).map(String),
  );
  const lineOf = (json: boolean) =>
    fc
      .tuple(fc.constantFrom("a", "b"), value)
      .map(([g, v]) => (json ? `{"g": "${g}", "Duration": ${v}}` : `g=${g} Duration=${v}`));
  // Sets of one format each (the other parser would fail on every line): JSON sets 0-2, logfmt
  // sets 3-5, then a line of another shape among each format's.
  const JSON_SETS = new Set([0, 1, 2, 6, 8]);
  const sets = [
    ...[0, 1, 2, 3, 4, 5].map((k) => ({
      plain: fc.sample(lineOf(JSON_SETS.has(k)), { numRuns: 8, seed: 2648 + k }),
      tricky: [],
    })),
    ...[
      '{"g": "a", "Duration": 1234567890123456}',
      "g=b Duration=1000000000.5",
      '{"g": "a", "Duration": 9999999999999999}',
    ].map((tricky, k) => ({
      plain: fc.sample(lineOf(JSON_SETS.has(6 + k)), { numRuns: 4, seed: 2660 + k }),
      tricky: [tricky],
    })),
  ];

  lineSetProperty({
    tenant: "26:48",
    app: "longint",
    label: "g",
    sets,
    shapes: (sel) => {
      const k = Number(/set="s([0-9]+)"/.exec(sel)![1]);
      const parser = JSON_SETS.has(k) ? "json" : "logfmt";
      return [
        `sum by (g) (count_over_time(${sel} | ${parser} | Duration > 1000000000 [1m]))`,
        `sum by (g) (count_over_time(${sel} | ${parser} | Duration >= 123456789012345 or Duration <= -1000000000 [1m]))`,
        `sum by (g) (count_over_time(${sel} | ${parser} | Duration == 999999999999999 or Duration != 1565776335 [1m]))`,
        `sum by (g) (count_over_time(${sel} | ${parser} | Duration < 1000000001 [1m]))`,
        `sum by (g) (sum_over_time(${sel} | ${parser} | unwrap Duration [1m]))`,
        `max_over_time(${sel} | ${parser} | unwrap Duration [1m]) by (g)`,
        `quantile_over_time(0.95, ${sel} | ${parser} | unwrap Duration [1m]) by (g)`,
      ];
    },
    // The sets of plain lines.
    mustPush: (k) => k < 6,
    check: (pushedAsRequired, fellBack) => {
      expect(pushedAsRequired).toBe(6 * 7);
      expect(fellBack).toBeGreaterThan(0);
    },
  });
});

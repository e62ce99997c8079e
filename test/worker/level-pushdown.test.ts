/**
 * Counts grouped by `detected_level` (Grafana's logs volume, Logs Drilldown's levels) pushed down
 * must never change an answer. Every query is answered twice against the real VictoriaLogs, level
 * discovery on (Grafana's default) — from groups of the level rules' inputs, and evaluated by the
 * Worker from rows (PUSHDOWN=off) — and the two must agree. Generated lines cover every rule (stream
 * and metadata level labels, OTel severity, `detected_level` metadata, JSON and logfmt level keys,
 * first level words, lines with none) and what the reduction could read differently; the tests also
 * check which answers really were pushed (no rows scanned).
 */
import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { editedLine, lineEdit, SYNTAX_TOKENS } from "./support/line-edits";
import { pushCounted, pushedAndLocal } from "./support/metric-answers";
import type { Env } from "../../src/config";
import { queryTraffic } from "./support/traffic";
import { queryRange } from "./support/request";
import { DEFAULT_SERVICE_NAME_LABELS } from "../../src/engine/derived-fields";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;
/** Grafana's defaults: levels and service names discovered. */
const DISCOVERY: Partial<Env> = {
  DISCOVER_LOG_LEVELS: "true",
  DISCOVER_SERVICE_NAME: DEFAULT_SERVICE_NAME_LABELS.join(","),
};

/** The query answered with push-down on and off, level discovery on. */
const both = (query: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
  pushedAndLocal(query, params, headers, DISCOVERY);

/**
 * A log query answered with push-down (and the origin's condition for `detected_level` filters,
 * plan/level-filter.ts) and without: the same entries, labels included. The rows each read.
 */
async function sameLogs(
  query: string,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ pushed: number; local: number; entries: number }> {
  const ask = async (pushdown: boolean) => {
    const res = await queryRange(
      { query, limit: "5000", direction: "forward", ...params },
      { headers, env: { ...DISCOVERY, PUSHDOWN: pushdown ? "on" : "off", CACHE: "off" } },
    );
    expect(res.status, res.body).toBe(200);
    const entries: string[] = [];
    for (const s of res.json.data.result) {
      const labels = JSON.stringify(Object.entries(s.stream as Record<string, string>).sort());
      for (const [ts, line] of s.values) entries.push(`${ts} ${labels} ${line}`);
    }
    return { entries: entries.sort(), scanned: res.json.data.stats.summary.totalLinesProcessed as number };
  };
  const [pushed, local] = [await ask(true), await ask(false)];
  expect(pushed.entries, query).toEqual(local.entries);
  return { pushed: pushed.scanned, local: local.scanned, entries: local.entries.length };
}

describe("level push-down on the compat data", () => {
  const range = { start: String(DATA_START), end: String(DATA_END), step: "60" };

  it("pushes Explore's logs volume and Drilldown's levels down", async () => {
    for (const query of [
      'sum by (level, detected_level) (count_over_time({app="checkout"} | drop __error__ [1m]))',
      'sum by (detected_level) (count_over_time({service_name="worker"} | drop __error__ [1m]))',
      'sum by (detected_level) (count_over_time({service_name=~"worker|auth|nginx"} [5m]))',
      'sum by (level, detected_level) (count_over_time({namespace="prod"} |= "e" | drop __error__ [10m]))',
      'sum by (app, detected_level) (rate({app=~"nginx|payments"} [5m]))',
      'sum by (detected_level) (bytes_over_time({app="auth"} != "debug" [15m] offset 5m))',
      'sum by (detected_level) (count_over_time({service_name="worker"} | detected_level=~"error|warn" [1m]))',
      'sum(count_over_time({app="checkout"} | drop __error__ | detected_level!="info" [5m]))',
      'sum by (level) (rate({namespace="prod"} | detected_level="error" or (detected_level="debug") [5m]))',
      // Behind a parser and its filters: Explore's volume of a filtered query, Drilldown's levels
      // with a field filter, a field panel under a level filter.
      'sum by (level, detected_level) (count_over_time({app="checkout"} | json | status >= 500 | drop __error__ [1m]))',
      'sum by (level, detected_level) (count_over_time({app="checkout"} | json | status >= 500 [1m]))',
      'sum by (level, detected_level) (count_over_time({app="worker"} | logfmt | level="error" | drop __error__ [1m]))',
      'sum by (detected_level) (count_over_time({service_name="checkout"} | json | drop __error__, __error_details__ | method="GET" [1m]))',
      'sum by (method) (count_over_time({service_name="checkout"} | detected_level="error" | json | drop __error__, __error_details__ [1m]))',
      'sum by (detected_level) (bytes_rate({service_name="worker"} | logfmt | duration > 10ms [5m]))',
      // Explore's volume of queries with `| pattern` / `| regexp` and their filters.
      'sum by (level, detected_level) (count_over_time({app="nginx"} | pattern "<ip> - - [<_>] \\"<method> <path> <_>\\" <status> <_>" | status >= 500 | drop __error__ [1m]))',
      'sum by (level, detected_level) (count_over_time({app="nginx"} | regexp "\\" (?P<status>\\\\d{3}) " | status = 404 | drop __error__ [1m]))',
      // Explore's volume of queries that reshape what they show: the level is the stored line's.
      'sum by (level, detected_level) (count_over_time({app="checkout"} | json | line_format "{{.method}} {{ .path }}" | drop __error__ [1m]))',
      'sum by (level, detected_level) (count_over_time({app="checkout"} | json | label_format m="{{.method}}" | drop __error__ [1m]))',
      'sum by (level, detected_level) (count_over_time({app="worker"} | decolorize | drop __error__ [1m]))',
      'sum by (level, detected_level) (count_over_time({app="auth"} | line_format "{{.app}}: {{.pod}}" | drop __error__ [1m]))',
    ]) {
      const { pushed, local } = await both(query, range);
      expect(local.series.size, query).toBeGreaterThan(0);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    }
  });

  it("instant queries agree", async () => {
    const query = 'sum by (level, detected_level) (count_over_time({app=~"checkout|worker|nginx"} [1h]))';
    const { pushed } = await both(query, { time: String(DATA_START + 4 * 3600) });
    expect(pushed.linesScanned, query).toBe(0);
  });

  it("keeps local what it does not push, with the same answer", async () => {
    for (const query of [
      'sum by (service_name, detected_level) (count_over_time({app="checkout"} | unpack [5m]))',
      // A numeric filter on a word fails on every row; which row Loki's error names depends on
      // the order rows are read in, so the errors are dropped and the (empty) answers compared.
      'sum by (detected_level) (count_over_time({app="worker"} | decolorize | detected_level > 2 | __error__="" [5m]))',
      'count by (detected_level) (count_over_time({app="checkout"} | unpack [5m]))',
    ]) {
      const { pushed } = await both(query, range);
      expect(pushed.linesScanned, query).not.toBe(0);
    }
  });
});

describe("log queries filtered by detected_level (compat data, 6 h)", () => {
  const range = { start: String(DATA_START), end: String(DATA_END) };

  it("read only the rows that can hold the level, with the same answer", async () => {
    for (const query of [
      '{service_name="auth"} | detected_level="error"',
      '{app="checkout"} | detected_level=~"error|warn"',
      '{app="worker"} | detected_level="warn" | logfmt | job="email"',
      '{namespace="prod"} |= "order" | detected_level="debug"',
      '{app="nginx"} | detected_level="error"',
      // After a parser too: a line's `detected_level` key is `detected_level_extracted` in Loki.
      '{app="worker"} | logfmt | detected_level=~"err.*"',
    ]) {
      const { pushed, local } = await sameLogs(query, range);
      expect(local, query).toBeGreaterThan(0);
      expect(pushed * 4, `${query}: ${pushed} of ${local} rows read`).toBeLessThan(local);
    }
  });

  it("read every row for filters `unknown` could pass, with the same answer", async () => {
    for (const query of [
      '{service_name="auth"} | detected_level!="error"',
      '{app="nginx"} | detected_level=~"unknown|error"',
    ]) {
      const { pushed, local } = await sameLogs(query, range);
      expect(pushed, query).toBe(local);
    }
  });
});

describe("origin traffic of the logs volume and levels panels (compat data, 6 h)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("reads groups instead of lines", async () => {
    const params = { start: String(DATA_START), end: String(DATA_END), step: "60" };
    for (const query of [
      'sum by (level, detected_level) (count_over_time({app="checkout"} | drop __error__ [1m]))',
      'sum by (detected_level) (count_over_time({service_name="worker"} | drop __error__ [1m]))',
    ]) {
      const local = await queryTraffic(query, params, false, DISCOVERY);
      const pushed = await queryTraffic(query, params, true, DISCOVERY);
      console.info(
        `${query}: origin bytes ${local.originBytes} -> ${pushed.originBytes}, rows ${local.rows} -> ${pushed.rows}, ${local.ms} -> ${pushed.ms} ms`,
      );
      expect(pushed.rows, query).toBe(0);
      expect(local.rows, query).toBeGreaterThan(10_000);
      expect(pushed.originBytes * 5, query).toBeLessThan(local.originBytes);
    }
  });
});

/**
 * Lines and labels built to exercise each of Loki's level rules, a set per stream (in a tenant of
 * its own). A set the reduction settles must be pushed; any set must give the same answer.
 */
describe("generated lines (every level rule, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:2" };
  const base = BigInt(DATA_START) * 1_000_000_000n;

  interface LineSet {
    lines: string[];
    stream?: Record<string, string>;
    metadata?: Record<string, string>;
    /** Whether the reduction settles every line's level (the answer must then be pushed). */
    settled: boolean;
  }
  const plain = (lines: string[], extra: Partial<LineSet> = {}): LineSet => ({ lines, settled: true, ...extra });
  const tricky = (lines: string[], extra: Partial<LineSet> = {}): LineSet => ({ lines, settled: false, ...extra });
  const sets: LineSet[] = [
    // Labels decide.
    plain(["nothing here", "an error"], { stream: { level: "WARN" } }),
    plain(["nothing here", "an error"], { stream: { lvl: "dbg" } }),
    plain(["nothing here", "an error"], { metadata: { level: "Critical" } }),
    plain(["x", "y"], { metadata: { SeverityText: "loud" } }),
    plain(["x", "y"], { metadata: { lvl: "x", severity: "err" } }),
    plain(["x", "y"], { metadata: { severity_number: "13" } }),
    plain(["x", "y"], { metadata: { severity_number: "abc" } }),
    plain(["x", "level=info"], { metadata: { detected_level: "WRN" } }),
    plain(["x", "y"], { metadata: { detected_level: "custom", level: "info" } }),
    tricky(["x", "y"], { stream: { severity: "debug" }, metadata: { level: "error" } }),
    tricky(["x"], { stream: { severity_number: "9" } }),
    // A level field decides even where the line names another level.
    tricky(["an error", "fatal: x", "level=warn"], { metadata: { "log.level": "info" } }),
    tricky(["an error", '{"level": "warn"}'], { stream: { Severity: "info" } }),
    // JSON level keys, in Loki's list and case.
    plain(['{"level": "info", "msg": "an error"}', '{"LEVEL":"ERROR"}', '{"Level": "Warning"}']),
    plain(['{"ts": 1, "ok": true, "n": null, "s": "a", "lvl": "dbg"}', '{"log.level": "fatal"}']),
    plain(['{"severity": "loud", "msg": "then error"}', '{"SeverityText": "trc"}', '{"level": 3, "lvl": "inf"}']),
    plain(['{"severity_text": "x", "msg": "nothing"}', '{"msg": "no level"}', "{}", '{"Severity_Text":"WARN"}']),
    plain(['{"x": -1.5e3, "SEVERITY_TEXT": "Err"}', '{"LVL": "critical"}', '{"Lvl": "information"}']),
    tricky(['{"a": {"level": "debug"}, "level": "info"}', '{"a": [1], "level": "info"}']),
    // Objects and arrays before the level member (the walk enters objects one level deep), escapes.
    plain([
      '{"a": {"level": "debug"}, "level": "info"}',
      '{"a": [1, "x"], "level": "info"}',
      '{"s": "a\\"b\\n\\u00e9", "level": "warn"}',
      '{"ctx": {"user": {"id": 1}, "tags": [], "lvl": "error"}, "level": "info"}',
      '{"ctx": {"deep": {"level": "fatal"}}, "msg": "x"}',
      '{"l": {"a": 1, "b": [true]}, "m": [null], "u": "\\u00e9 warn"}',
      '{"level": {"x": 1}, "severity": "err"}',
      '{"level": "in\\u0066o"}',
      // No level key at all, however deep the line nests.
      '{"http": {"a": {"b": [{"c": 1}]}}, "msg": "GET /x failed: error"}',
    ]),
    // Compact lines opening with their level member (zap, logrus), spelled so that no level word of
    // the line gives the same level, beside lines the same regex must leave to the others: an escape
    // or a control character in the value, a space before the colon.
    plain([
      '{"level":"wrn","msg":"an error"}',
      '{"level":"dbg","msg":"fatal"}',
      '{"level":"information"}',
      '{"level":"WARN"}',
      '{"level":"","msg":"error"}',
      '{"level":"debug","level":"error"}',
      '{"level":"fatal","a":{"level":"x"}}',
      '{"level":"in\\u0066o","msg":"warn"}',
      '{"level":"er\\"r","msg":"debug"}',
      '{"level" :"info","msg":"x"}',
      '{"level":"error"} ',
    ]),
    tricky(['{"level":"x\ty","msg":"an error"}', '{"level":"info","msg":"a\tb"}']),
    // Numeric levels (pino, bunyan): no level member, so the first level word, in any case, decides.
    plain([
      '{"level":30,"time":1,"req":{"headers":{"host":"x"},"method":"GET"},"msg":"ERROR: upstream"}',
      '{"level":50,"req":{"id":1},"tags":[1,2],"msg":"Request failed, Warning"}',
      '{"level":40,"msg":"\\u0130NFO then error"}',
      '{"level":40,"msg":"İnfo then Debug"}',
      '{"level":30,"msg":"all good"}',
      '{"level": 20, "ctx": {"severity": "warn"}, "msg": "an error"}',
    ]),
    // ECS: the level in an object of plain members, objects of plain members before it.
    plain([
      '{"@timestamp":"2026-03-10T00:00:00Z","log":{"level":"warn","logger":"a"},"message":"x"}',
      '{"a":1,"log":{"logger":"b","level":"ERROR"},"level":"info"}',
      '{"log":{"x":{"y":1},"level":"debug"},"level":"info"}',
      '{"ctx":{"a":"b","n":null},"log":{"level":"fatal"}}',
      '{"ctx":{"a":"\\u00e9"},"log":{"level":"trace"},"level":"info"}',
    ]),
    // Escapes of non-ASCII characters only (Python's encoder): they spell no level key.
    plain([
      '{"levelname": "ERROR", "message": "caf\\u00e9 \\u2013 failed"}',
      '{"levelname": "INFO", "m": "\\ud83d\\ude00"}',
    ]),
    // Lines with `=` and no level key in any case (klog): the first level word decides.
    plain([
      'I0310 12:00:00.123000       1 controller.go:123] "Reconciling" object="ns/obj"',
      'E0310 12:00:01.000000       1 reconciler.go:88] "Failed to sync" err="timeout"',
      "W0310 x=1 y=2",
      "a=b c=d then WARNING",
      "levels=3 x=y",
    ]),
    tricky(["SEVERITY=error a=b", "x=1 lVl=warn", "a=1 log.level=debug"]),
    tricky(['{"lev\\u0065l": "error"}', '{"s": "a\\"b", "level": "warn"}']),
    tricky([' {"level": "info"}', '{"level": "info"} ', '{"level": "info"}\u00a0']),
    // Levels spelled with escapes: the line's text holds no spelling of them.
    tricky(['{"level": "\\u0045RROR"}', '{"msg": "x", "level": "w\\u0061rn"}', 'level="\\u0065rr" msg=x']),
    // Beside escapes of other characters (Python's encoder escapes every non-ASCII one), with hex
    // digits in either case.
    tricky(['{"m": "caf\\u00e9 \\ud83d\\ude00", "level": "err\\u006Fr"}', '{"level": "W\\u0041RN", "m": "\\u00e9"}']),
    tricky(['level="\\u0049NFO" m="caf\\u00e9"', '{"m": "caf\\u00e9", "level": "de\\u0062ug"}']),
    // logfmt level keys.
    plain(["level=info msg=x", "LEVEL=Error msg=y", 'ts=1 msg="a b c" Level="warning"']),
    plain(["\u001b[31mERROR\u001b[0m level=error caller=x", "level= msg=fatal", 'a="" level=dbg']),
    plain(["level=loud msg=critical", "lvl=debug msg=x level=info", "x=1 y=2 level=trace"]),
    plain(["level ERROR level=info", "a Level=warn", "x LEVEL"]),
    tricky(["severity=error msg=x", "a=b=c level=info", 'a="x\\"y" level=info', 'q"=1 level=info']),
    tricky(["a=1", "key=value only"]),
    // First level words.
    plain(["GET /healthz 200", "[ERROR] something", "warn: disk", "x (Fatal) y", "an info message"]),
    plain(["error-prone code", "errors happen", "WARNING!", "'debug' here", "trace|x", "info,x"]),
    plain(["terror", "informal", "", "   ", "debugger", "critical:x", "err"]),
    plain(["text with ünïcödé then error", "日本語 warn", "x\tinfo"]),
    // Metadata named like the reduction's own fields must not pass for them.
    plain(["nothing", '{"msg": "x"}', "{"], { metadata: { __dl_w: "error", __dl_jf: "{", __dl_j: '"warn"' } }),
    // Keys a parser would read as `detected_level`, which wins over the derived one.
    tricky(['{"detected_level": "custom", "level": "info"}', "detected_level=x level=warn"]),
    tricky(['{"detected": {"level": "custom"}, "msg": "an error"}', "detected-level=x msg=y"]),
    plain(['{"level": "info", "method": "GET"}', '{"level": "error", "method": "PUT", "status": 500}']),
    plain(["level=info method=GET status=200", "level=warn method=PUT status=503 msg=x"]),
    // Escaped strings among the scalars before the level member (Go's encoder writes `&` as `\u0026`,
    // as in Traefik's query strings), more level members after it: the first string one decides.
    plain([
      '{"RequestPath":"/search?q=a\\u0026page=2","level":"info","severity":"error"}',
      '{"a": "x\\"y", "lvl": "warn", "level": "error"}',
      '{"msg":"\\u003cb\\u003e","n":1,"t":true,"z":null,"level":"debug","Level":"fatal"}',
      '{"e": "a\\\\b", "level": 30, "severity": "critical", "lvl": "info"}',
    ]),
  ];

  beforeAll(async () => {
    const streams = sets.map((set, k) => ({
      stream: { app: "lgen", set: `s${k}`, ...set.stream },
      values: set.lines.map((line, i) => {
        const ts = String(base + BigInt(i * 7 + k) * 1_000_000_000n);
        return set.metadata ? [ts, line, set.metadata] : [ts, line];
      }),
    }));
    await pushCounted("26:2", "lgen", streams, DATA_START, DISCOVERY);
  });

  it("each set: the same answer, pushed when the reduction settles it", async () => {
    const range = { start: String(DATA_START), end: String(DATA_START + 600), step: "60" };
    for (const [k, set] of sets.entries()) {
      for (const query of [
        `sum by (detected_level) (count_over_time({app="lgen", set="s${k}"} | drop __error__ [1m]))`,
        `sum by (level, detected_level) (bytes_over_time({app="lgen", set="s${k}"} [5m]))`,
        `sum(count_over_time({app="lgen", set="s${k}"} | detected_level=~"warn|unknown" [1m]))`,
      ]) {
        const { pushed, local } = await both(query, range, TENANT);
        if (!query.includes("=~")) expect(local.series.size, `${query} ${JSON.stringify(set)}`).toBeGreaterThan(0);
        if (set.settled) expect(pushed.linesScanned, `${query} was not pushed: ${JSON.stringify(set)}`).toBe(0);
      }
      // Log queries filtered by level: the origin's condition keeps every row the filter keeps.
      for (const query of [
        `{app="lgen", set="s${k}"} | detected_level="error"`,
        `{app="lgen", set="s${k}"} | detected_level=~"warn|fatal|critical"`,
        `{app="lgen", set="s${k}"} | detected_level="custom" or detected_level="loud"`,
        `{app="lgen", set="s${k}"} | json | detected_level="custom"`,
        `{app="lgen", set="s${k}"} | logfmt | detected_level=~"debug|info"`,
      ]) {
        await sameLogs(query, range, TENANT);
      }
      // Behind a parser its guard may also send the query back: the answers must agree.
      for (const query of [
        `sum by (level, detected_level) (count_over_time({app="lgen", set="s${k}"} | json | drop __error__ [1m]))`,
        `sum by (level, detected_level) (count_over_time({app="lgen", set="s${k}"} | json | __error__="" [1m]))`,
        `sum by (detected_level) (count_over_time({app="lgen", set="s${k}"} | json | method!="PUT" [1m]))`,
        `sum by (method, detected_level) (count_over_time({app="lgen", set="s${k}"} | logfmt | status < 500 [1m]))`,
        `sum by (level) (count_over_time({app="lgen", set="s${k}"} | detected_level!="info" | logfmt | level!="" [1m]))`,
      ]) {
        await both(query, range, TENANT);
      }
    }
  });

  it("all sets together: the same answer", async () => {
    const range = { start: String(DATA_START), end: String(DATA_START + 600), step: "30" };
    for (const query of [
      'sum by (detected_level) (count_over_time({app="lgen"} [1m]))',
      'sum by (detected_level) (count_over_time({app="lgen", set=~"s(1[1-5]|2[0-2]|2[5-8])"} [2m]))',
      'sum by (set, detected_level) (rate({app="lgen"} [1m]))',
    ]) {
      await both(query, range, TENANT);
    }
  });
});

/**
 * Each set as a stream of its own (`set="s<k>"`), its lines a few seconds apart from the data's
 * start, with the set's metadata on every line.
 */
function pushLevelSets(tenant: string, app: string, sets: { lines: string[]; metadata?: Record<string, string> }[]) {
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const streams = sets.map((set, k) => ({
    stream: { app, set: `s${k}` },
    values: set.lines.map((l, i) => {
      const ts = String(base + BigInt(i * 11 + k) * 1_000_000_000n);
      return set.metadata ? [ts, l, set.metadata] : [ts, l];
    }),
  }));
  return pushCounted(tenant, app, streams, DATA_START, DISCOVERY);
}

/** Random lines mixing JSON, logfmt and free text from the pieces Loki's level rules read. */
describe("generated lines (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:3" };
  const key = fc.constantFrom(
    "level",
    "LEVEL",
    "Level",
    "lEvEl",
    "lvl",
    "severity",
    "SeverityText",
    "log.level",
    "msg",
    "a",
  );
  const levelWord = fc.constantFrom(
    "info",
    "INFO",
    "Warn",
    "warning",
    "err",
    "ERROR",
    "dbg",
    "trace",
    "fatal",
    "critical",
    "information",
    "loud",
    "",
  );
  const text = fc
    .array(
      fc.oneof(
        levelWord,
        fc.constantFrom("x", "terror", "informal", "ünï", "日本", "\u0065", 'a"b', "\u001b[31m", "İnfo", "K", "\ufffd"),
      ),
      { maxLength: 4 },
    )
    .chain((words) =>
      fc
        .array(fc.constantFrom(" ", "\t", "[", "]", ":", ",", "(", "!", "=", "'", "|", "-", "_", "\\", "/", "."), {
          minLength: words.length,
          maxLength: words.length,
        })
        .map((seps) => words.map((w, i) => w + seps[i]).join("")),
    );
  const jsonValue = fc.oneof(
    levelWord.map((w) => JSON.stringify(w)),
    text.map((t) => JSON.stringify(t)),
    fc.constantFrom(
      "1",
      "-2.5e3",
      "true",
      "null",
      '"esc\\"aped"',
      '{"level": "debug"}',
      '["error"]',
      "01",
      '{"a": {"level": "warn"}, "b": [1]}',
      '{"x": [1, {"level": "err"}]}',
      '{"m": "a\\u00e9", "lvl": 3}',
    ),
  );
  // Spaced as Python writes JSON, or compact as Go's and JavaScript's encoders do (a compact line
  // opening with its level member is read by a regex of its own).
  const jsonLine = fc
    .tuple(
      fc.array(fc.tuple(key, jsonValue), { maxLength: 4 }),
      fc.constantFrom("", " ", "\u00a0", "\n"),
      fc.constantFrom("", " ", "\u00a0"),
      fc.constantFrom([": ", ", "], [":", ","]),
    )
    .map(
      ([members, lead, trail, [colon, comma]]) =>
        `${lead}{${members.map(([k, v]) => `${JSON.stringify(k)}${colon}${v}`).join(comma)}}${trail}`,
    );
  const logfmtValue = fc.oneof(
    levelWord,
    text.map((t) => JSON.stringify(t)),
    fc.constantFrom('"a b"', "a=b", 'x"y', ""),
  );
  const logfmtLine = fc
    .array(
      fc.oneof(
        fc.tuple(key, logfmtValue).map(([k, v]) => `${k}=${v}`),
        key,
        text,
      ),
      { minLength: 1, maxLength: 5 },
    )
    .map((tokens) => tokens.join(fc.sample(fc.constantFrom(" ", "  ", "\t", "\u001b"), 1)[0]));
  const line = fc.oneof(jsonLine, logfmtLine, text);
  const metadata = fc.option(
    fc.constantFrom<Record<string, string>>(
      { level: "Warn" },
      { severity_number: "17" },
      { detected_level: "dbg" },
      { lvl: "x", SEVERITY: "info" },
      { severity_number: "+0013" },
      { severity_number: "-3" },
      { severity_number: "abc" },
      { severity_number: "25" },
    ),
    { nil: undefined },
  );
  const sets = fc.sample(fc.record({ lines: fc.array(line, { minLength: 1, maxLength: 6 }), metadata }), {
    numRuns: 40,
    seed: 2603,
  });

  beforeAll(() => pushLevelSets("26:3", "lprop", sets));

  it("pushed or not, every set gives the answer of local evaluation", async () => {
    const range = { start: String(DATA_START), end: String(DATA_START + 600), step: "60" };
    let pushed = 0;
    for (const k of sets.keys()) {
      const query = `sum by (detected_level) (count_over_time({app="lprop", set="s${k}"} [2m]))`;
      const answers = await both(query, range, TENANT);
      if (answers.pushed.linesScanned === 0) pushed++;
      await both(
        `sum(count_over_time({app="lprop", set="s${k}"} | detected_level!~"info|unknown" [1m]))`,
        range,
        TENANT,
      );
      await both(
        `sum by (level, detected_level) (count_over_time({app="lprop", set="s${k}"} | json | drop __error__ [1m]))`,
        range,
        TENANT,
      );
      await both(
        `sum by (detected_level) (count_over_time({app="lprop", set="s${k}"} | logfmt | lvl!="x" [1m]))`,
        range,
        TENANT,
      );
      await both(
        `sum by (detected_level) (count_over_time({app="lprop", set="s${k}"} | decolorize | line_format "{{.set}}" [1m]))`,
        range,
        TENANT,
      );
      await both(
        `sum by (level, detected_level) (count_over_time({app="lprop", set="s${k}"} | json | line_format "x" | drop __error__ [1m]))`,
        range,
        TENANT,
      );
    }
    // Most random sets hold a line the reduction does not settle; some must be pushed for the
    // property to compare the push-down at all.
    expect(pushed).toBeGreaterThan(3);
  });

  it("log queries filtered by level: the origin's condition keeps every row the filter keeps", async () => {
    const range = { start: String(DATA_START), end: String(DATA_START + 600) };
    let entries = 0;
    for (const filter of [
      ...["error", "warn", "info", "debug", "trace", "fatal", "critical", "loud", "x", "dbg"].map(
        (level) => `detected_level="${level}"`,
      ),
      'detected_level=~"error|warn"',
      'detected_level=~"(?i)INFO"',
      'detected_level=~"d.*"',
    ]) {
      entries += (await sameLogs(`{app="lprop"} | ${filter}`, range, TENANT)).entries;
      await sameLogs(`{app="lprop"} | json | ${filter}`, range, TENANT);
    }
    // The sets hold lines of each level: the comparisons compared something.
    expect(entries).toBeGreaterThan(sets.length);
  });
});

/**
 * Explore's logs volume of a query with `| pattern` or `| regexp` and label filters: the
 * extraction push-down's values and guard (plan/extract-pushdown.ts) decide which rows count, the
 * level groups how. Lines carry a logfmt `level` pair the level rules read, and the odd line the
 * extraction or the level rules read otherwise; plain sets must be pushed.
 */
describe("behind regexp and pattern (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:7" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const word = fc.constantFrom("a", "bb", "GET", "élan", "x-y");
  const number = fc.integer({ min: -20, max: 600 }).map(String);
  const level = fc.constantFrom("info", "ERROR", "warn", "debug", "loud");
  const dur = fc.constantFrom("5ms", "50ms", "3s", "1m");
  const shaped = fc.tuple(word, number, level, dur).map(([g, c, l, d]) => `g=${g} c=${c} level=${l} d=${d}`);
  const TRICKY = [
    "",
    "no match here",
    "g= c= level=info d=5ms",
    "g=a c=1.5 level=error d=7",
    "g=a c=12345678901 level=warn d=1h30m",
    "c=5 g=a level=info",
    "g=a c=1 level=info d=5ms g=b c=2",
    'g=a c=1 msg="x" level=error d=5ms',
    '{"level": "error"} g=a c=5 d=5ms',
    "g=a\tc=300 level=info d=5ms",
    "g=a c=\u0000 level=info d=5ms",
    "g=a c=300 d=5ms ERROR",
  ];
  const sets = [
    ...TRICKY.map((line, k) => ({ plain: fc.sample(shaped, { numRuns: 4, seed: k }), tricky: [line] })),
    ...[101, 102, 103, 104].map((seed) => ({ plain: fc.sample(shaped, { numRuns: 8, seed }), tricky: [] })),
  ];

  beforeAll(async () => {
    const streams = sets.map((set, k) => ({
      stream: { app: "lxgen", set: `s${k}` },
      values: [...set.plain, ...set.tricky].map((line, i) => [String(base + BigInt(i * 7 + k) * 1_000_000_000n), line]),
    }));
    await pushCounted("26:7", "lxgen", streams, DATA_START, DISCOVERY);
  });

  it("every set and shape: pushed equals local; plain sets are pushed", async () => {
    const range = { start: String(DATA_START), end: String(DATA_START + 300), step: "30" };
    let pushedAsRequired = 0;
    for (const [k, set] of sets.entries()) {
      const sel = `{app="lxgen", set="s${k}"}`;
      for (const [query, required] of [
        [`sum by (detected_level) (count_over_time(${sel} | pattern "g=<g> c=<c> <_>" | c > 3 [1m]))`, true],
        [`sum by (g, detected_level) (count_over_time(${sel} | pattern "g=<g> c=<c> <_>" [1m]))`, false],
        [
          String.raw`sum by (level, detected_level) (count_over_time(${sel} | regexp "c=(?P<c>-?\\d+)" | c >= 100 | drop __error__ [30s]))`,
          true,
        ],
        [`sum by (detected_level) (bytes_over_time(${sel} | pattern "<_> d=<d>" | d > 10ms [1m]))`, true],
      ] as const) {
        const { pushed, local } = await both(query, range, TENANT);
        if (required && set.tricky.length === 0) {
          expect(local.linesScanned, query).toBeGreaterThan(0);
          expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
          pushedAsRequired++;
        }
      }
    }
    expect(pushedAsRequired).toBe(12);
  });
});

/**
 * Lines the level rules read (JSON and logfmt level keys, level words), each set holding one line
 * randomly edited: a token inserted (quotes, escapes, level keys and words, letters case folding
 * turns into ASCII), a character removed, or a value replaced. The edit may leave the line's level
 * where the groups settle it, or not (then the set is read back): either way the answer is local
 * evaluation's, and most sets are still pushed, so the property compares the push-down itself.
 */
describe("randomly edited level lines (property, real VictoriaLogs)", () => {
  const TENANT_ID = "26:47";
  const TENANT = { "X-Scope-OrgID": TENANT_ID };
  const TOKENS = [
    ...SYNTAX_TOKENS,
    ...["level", "LEVEL", "lvl", "severity", '"level"', '"level":"warn"', "level=err", "level=", '"lvl":', "Severity="],
    ...["error", "ERROR", "Warn", "warning", "info", "debug", "dbg", "trace", "fatal", "critical", "err", "wrn"],
    ...["\u0130", "\u212a", "\\u0065", "\\u00e9", "\\ud800", "\u001b[31m", "ß", "1", "null", "[1]", '{"a":1}'],
  ];
  const levelValue = fc.constantFrom("info", "warn", "error", "debug", "INFO", "Warning", "err", "trace", "fatal", "x");
  const json = fc
    .record({
      before: fc.constantFrom<Record<string, unknown>>({}, { ts: "t1" }, { msg: "hello" }, { a: { b: 1 } }),
      key: fc.constantFrom("level", "lvl", "severity", "LEVEL", "Level", "SeverityText", "log.level", "msg"),
      level: levelValue,
      msg: fc.constantFrom("ok", "an error happened", "warn: x", "info", "debug [trace]"),
      // A message first, its words unlike the level key's value: only reading the key as Loki
      // does gives the line's level, where the first level word gives another.
      msgFirst: fc.boolean(),
      spaced: fc.boolean(),
    })
    .map(({ before, key, level, msg, msgFirst, spaced }) => {
      const line = JSON.stringify(msgFirst ? { msg, ...before, [key]: level } : { ...before, [key]: level, msg });
      return spaced ? line.replaceAll('":', '": ').replaceAll(',"', ', "') : line;
    });
  const logfmt = fc
    .record({
      key: fc.constantFrom("level", "lvl", "severity", "LEVEL", "Level", "msg"),
      level: levelValue,
      msg: fc.constantFrom("ok", "a b", "error x", "warn: y"),
      first: fc.boolean(),
    })
    .map((r) =>
      r.first
        ? `${r.key}=${r.level} msg="${r.msg}" caller=x.go:1`
        : `ts=1 caller=x.go:1 msg="${r.msg}" ${r.key}=${r.level}`,
    );
  const text = fc
    .record({ level: levelValue, sep: fc.constantFrom(" ", "[", ": ", "|") })
    .map((r) => `2026-02-01 10:00:00${r.sep}${r.level.toUpperCase()}${r.sep === "[" ? "]" : ""} something happened`);
  const edit = lineEdit(TOKENS);
  const plain = fc.oneof(json, logfmt, text);
  const edited = fc
    .tuple(plain, fc.array(edit, { minLength: 1, maxLength: 4 }))
    .map(([line, edits]) => edits.reduce(editedLine, line));
  const metadata = fc.option(
    fc.constantFrom<Record<string, string>>({ level: "Warn" }, { severity_number: "17" }, { detected_level: "dbg" }),
    { nil: undefined },
  );
  const sets = fc
    .sample(fc.record({ lines: fc.tuple(fc.array(plain, { minLength: 2, maxLength: 3 }), edited), metadata }), {
      numRuns: 120,
      seed: 2647,
    })
    .map(({ lines: [some, odd], metadata }) => ({ lines: [...some, odd], metadata }));

  beforeAll(() => pushLevelSets(TENANT_ID, "ledit", sets));

  it("every set: pushed equals local, and most sets are pushed", async () => {
    const range = { start: String(DATA_START), end: String(DATA_START + 600), step: "60" };
    let pushed = 0;
    for (const k of sets.keys()) {
      const sel = `{app="ledit", set="s${k}"}`;
      const levels = await both(`sum by (detected_level) (count_over_time(${sel} [2m]))`, range, TENANT);
      if (levels.pushed.linesScanned === 0) pushed++;
      await both(`sum by (level, detected_level) (count_over_time(${sel} | drop __error__ [1m]))`, range, TENANT);
      await both(
        `sum by (level, detected_level) (count_over_time(${sel} | json | drop __error__ [1m]))`,
        range,
        TENANT,
      );
      await both(
        `sum by (detected_level) (count_over_time(${sel} | logfmt | drop __error__, __error_details__ [1m]))`,
        range,
        TENANT,
      );
      await both(`sum(count_over_time(${sel} | detected_level=~"error|warn" [1m]))`, range, TENANT);
    }
    expect(pushed).toBeGreaterThan(sets.length / 2);
  });
});

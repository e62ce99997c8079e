/**
 * Which counting metrics over `| json` / `| logfmt` go to the origin, and the LogsQL they send.
 * Equality of the answers is proved against the real VictoriaLogs in
 * test/worker/parser-pushdown.test.ts; this pins down the shapes the planner accepts and declines.
 */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { SampleExpr } from "../../../src/logql/ast";
import { planParserPushdown } from "../../../src/plan/parser-pushdown";
import { infallibleTemplate } from "../../../src/plan/infallible-template";
import type { DerivedFieldRules } from "../../../src/engine/derived-fields";

const S = 1_000_000_000n;
const GRID = { start: 3600n * S, end: 7200n * S, step: 60n * S, instant: false };
const DISCOVERY: DerivedFieldRules = { serviceNameLabels: ["service", "app"], discoverLogLevels: true };
const plan = (q: string, derived?: DerivedFieldRules) => planParserPushdown(parseExpr(q) as SampleExpr, GRID, derived);

describe("planParserPushdown", () => {
  it("groups by Loki's value of each label: the row's own field first, else the parsed key", () => {
    const p = plan('sum by (job) (count_over_time({app="worker"} | logfmt | attempt > 3 [5m]))')!;
    expect(p.logsql).toContain(
      '{app="worker"} | format "<job>" as __b_job | format "<attempt>" as __b_attempt | delete __p_job, __p_attempt | ' +
        'unpack_logfmt from _msg fields (job, attempt) result_prefix "__p_" | ' +
        'format "<__b_job>" as __v_job | format if (__v_job:"") "<__p_job>" as __v_job | ',
    );
    expect(p.logsql).toContain(
      "| stats by (_time:60000000000ns offset 1ns, __v_job) count() if (-__guard_row:=1 (__v_attempt:>3)) as __c, " +
        "count() if (__guard_row:=1) as __bad",
    );
    // The guard is evaluated once per row, into the flag the counts read.
    expect(p.logsql).toContain("| delete __guard_row | format if (__error__:* or ");
    expect(p.logsql).toMatch(/ as __bad$/);
    expect(p).toMatchObject({
      groupBy: ["__v_job"],
      labels: ["job"],
      value: "count",
      perSeconds: 0,
      width: 60n * S,
      bucketsPerWindow: 5,
    });
  });

  it('`| logfmt name="key"` reads only the keys its labels and the parser hints name', () => {
    // Hints {lvl}: the key `level` is not read, so every row without a key `lvl` has lvl="".
    const p = plan('sum by (lvl) (count_over_time({app="worker"} | logfmt lvl="level" [5m]))')!;
    expect(p.logsql).toContain(
      '{app="worker"} | format "<lvl>" as __b_lvl | delete __q_lvl | ' +
        'unpack_logfmt from _msg fields (lvl) result_prefix "__q_" | ' +
        'format "<__b_lvl>" as __v_lvl | format if (__v_lvl:"") "<__q_lvl>" as __v_lvl | ',
    );
    expect(p.logsql).toContain('format if (__v_lvl:"") "\\u0001" as __g_lvl');
    expect(p).toMatchObject({ groupBy: ["__g_lvl"], labels: ["lvl"], setEmpty: "\u0001" });
    // A filter on `level` puts it in the hints: the key is read (as lvl), the label is the row's own.
    const q = plan('sum by (lvl) (count_over_time({app="worker"} | logfmt lvl="level" | level="x" [5m]))')!;
    expect(q.logsql).toContain("unpack_logfmt from _msg fields (level, lvl) ");
    expect(q.logsql).toContain('format if (__v_lvl:"") "<__q_level>" as __v_lvl | format if (__v_lvl:"") "<__q_lvl>"');
    expect(q.logsql).toContain('format "<__b_level>" as __v_level');
    // Reading stops at the first key read where every hinted label is one the parser sets: a key
    // of a label the answer reads after another key is a guard row (unless the row holds the label);
    // where a hinted label is not one the parser sets (`job`), reading stops only at a key of a label
    // the row holds. The exact order regex runs where the keys' own text is in that order.
    const key = '(?:^|[\\\\x00-\\\\x20\\"])';
    const gThenLvl = `(__b_lvl:"" (_msg:~"(?s)g.*lvl" _msg:~"(?s)${key}g.*${key}lvl"))`;
    const stopsAtG = plan('sum by (lvl) (count_over_time({app="x"} | logfmt lvl, g [1m]))')!.logsql;
    expect(stopsAtG).toContain(gThenLvl);
    // g is read by no part of the answer: what it is set to does not matter.
    expect(stopsAtG).not.toContain('_msg:~"(?s)lvl.*g"');
    const heldG = `(__b_g:* __b_lvl:"" (_msg:~"(?s)g.*lvl" _msg:~"(?s)${key}g.*${key}lvl"))`;
    expect(plan('sum by (lvl, job) (count_over_time({app="x"} | logfmt lvl, g [1m]))')!.logsql).toContain(heldG);
  });

  it("counts rows Loki could read differently in the same stats pipe", () => {
    const p = plan('sum by (method) (count_over_time({app="x"} | json | drop __error__, __error_details__ [1m]))')!;
    const guard = p.logsql.slice(p.logsql.indexOf("format if (__error__:*"));
    for (const term of [
      String.raw`_msg:~"\\\\u|\\x{FFFD}"`, // `\u` escapes, U+FFFD
      String.raw`_msg:~"\\x{212A}"`, // the Kelvin sign, which the wide classes below leave out
      String.raw`^[^\\\\\\x{212A}]*\\\\(?:[\"\\\\/bfnrtu][^\\\\\\x{212A}]*\\\\)*[^\"\\\\/bfnrtu]`, // escapes JSON does not define
      String.raw`_msg:~":[\\t\\n\\r +.NIineE]" _msg:~":[\\t\\n\\r ]*(?:[+.NIieE]|n[aA])" _msg:~"\"[\\t\\n\\r ]*:[\\t\\n\\r ]*(?:[+.NIieE]|n[aA])"`, // numbers VictoriaLogs reads and Loki rejects
      '(__b_method:* not {method=~".+"} (__p_method:* or _msg:~', // metadata loses to the parsed key
      '(__b_method:"" __p_method:"" _msg:~"method', // a key VictoriaLogs did not extract
      "__guard_d0:>6", // `method` twice
      '(__p_method:="["* or __p_method:="{"*)', // arrays and objects
    ]) {
      expect(guard, term).toContain(term);
    }
    expect(p.logsql).toContain(
      "| stats by (_time:60000000000ns offset 1ns, __v_method) count() if (-__guard_row:=1) as __c, count() if (__guard_row:=1) as __bad",
    );
  });

  it("guards logfmt quoting and number shapes of numeric filters", () => {
    const p = plan('sum(count_over_time({app="x"} | logfmt | n >= 2 [1m]))')!;
    expect(p.logsql).toContain(
      String.raw`replace ("\\\\", "") at __unescaped | replace ("\\\"", "") at __unescaped | len(__unescaped) as __kept`,
    );
    expect(p.logsql).toContain("math (((__len - __unquoted) % 2) + ((__kept - __unescaped) % 2)) as __odd");
    expect(p.logsql).toContain("__odd:>0");
    expect(p.logsql).toContain('(__v_n:* -__v_n:~"^-?(?:(0|[1-9][0-9]{0,8})(\\\\.[0-9]{1,6})?|[1-9][0-9]{9,14})$")');
    expect(p.logsql).toContain("count() if (-__guard_row:=1 (__v_n:>=2)) as __c");
    expect(p.groupBy).toEqual([]);
    // Integer constants of up to 15 digits, as Traefik's nanosecond durations need.
    const long = plan('sum(count_over_time({app="x"} | logfmt | n > 999999999999999 or n <= 1e10 [1m]))')!;
    expect(long.logsql).toContain(
      "count() if (-__guard_row:=1 ((__v_n:>999999999999999 or __v_n:<=10000000000))) as __c",
    );
  });

  it("translates label filters exactly, a missing label reading as empty", () => {
    const cases: [string, string][] = [
      ['a="x"', '__v_a:="x"'],
      ['a!="x"', '-__v_a:="x"'],
      ['a=~"x.*"', '__v_a:~"^(?:x.*)$"'],
      ['a!~"x|y"', '-__v_a:~"^(?:x|y)$"'],
      ["a == 3", "(__v_a:>=3 __v_a:<=3)"],
      ["a != 3", "(__v_a:* -(__v_a:>=3 __v_a:<=3))"],
      ["a < -4", "__v_a:<-4"],
      ['a > 1 and b="y"', '(__v_a:>1 __v_b:="y")'],
      ['a > 1 or b="y"', '(__v_a:>1 or __v_b:="y")'],
      ['a > 1, (b="y" or b="z")', '(__v_a:>1 (__v_b:="y" or __v_b:="z"))'],
      // Durations and byte sizes are compared on a spelling VictoriaLogs reads (unitField).
      ["d > 1.5ms", "__guard_nd__v_d:>1500000"],
      // A fraction: equal decimals by their spellings (VictoriaLogs may read `1.50` a bit apart).
      ["a > 1.5", String.raw`(__v_a:>1.5 -__v_a:~"^1\\.50*$")`],
      ["a >= -0.25", String.raw`(__v_a:>=-0.25 or __v_a:~"^-0\\.250*$")`],
      ["a == 1.005e2", String.raw`__v_a:~"^100\\.50*$"`],
      ["a != 0.1", String.raw`(__v_a:* -__v_a:~"^0\\.10*$")`],
      ["d == 1h", "(__guard_nd__v_d:>=3600000000000 __guard_nd__v_d:<=3600000000000)"],
      ["b <= 2KiB", "__guard_nb__v_b:<=2048"],
    ];
    for (const [filter, logsql] of cases) {
      const p = plan(`sum(count_over_time({app="x"} | logfmt | ${filter} [1m]))`);
      expect(p?.logsql, filter).toContain(`count() if (-__guard_row:=1 (${logsql})) as __c`);
    }
  });

  it("groups by a parsed key Loki renames `…_extracted` where the row holds the label", () => {
    const p = plan('sum by (level_extracted, app) (count_over_time({app="x"} | json | drop __error__ [1m]))')!;
    expect(p.labels).toEqual(["app", "level_extracted"]);
    expect(p.groupBy).toEqual(["__v_app", "__v_level_extracted"]);
    expect(p.logsql).toContain('| format if (__b_level:*) "<__p_level>" as __v_level_extracted |');
    // The row's own `level_extracted`, or a line naming that key, is read by the Worker.
    expect(p.logsql).toContain(' or level_extracted:* or (_msg:~"level(?:(?s:.)|');
    expect(plan('sum by (a_extracted) (count_over_time({app="x"} | logfmt [1m]))')?.groupBy).toEqual([
      "__v_a_extracted",
    ]);
    // Where the row holds `level`, a key VictoriaLogs did not read still counts.
    expect(p.logsql).toContain('(__p_level:"" _msg:~"level');
    for (const q of [
      'sum by (level_extracted) (count_over_time({app="x"} | json | keep level [1m]))',
      'sum by (level_extracted) (count_over_time({app="x"} | json | drop level_extracted [1m]))',
      'sum by (level_extracted) (count_over_time({app="x"} | json | logfmt [1m]))',
      'sum by (level_extracted_extracted) (count_over_time({app="x"} | json [1m]))',
    ]) {
      expect(plan(q), q).toBeUndefined();
    }
  });

  it("guards the value shapes of duration and bytes filters", () => {
    const p = plan('sum(count_over_time({app="x"} | logfmt | d > 1s or d < 2 [1m]))')!;
    expect(p.logsql).toContain(
      String.raw`(__v_d:* -__v_d:~"^(?:(0|[1-9][0-9]{0,4})(ns|us|µs|μs|ms|s|m|h)|(0|[1-9][0-9]{0,4})(\\.[0-9]{1,3}(us|µs|μs)|\\.[0-9]{1,6}ms|\\.[0-9]{1,9}s)|(0|[1-9][0-9]{0,3})\\.[0-9]{1,9}m|(0|[1-9][0-9]?)\\.[0-9]{1,9}h|(0|[1-9][0-9]{0,2})h(0|[1-9][0-9]?)m((0|[1-9][0-9]?)(\\.[0-9]{1,9})?s)?|(0|[1-9][0-9]{0,4})m(0|[1-9][0-9]?)(\\.[0-9]{1,9})?s)$")`,
    );
    // Compared where `us` and the Greek `μs` read as the micro sign, the one VictoriaLogs knows.
    expect(p.logsql).toContain(
      '| format "<__v_d>" as __guard_nd__v_d | replace ("us", "µs") at __guard_nd__v_d | replace ("μs", "µs") at __guard_nd__v_d |',
    );
    expect(p.logsql).toContain("filter ((__guard_nd__v_d:>1000000000 or __v_d:<2)) or __guard_row:=1");
    // A fraction the origin reads a nanosecond short of Go's: the values so near the constant.
    expect(p.logsql).toContain(
      String.raw`(__guard_nd__v_d:~"\\." __guard_nd__v_d:>=999999999 __guard_nd__v_d:<=1000000001)`,
    );
    expect(p.logsql).not.toContain("__v_d:>=1 ");
    expect(p.logsql).toContain('(__v_d:* -__v_d:~"^-?(?:(0|[1-9][0-9]{0,8})(\\\\.[0-9]{1,6})?|[1-9][0-9]{9,14})$")');
    const q = plan('sum(count_over_time({app="x"} | logfmt | b > 1KB [1m]))')!;
    expect(q.logsql).toContain(
      String.raw`(__v_b:* -__v_b:~"^(0|[1-9][0-9]{0,14}|(0|[1-9][0-9]{0,4})(\\.[0-9]{1,6})?([bB]|[kKmMgG][iI]?[bB]?))$")`,
    );
    // Any case, compared upper-cased with `i` lower-cased again (`1.5kib` reads `1.5KiB`).
    expect(q.logsql).toContain('| format "<uc:__v_b>" as __guard_nb__v_b | replace ("I", "i") at __guard_nb__v_b |');
    expect(q.logsql).toContain(String.raw`(__guard_nb__v_b:~"\\." __guard_nb__v_b:>=999 __guard_nb__v_b:<=1001)`);
    expect(q.logsql).toContain("count() if (-__guard_row:=1 (__guard_nb__v_b:>1000)) as __c");
  });

  it("sums line lengths for bytes, and divides rates by the range", () => {
    const p = plan('sum by (app) (bytes_rate({app="x"} | logfmt | level="error" [2m]))')!;
    expect(p.logsql).toContain("| len(_msg) as __n | delete __guard_row | format if (");
    // Only the rows the filters keep and the guard's reach the groups.
    expect(p.logsql).toContain('| filter (__v_level:="error") or __guard_row:=1 | stats by (');
    expect(p.logsql).toMatch(/count\(\) if \(__guard_row:=1\) as __bad$/);
    expect(p.logsql).toContain(
      'count() if (-__guard_row:=1 (__v_level:="error")) as __c, sum(__n) if (-__guard_row:=1 (__v_level:="error")) as __v',
    );
    expect(p).toMatchObject({ value: "bytes", perSeconds: 120, labels: ["app"] });
    expect(plan('sum(rate({app="x"} | logfmt [5m]))')).toMatchObject({ value: "count", perSeconds: 300 });
  });

  it("reads a lone json's lines wrapped when its parser errors fail the query or remove rows", () => {
    const wrapper = String.raw`format "{\"__lvw_ok\":1,\"__lvw\":<_msg>}" as __lvw_w`;
    const unpack = 'unpack_json from __lvw_w fields (__lvw_ok, "__lvw.a") result_prefix "__p_"';
    const objectLine = String.raw`(_msg:="{"* or _msg:~"^[ \\t\\n\\r]*\\{")`;

    const fails = plan('sum by (a) (count_over_time({app="x"} | json | b="y" [1m]))')!;
    expect(fails.logsql).toContain(`| ${wrapper} | delete __p_a, __p_b, __p___lvw_ok, "__p___lvw.a", "__p___lvw.b" | `);
    expect(fails.logsql).toContain(
      'unpack_json from __lvw_w fields (__lvw_ok, "__lvw.a", "__lvw.b") result_prefix "__p_"',
    );
    expect(fails.logsql).toContain('format if (__p_a:"") "<__p___lvw.a>" as __p_a');
    // A line that is not an object fails the query where the filters keep it; on the others,
    // a line that did not parse or names the wrapper's key.
    expect(fails.logsql).toContain(`format if ((-${objectLine} __v_b:="y") or __error__:*`);
    expect(fails.logsql).toContain(`(-__p___lvw_ok:* ${objectLine}) or _msg:__lvw or`);
    expect(fails.logsql).toContain('count() if (-__guard_row:=1 (__v_b:="y")) as __c');

    const excludes = plan('sum by (a) (count_over_time({app="x"} | json | __error__="" [1m]))')!;
    expect(excludes.logsql).toContain(unpack);
    expect(excludes.logsql).toContain(`format if (${objectLine} (__error__:*`);
    expect(excludes.logsql).toContain(`| filter (${objectLine}) or __guard_row:=1 | stats by (`);
    expect(excludes.logsql).toContain(
      `count() if (-__guard_row:=1 (${objectLine})) as __c, count() if (__guard_row:=1) as __bad`,
    );

    // Dropped errors keep the plain unpack.
    const dropped = plan('sum by (a) (count_over_time({app="x"} | json | drop __error__ | __error__="" [1m]))')!;
    expect(dropped.logsql).toContain('unpack_json from _msg fields (a) result_prefix "__p_"');
    expect(dropped.logsql).not.toContain("__lvw");
  });

  it("pushes ip() filters over IPv4 ranges where the parser's errors are told apart", () => {
    const range = "__v_ip:ipv4_range(10.2.0.0, 10.2.255.255)";
    const shape = String.raw`(__v_ip:* -__v_ip:~"^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}`;
    const logfmt = plan('sum by (a) (count_over_time({app="x"} | logfmt | ip = ip("10.2.0.0/16") [1m]))')!;
    expect(logfmt.logsql).toContain(`count() if (-__guard_row:=1 (${range})) as __c`);
    expect(logfmt.logsql).toContain(shape);
    const negated = plan('sum by (a) (count_over_time({app="x"} | logfmt | ip != ip("10.0.0.1-10.0.0.5") [1m]))')!;
    expect(negated.logsql).toContain(
      "count() if (-__guard_row:=1 ((__v_ip:* -__v_ip:ipv4_range(10.0.0.1, 10.0.0.5)))) as __c",
    );
    // Without `__error__=""` Loki's ip() keeps every line its JSON parser rejects, and the query
    // fails on them: each one is a guard row, whatever the filters.
    const objectLine = String.raw`(_msg:="{"* or _msg:~"^[ \\t\\n\\r]*\\{")`;
    const json = plan('sum by (a) (count_over_time({app="x"} | json | ip = ip("10.2.0.0/16") [1m]))')!;
    expect(json.logsql).toContain("__lvw_w");
    expect(json.logsql).toContain(`format if ((-${objectLine}) or __error__:*`);
    const excluded = plan('sum by (a) (count_over_time({app="x"} | json | ip = ip("10.2.0.1") | __error__="" [1m]))')!;
    expect(excluded.logsql).toContain(
      `count() if (-__guard_row:=1 (${objectLine} __v_ip:ipv4_range(10.2.0.1, 10.2.0.1))) as __c`,
    );
    // With `drop __error__` after it, the rejected lines pass the filter and count: those not
    // starting as an object by the condition, the others (read wrapped) as guard rows.
    const dropped = plan('sum by (a) (count_over_time({app="x"} | json | ip = ip("10.2.0.1") | drop __error__ [1m]))')!;
    expect(dropped.logsql).toContain("__lvw_w");
    expect(dropped.logsql).toContain(
      `count() if (-__guard_row:=1 ((__v_ip:ipv4_range(10.2.0.1, 10.2.0.1) or -${objectLine}))) as __c`,
    );
    // After `drop __error__` no row carries an error: the values decide, the line read as it is.
    for (const parser of ["json", "json | logfmt"]) {
      const after = plan(
        `sum by (a) (count_over_time({app="x"} | ${parser} | drop __error__ | ip = ip("10.2.0.1") [1m]))`,
      )!;
      expect(after.logsql).not.toContain("__lvw_w");
      expect(after.logsql).toContain("count() if (-__guard_row:=1 (__v_ip:ipv4_range(10.2.0.1, 10.2.0.1))) as __c");
    }
  });

  it("accepts drops and no-op error filters", () => {
    for (const q of [
      'sum by (a) (count_over_time({app="x"} | logfmt | __error__="" [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | drop b, __error__ | a="x" [1m]))',
      'sum by (a) (count_over_time({app="x"} | json | drop __error__ | __error__="" [1m]))',
      'sum by (a) (count_over_time({app="x"} |= "e" | json | b > 2 | drop __error__, __error_details__ [1m]))',
    ]) {
      expect(plan(q), q).toBeDefined();
    }
  });

  it("passes over stages that change nothing counted", () => {
    const plain = plan('sum by (a) (count_over_time({app="x"} | logfmt | b="1" [1m]))')!.logsql;
    for (const stages of [
      '| keep a, b | b="1"',
      '| b="1" | keep b, a',
      '| decolorize | b="1"',
      '| line_format "{{.a}} and {{ .c }}, {{- .d -}} }}" | b="1"',
      '| label_format c=d, e="{{ .a }}!" | b="1"',
    ]) {
      const p = plan(`sum by (a) (count_over_time({app="x"} | logfmt ${stages} [1m]))`);
      expect(p?.logsql, stages).toBe(plain);
    }
    const bytes = plan('sum by (a) (bytes_over_time({app="x"} | logfmt | keep a | label_format c=d [1m]))');
    expect(bytes?.logsql).toBe(plan('sum by (a) (bytes_over_time({app="x"} | logfmt [1m]))')!.logsql);
  });

  it("passes over decolorize before the parser, where the line holds no escape it removes", () => {
    for (const q of [
      'sum by (a) (count_over_time({app="x"} | decolorize | logfmt | b="1" [1m]))',
      'sum by (a) (bytes_over_time({app="x"} | decolorize | decolorize | json | drop __error__ [1m]))',
      'sum by (a) (count_over_time({app="x"} | decolorize | json [1m]))',
    ]) {
      const p = plan(q)!.logsql;
      const without = plan(q.replaceAll("| decolorize ", ""))!.logsql;
      // The same query, but lines holding ESC or the 8-bit CSI are guard rows, whatever else decides.
      const guard = "| delete __guard_row | format if (";
      expect(p, q).toBe(without.replace(guard, guard + String.raw`_msg:~"[\\x1b\\x{9b}]" or `));
    }
    // A line filter between them is not one the origin's line filters run before it.
    expect(plan('sum by (a) (count_over_time({app="x"} | decolorize |= "b" | logfmt [1m]))')).toBeUndefined();
  });

  it("declines what it cannot prove exact", () => {
    for (const q of [
      // Only a lone `| json` reads its lines wrapped, which tells the lines its parser rejects.
      'sum by (a) (count_over_time({app="x"} | json | logfmt | __error__="" [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt --strict [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt --keep-empty [1m]))',
      // `| logfmt name="key"`: typed filters on its labels, two labels of one key, after another parser.
      'sum by (a) (count_over_time({app="x"} | logfmt a | a > 1 [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt a, b="a" [1m]))',
      'sum by (a) (count_over_time({app="x"} | json | logfmt a [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt --strict a [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt a | line_format "{{.a}}" [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | json | drop __error__ [1m]))',
      'sum by (a) (count_over_time({app="x"} | regexp "(?P<a>.)" [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | b > 1.0000001 [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | b > 1e-7 [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | b > 1000000000.5 [1m]))',
      // Integer constants of up to 15 digits only (exact as doubles on both sides).
      'sum by (a) (count_over_time({app="x"} | logfmt | b > 1e15 [1m]))',
      // ip() keeps a row carrying an error: not where errors the origin cannot tell reach it, nor for IPv6.
      'sum by (a) (count_over_time({app="x"} | json | logfmt | ip = ip("1.2.3.4") | drop __error__ [1m]))',
      'sum by (a) (count_over_time({app="x"} | json a="a" | ip = ip("1.2.3.4") | drop __error__ [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | ip = ip("::1") [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | __error__!="" [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | drop a [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | drop __error__="x" [1m]))',
      // Stages that could change what is counted (line_format and decolorize: the bytes).
      'sum by (a) (bytes_over_time({app="x"} | logfmt | line_format "{{.a}}" [1m]))',
      'sum by (a) (bytes_rate({app="x"} | logfmt | decolorize [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | line_format "{{ .a | urldecode }}" [1m]))',
      // A rename read by a filter, renamed again or to itself (which removes it), read by a
      // template, or after `| json a="…"` (a missing key is set to "", which moves).
      'sum by (a) (count_over_time({app="x"} | logfmt | label_format a=b | b="1" [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | b="1" | label_format a=b [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | label_format c=b | label_format a=c [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | label_format a=a [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | label_format a=b, c="{{.b}}" [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | label_format a=b | drop b [1m]))',
      'sum by (a) (count_over_time({app="x"} | json b="b" | label_format a=b | drop __error__ [1m]))',
      // A template reading a label another template sets, or one that could fail.
      'sum by (a) (count_over_time({app="x"} | logfmt | label_format c="{{ .a }}{{ .b }}", a="{{.c}}" [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | label_format a="{{ .b | urldecode }}" [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | label_format a="{{ .b }}" | drop a [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | label_format __error__=b [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | keep b [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | keep a | b="1" [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | keep a="1" [1m]))',
      // The origin's own fields, and names led by more than one `_`.
      'sum by (_msg) (count_over_time({app="x"} | logfmt [1m]))',
      'sum by (_stream) (count_over_time({app="x"} | json [1m]))',
      'sum by (__a) (count_over_time({app="x"} | logfmt [1m]))',
      'sum without (a) (count_over_time({app="x"} | logfmt [1m]))',
      'count by (a) (count_over_time({app="x"} | logfmt [1m]))',
      'count_over_time({app="x"} | logfmt [1m])',
      'sum by (a) (sum_over_time({app="x"} | logfmt | unwrap b [1m]))',
      'sum by (a) (count_over_time({app="x"} [1m]))',
    ]) {
      expect(plan(q), q).toBeUndefined();
    }
  });

  it("declines labels the Worker derives", () => {
    expect(plan('sum by (detected_level) (count_over_time({app="x"} | logfmt [1m]))', DISCOVERY)).toBeUndefined();
    expect(plan('sum by (a) (count_over_time({app="x"} | logfmt | service_name="y" [1m]))', DISCOVERY)).toBeUndefined();
    expect(plan('sum by (detected_level) (count_over_time({app="x"} | logfmt [1m]))')).toBeDefined();
  });
});

describe("planParserPushdown over Drilldown's parser chains", () => {
  const MIXED =
    'sum by (service_version) (count_over_time({namespace="shop", service_name="x"} | json service_version="[\\"service_version\\"]" | logfmt | drop __error__, __error_details__ | service_version!="" [1m]))';

  it('pushes `| json name="[\\"name\\"]" | logfmt`: the JSON key\'s value, logfmt\'s on lines JSON refuses', () => {
    // Loki's `| json name="…"` sets its label on every line it reads, and `| logfmt` then skips it.
    const p = plan(MIXED)!;
    expect(p.logsql).toContain(
      'unpack_json from _msg fields (service_version) result_prefix "__pj_" | ' +
        'unpack_logfmt if (_msg:~"=") from _msg fields (service_version) result_prefix "__pl_" | ' +
        'format "<__b_service_version>" as __v_service_version | ' +
        'format if (__v_service_version:"") "<__pj_service_version>" as __v_service_version | ' +
        'format if (__v_service_version:"" -_msg:~"^[\\"{\\\\[]") "<__pl_service_version>" as __v_service_version',
    );
    expect(p.logsql).toContain('count() if (-__guard_row:=1 (-__v_service_version:="")) as __c');
    expect(p.labels).toEqual(["service_version"]);
  });

  it("pushes the JSON-only and the plain chains Drilldown writes", () => {
    for (const q of [
      'sum by (f) (count_over_time({app="x"} | json f="[\\"f\\"]" | drop __error__, __error_details__ | f!="" [1m]))',
      'sum by (f) (count_over_time({app="x"} | json f | drop __error__, __error_details__ | f!="" [1m]))',
      'sum by (f) (count_over_time({app="x"} | json | logfmt | drop __error__, __error_details__ | f!="" [1m]))',
      'sum by (f) (count_over_time({app="x"} | json f="[\\"f\\"]", g="[\\"g\\"]" | logfmt | drop __error__, __error_details__ | g="1", f!="" [1m]))',
    ]) {
      expect(plan(q), q).toBeDefined();
    }
    const jsonOnly = plan(
      'sum by (f) (count_over_time({app="x"} | json f="[\\"f\\"]" | drop __error__, __error_details__ | f!="" [1m]))',
    )!;
    expect(jsonOnly.logsql).not.toContain("unpack_logfmt");
  });

  it('pushes a nested path (`| json a_b="[\\"a\\"][\\"b\\"]"`) from the field VictoriaLogs flattens it to', () => {
    const p = plan(
      'sum by (http_method) (count_over_time({app="x"} | json http_method="[\\"http\\"][\\"method\\"]", f="[\\"f\\"]" | logfmt | drop __error__, __error_details__ | http_method!="", f="1" [1m]))',
    )!;
    expect(p.logsql).toContain(
      'delete __pj_http_method, __pj_f, "__pj_http.method" | ' +
        'unpack_json from _msg fields ("http.method", f) result_prefix "__pj_" | ' +
        'format if (__pj_http_method:"") "<__pj_http.method>" as __pj_http_method | ' +
        'unpack_logfmt if (_msg:~"=") from _msg fields (http_method, f) result_prefix "__pl_" | ',
    );
    // Loki follows the first `http`, then its first `method`; VictoriaLogs keeps every `http.method`.
    expect(p.logsql).toContain(String.raw`_msg:~"(?s)\"http\"\\s*:.*\"http\"\\s*:"`);
    expect(p.logsql).toContain(String.raw`_msg:~"(?s)\"http\"\\s*:\\s*\\{.*\"method\"\\s*:.*\"method\"\\s*:"`);
    expect(p.logsql).toContain(String.raw`_msg:~"http\\.method"`);
    expect(p.labels).toEqual(["http_method"]);
  });

  it("reads a label renamed from a top-level key by that exact key", () => {
    const p = plan('sum by (m) (count_over_time({app="x"} | json m="method" | drop __error__ | m!="" [1m]))')!;
    expect(p.logsql).toContain(
      'unpack_json from _msg fields (method) result_prefix "__pj_" | ' +
        'format if (__pj_m:"") "<__pj_method>" as __pj_m | ',
    );
    expect(p.logsql).toContain(String.raw`_msg:~"(?s)\"method\"\\s*:.*\"method\"\\s*:"`);
    expect(p.labels).toEqual(["m"]);
    // A label named as another one's key would hold two values.
    const swapped = 'sum by (a) (count_over_time({app="x"} | json a="b", b="a" | drop __error__ | a!="" [1m]))';
    expect(plan(swapped)).toBeUndefined();
  });

  it("tells the lines the expression parser refuses by their first character", () => {
    const refused = String.raw`_msg:~"^[^\"{\\[]"`;
    const fail = plan('sum by (a) (count_over_time({app="x"} | json a="b" | a!="" [1m]))')!;
    // Such a line the filters keep fails the query: a guard row.
    expect(fail.groups?.bad?.startsWith(`(${refused} -__v_a:="") or `)).toBe(true);
    const excluded = plan('sum by (f) (count_over_time({app="x"} | json f="[\\"f\\"]" | logfmt | __error__="" [1m]))')!;
    expect(excluded.groups?.counted).toBe(`-${refused}`);
    expect(excluded.logsql).not.toContain("__lvw");
  });

  it("groups an expression label apart where Loki set it to the empty string", () => {
    for (const q of [
      'sum by (a_b) (count_over_time({app="x"} | json a_b="[\\"a\\"][\\"b\\"]" | logfmt | drop __error__ [1m]))',
      'sum by (a) (count_over_time({app="x"} | json a="[\\"b\\"]" | drop __error__ [1m]))',
      'sum by (f) (count_over_time({app="x"} | json f="[\\"f\\"]" | logfmt | drop __error__ | f!="" or g="1" [1m]))',
    ]) {
      const p = plan(q)!;
      const label = p.labels[0]!;
      expect(p.groupBy, q).toEqual([`__g_${label}`]);
      expect(p.setEmpty, q).toBe("\u0001");
      expect(p.logsql, q).toContain(
        `format "<__v_${label}>" as __g_${label} | ` +
          `format if (__v_${label}:"" _msg:~"^[\\"{\\\\[]") "\\u0001" as __g_${label}`,
      );
    }
  });

  it("marks a plain json label grouped or read by string filters where its key holds the empty string", () => {
    const p = plan('sum by (a, b) (count_over_time({app="x"} | json | drop __error__ | b="y" [1m]))')!;
    expect(p.setEmpty).toBe("\u0001");
    // A filtered label is grouped by a copy of its value taken before the mark is cleared from it.
    expect(p.groupBy).toEqual(["__v_a", "__g_b"]);
    // Only rows without a value whose line holds the key's empty text are read again, from the copy.
    expect(p.logsql).toContain(
      String.raw`| delete __marked | format if ((__p_a:"" or __p_b:"") _msg:~"\"\"" (_msg:~"\"a\": ?\"\"" or _msg:~"\"b\": ?\"\"")) "<_msg>" as __marked | ` +
        String.raw`replace_regexp ("(\"a\": ?)\"\"", "$1\"\\u0001\"") at __marked | ` +
        String.raw`replace_regexp ("(\"b\": ?)\"\"", "$1\"\\u0001\"") at __marked | ` +
        'unpack_json if (__marked:*) from __marked fields (a, b) result_prefix "__p_" | format "<__b_a>" as __v_a',
    );
    // The filter reads "" where the mark was; the mark's character read otherwise is the guard's.
    expect(p.logsql).toContain(String.raw`| format "<__v_b>" as __g_b | format if (__v_b:="\u0001") "" as __v_b |`);
    expect(p.logsql).toContain(
      String.raw`__b_a:~"\u0001" or (__p_a:~"\u0001" -__marked:*) or __b_b:~"\u0001" or (__p_b:~"\u0001" -__marked:*)`,
    );
    // Filtered only, the value is cleared and nothing is grouped by a copy.
    const filtered = plan('sum by (c) (count_over_time({app="x"} | json | drop __error__ | b!="" [1m]))')!;
    expect(filtered.groupBy).toEqual(["__v_c"]);
    expect(filtered.logsql).toContain(String.raw`format if (__v_b:="\u0001") "" as __v_b`);
    expect(filtered.logsql).not.toContain("__g_b");

    // Wrapped, the copy is the wrapper's, and its value goes where the label's is read from.
    const wrapped = plan('sum by (a) (count_over_time({app="x"} | json [1m]))')!;
    expect(wrapped.logsql).toContain('"<__lvw_w>" as __marked');
    expect(wrapped.logsql).toContain(
      'unpack_json if (__marked:*) from __marked fields ("__lvw.a") result_prefix "__p_" | format if (__p_a:"") "<__p___lvw.a>" as __p_a',
    );

    // In a chain, where `| json` read nothing: its value then leaves `| logfmt` none to set.
    const chain = plan('sum by (a) (count_over_time({app="x"} | json | logfmt | drop __error__ [1m]))')!;
    expect(chain.setEmpty).toBe("\u0001");
    expect(chain.logsql).toContain(
      String.raw`format if ((__pj_a:"") _msg:~"\"\"" (_msg:~"\"a\": ?\"\"")) "<_msg>" as __marked`,
    );
    expect(chain.logsql).toContain('unpack_json if (__marked:*) from __marked fields (a) result_prefix "__pj_"');
    expect(chain.logsql).toContain(String.raw`(__pj_a:~"\u0001" -__marked:*) or (__pl_a:~"\u0001")`);

    // Not where a typed filter reads the label, nor for `| json` with parameters or `| logfmt` alone.
    for (const q of [
      'sum by (a) (count_over_time({app="x"} | json | drop __error__ | a > 5 [1m]))',
      'sum by (a) (count_over_time({app="x"} | json | drop __error__ | a="x" or a > 5 [1m]))',
      'sum by (a) (count_over_time({app="x"} | logfmt | drop __error__ [1m]))',
    ]) {
      const unmarked = plan(q)!;
      expect(unmarked.logsql, q).not.toContain("__marked");
      expect(unmarked.setEmpty, q).toBeUndefined();
    }
    // `| json a="…"` groups its own way (emptyGroup).
    expect(plan('sum by (a) (count_over_time({app="x"} | json a="a" | drop __error__ [1m]))')!.logsql).not.toContain(
      "__marked",
    );
  });

  it("reads back the rows a typed filter on an expression label errs on: lines refused, keys without a value", () => {
    // A missing key becomes an empty value, an error for a numeric filter.
    const p = plan(
      'sum by (f) (count_over_time({app="x"} | json f="[\\"f\\"]" | logfmt | drop __error__ | f > 3 [1m]))',
    )!;
    expect(p.logsql).toContain(String.raw`format if (_msg:~"^[^\"{\\[]" or __pj_f:"" or `);
    expect(p.logsql).toContain("__v_f:>3");
  });

  it("groups by the labels a template reads for the label it sets", () => {
    const p = plan(
      'sum by (r, app) (count_over_time({app="x"} | logfmt | label_format r="{{.m | ToUpper}} {{.p}}" [1m]))',
    )!;
    expect(p.labels).toEqual(["app", "m", "p"]);
    expect(p.seriesLabels).toEqual(["r", "app"]);
    expect(p.templates).toEqual([{ label: "r", template: "{{.m | ToUpper}} {{.p}}", inputs: ["m", "p"] }]);
    expect(p.logsql).toMatch(/stats by \([^)]*, __v_app, __v_m, __v_p\)/);
  });

  it("groups by both labels of a rename, which the Worker applies to each group", () => {
    const p = plan('sum by (m, app) (count_over_time({app="x"} | json | label_format m=method [1m]))')!;
    expect(p.labels).toEqual(["app", "method", "m"]);
    expect(p.seriesLabels).toEqual(["m", "app"]);
    expect(p.templates).toEqual([{ label: "m", rename: "method", inputs: ["method", "m"] }]);
    expect(p.logsql).toMatch(/stats by \([^)]*, __v_app, __v_method, __v_m\)/);
    // A key holding "" is moved as a value: both labels are marked; a row holding the source
    // itself (stream label or metadata) is read back.
    expect(p.logsql).toContain(String.raw`_msg:~"\"method\": ?\"\""`);
    expect(p.logsql).toContain(String.raw`_msg:~"\"m\": ?\"\""`);
    expect(p.logsql).toContain(" or __b_method:* or ");
    // A string filter on the moved label after the rename: the Worker applies it to each group.
    const filtered = plan('sum(count_over_time({app="x"} | logfmt | label_format a=b | a="1" [1m]))')!;
    expect(filtered.templates).toEqual([{ label: "a", rename: "b", inputs: ["b", "a"] }]);
    expect(filtered.templateFilters?.length).toBe(1);
    expect(filtered.logsql).not.toContain('__v_a:="1"');
    // Grouped by the label moved away: its groups are read before the move.
    const away = plan('sum by (method) (count_over_time({app="x"} | logfmt | label_format m=method [1m]))')!;
    expect(away.labels).toEqual(["method", "m"]);
    expect(away.seriesLabels).toEqual(["method"]);
  });

  it("leaves string filters on a templated label to the Worker, grouped by what the template reads", () => {
    const p = plan(
      'sum by (app) (count_over_time({app="x"} | logfmt | label_format r="{{.m}} {{.p}}" | r=~"GET .*" or r="POST /" [1m]))',
    )!;
    expect(p.labels).toEqual(["app", "m", "p"]);
    expect(p.seriesLabels).toEqual(["app"]);
    expect(p.templateFilters?.map((f) => f.type)).toEqual(["binary"]);
    expect(p.logsql).not.toContain("__v_r");
    // Before the template the filter reads the parsed label; beside another label, or typed, it
    // is not one the Worker applies to rendered values alone.
    for (const q of [
      'sum(count_over_time({app="x"} | logfmt | r="a" | label_format r="{{.m}}" [1m]))',
      'sum(count_over_time({app="x"} | logfmt | label_format r="{{.m}}" | r="a" or p="b" [1m]))',
      'sum(count_over_time({app="x"} | logfmt | label_format r="{{.m}}" | r > 3 [1m]))',
      'sum(count_over_time({app="x"} | logfmt | label_format r="{{.m}}", r="{{.p}}" | r="a" [1m]))',
    ]) {
      expect(plan(q), q).toBeUndefined();
    }
  });

  it("groups by the stream for a derived service_name, unless a stage sets, renames or removes it", () => {
    const rules = { serviceNameLabels: ["service", "app"], discoverLogLevels: false };
    const p = plan('sum by (service_name, job) (count_over_time({app="x"} | logfmt [1m]))', rules)!;
    expect(p.labels).toEqual(["job", "_stream"]);
    expect(p.streamService).toEqual(["service", "app"]);
    expect(p.seriesLabels).toEqual(["service_name", "job"]);
    for (const stage of [
      'label_format service_name="{{.job}}"',
      "label_format service_name=job",
      "drop service_name",
      "keep job",
    ]) {
      const q = `sum by (service_name) (count_over_time({app="x"} | logfmt | ${stage} [1m]))`;
      expect(plan(q, rules), q).toBeUndefined();
    }
    // Without discovery it is a label like any other.
    expect(plan('sum by (service_name) (count_over_time({app="x"} | logfmt [1m]))')!.labels).toEqual(["service_name"]);
  });

  it("keeps other paths and unparsed errors local", () => {
    for (const q of [
      // Indexed paths, or keys VictoriaLogs' flattened names cannot tell apart.
      'sum by (a) (count_over_time({app="x"} | json a="[\\"a\\"][0]" | drop __error__ [1m]))',
      'sum by (a_b) (count_over_time({app="x"} | json a_b="[\\"a\\"][0][\\"b\\"]" | drop __error__ | a_b!="" [1m]))',
      'sum by (a_b) (count_over_time({app="x"} | json a_b="[\\"a.x\\"][\\"b\\"]" | drop __error__ | a_b!="" [1m]))',
      'sum by (a_b) (count_over_time({app="x"} | json a_b="[\\"a*\\"][\\"b\\"]" | drop __error__ | a_b!="" [1m]))',
      'sum by (f) (count_over_time({app="x"} | json f="[\\"f\\"]" | logfmt --strict | drop __error__ [1m]))',
      'sum by (f) (count_over_time({app="x"} | logfmt | json | drop __error__ [1m]))',
    ]) {
      expect(plan(q), q).toBeUndefined();
    }
  });
});

describe("planParserPushdown over labels `| json` names from nested objects", () => {
  it("reads `a_b` from every field VictoriaLogs may flatten it to, the first non-empty one", () => {
    const p = plan(
      'sum by (http_method) (count_over_time({app="x"} | json | drop __error__, __error_details__ [1m]))',
    )!;
    expect(p.logsql).toContain(
      'delete __p_http_method, "__p_http.method", "__p_http-method" | ' +
        'unpack_json from _msg fields (http_method, "http.method", "http-method") result_prefix "__p_" | ' +
        'format if (__p_http_method:"") "<__p_http.method>" as __p_http_method | ' +
        'format if (__p_http_method:"") "<__p_http-method>" as __p_http_method | ',
    );
    // A key naming it through nested objects where VictoriaLogs found none, and two such keys.
    const key = (part: string) => String.raw`${part}(?:[^"\\\w]|\\.)*"\s*:`;
    expect(p.logsql).toContain(`_msg:~${JSON.stringify(String.raw`(?s)${key("http")}\s*\{.*${key("method")}`)}`);
    expect(p.logsql).not.toContain("unpack_json from _msg fields (http_method) ");
  });

  it("reads each level a name's parts may end: 2^(parts-1) fields, none after a part Loki prefixes, each also with its `_`s dashed, and the name with some dashed", () => {
    const fields = (name: string) => {
      const p = plan(`sum by (${name}) (count_over_time({app="x"} | json | drop __error__ [1m]))`)!;
      return /unpack_json from _msg fields \(([^)]*)\)/.exec(p.logsql)![1];
    };
    expect(fields("a_b_c")).toBe('a_b_c, "a.b_c", "a_b.c", "a.b.c", "a-b-c", "a.b-c", "a-b.c", "a-b_c", "a_b-c"');
    // Loki names `{"a": {"1": …}}` `a__1`: `a.1` is not `a_1` (`{"a-1": …}` is).
    expect(fields("a_1")).toBe('a_1, "a-1"');
    expect(fields("a_b_c_d_e")).toBe('a_b_c_d_e, "a-b-c-d-e"');
    expect(fields("method")).toBe("method");
  });
});

describe("the guard's regexes", () => {
  /** The regexes of a LogsQL query's `field:~"…"` filters. */
  const filterRegexes = (logsql: string) =>
    [...logsql.matchAll(/:~("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]!) as string);
  /** The negated character classes of a regex, as written. */
  const negatedClasses = (regex: string) => [...regex.matchAll(/\[\^((?:\\.|[^\]\\])*)\]/g)].map((m) => m[1]!);

  it("leave no negated class that case folding maps into itself (VictoriaLogs prepares each for 10-30 ms)", () => {
    const queries = [
      'sum by (method) (count_over_time({app="x"} | json | drop __error__, __error_details__ [1m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | attempt > 3 [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | job_name=~"a.*" [5m]))',
      'sum by (http_code) (count_over_time({app="x"} | json | drop __error__ | user_id != "" [1m]))',
      'sum by (f) (count_over_time({app="x"} | json f="[\\"f\\"]" | logfmt | drop __error__ | f!="" [1m]))',
      'sum by (f) (count_over_time({app="x"} | json | logfmt | drop __error__, __error_details__ | f!="" [1m]))',
    ];
    let classes = 0;
    for (const q of queries) {
      for (const regex of filterRegexes(plan(q)!.logsql)) {
        for (const negated of negatedClasses(regex)) {
          classes++;
          // Leaving out an ASCII letter (or all word characters, or the Kelvin sign, which folds to
          // `K`) makes the class not closed under case folding: Go prints it without folding each rune.
          const letters = negated.replace(/\\x\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\./g, "");
          const open =
            /[A-Za-z]/.test(letters) || ["\\w", "\\x{212A}", "\\x21-\\x7e"].some((part) => negated.includes(part));
          expect(open, `${q}: [^${negated}] in ${regex}`).toBe(true);
        }
      }
    }
    expect(classes).toBeGreaterThan(10);
  });
});

describe("infallibleTemplate", () => {
  it("takes text, label reads and total string functions of them; nothing that may fail", () => {
    for (const template of [
      "plain",
      "{{.a}} and {{ .b }}",
      "{{- .a -}}",
      "{{.a | ToUpper}}",
      "{{ .a | lower | trim }}",
      "{{ ToLower .a }}",
      "{{title .a}}: {{ .b | TrimSpace }}",
    ]) {
      expect(infallibleTemplate(template), template).toBe(true);
    }
    for (const template of [
      "{{ .a | urldecode }}",
      "{{ .a | ToUpper | urldecode }}",
      "{{ ToUpper .a .b }}",
      "{{ ToUpper }}",
      "{{ .a.b | lower }}",
      '{{ .a | replace "x" "y" }}',
      "{{ lowerx .a }}",
      "{{ __line__ | lower }}",
    ]) {
      expect(infallibleTemplate(template), template).toBe(false);
    }
  });
});

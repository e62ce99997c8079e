/**
 * The level push-down's plan: which shapes it takes, the LogsQL it sends, and how a group's inputs
 * give its level or decline. That its answers are Loki's is proved against the real VictoriaLogs in
 * test/worker/level-pushdown.test.ts.
 */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { SampleExpr } from "../../../src/logql/ast";
import { INPUT, LEVEL_KEY_CORES, planLevelPushdown } from "../../../src/plan/level-pushdown";
import { levelOfGroup } from "../../../src/exec/level-pushdown";
import { LEVEL_FIELDS, type DerivedFieldRules } from "../../../src/engine/derived-fields";

const S = 1_000_000_000n;
const RANGE = { start: 3600n * S, end: 7200n * S, step: 60n * S, instant: false };
const DISCOVERY: DerivedFieldRules = { serviceNameLabels: ["service", "app"], discoverLogLevels: true };
const NO_DISCOVERY: DerivedFieldRules = { serviceNameLabels: ["service"], discoverLogLevels: false };
const plan = (q: string, derived: DerivedFieldRules | undefined = DISCOVERY) =>
  planLevelPushdown(parseExpr(q) as SampleExpr, RANGE, derived);

describe("planLevelPushdown", () => {
  it("groups Grafana's logs volume by bucket, the labels and the level rules' inputs", () => {
    const p = plan('sum by (level, detected_level) (count_over_time({app="checkout"} | drop __error__ [1m]))')!;
    expect(p.labels).toEqual(["level"]);
    expect(p.width).toBe(60n * S);
    expect(p.value).toBe("count");
    expect(p.logsql).toMatch(
      /^\{app="checkout"\} \| delete __dl_jf, __dl_w, __dl_h, __dl_t, __dl_j, __dl_l, __dl_eq, __dl_lc \| extract_regexp /,
    );
    expect(p.logsql).toMatch(/\| stats by \(_time:60000000000ns offset 1ns, level, detected_level, LEVEL, /);
    expect(p.logsql).toMatch(
      /severity_number, __dl_s, __dl_h, __dl_t, __dl_j, __dl_jf, __dl_l, __dl_eq, __dl_w\) count\(\) as __v$/,
    );
    expect(plan('sum by (detected_level) (bytes_rate({app="x"} |= "e" [5m]))')).toMatchObject({
      value: "bytes",
      perSeconds: 300,
      labels: [],
    });
  });

  it("holds every level key's core: a line without one is settled without its key regexes", () => {
    for (const key of LEVEL_FIELDS)
      expect(
        LEVEL_KEY_CORES.some((core) => key.includes(core)),
        key,
      ).toBe(true);
  });

  it("takes Drilldown's filters on detected_level, with or without grouping by it", () => {
    const filtered = plan('sum(count_over_time({app="x"} | detected_level=~"err.*" or detected_level="warn" [1m]))')!;
    expect(filtered).toMatchObject({ labels: [], byLevel: false });
    expect(filtered.levelFilters).toHaveLength(1);
    expect(plan('sum by (detected_level) (count_over_time({app="x"} | detected_level!="info" [1m]))')).toMatchObject({
      byLevel: true,
    });
  });

  it("counts behind a parser with its filters and guard, the level rules reading the row's own fields", () => {
    const p = plan('sum by (level, detected_level) (count_over_time({app="x"} | json | status >= 500 [1m]))')!;
    expect(p).toMatchObject({ labels: ["level"], labelFields: ["__v_level"], guarded: true, byLevel: true });
    expect(p.groupBy.slice(0, 3)).toEqual(["__v_level", "detected_level", "level"]);
    expect(p.logsql).toContain(
      'unpack_json from __lvw_w fields (__lvw_ok, "__lvw.level", "__lvw.status") result_prefix "__p_"',
    );
    expect(p.logsql).toContain(
      "count() if (-__guard_row:=1 (__v_status:>=500)) as __v, count() if (__guard_row:=1) as __bad",
    );
    // A key the parser could name `detected_level` (which then wins over the derived one) is guarded.
    expect(p.logsql).toContain('or (_msg:~"detected" (_msg:~"detected(?:(?s:.)|');
    expect(p.logsql).toMatch(/ as __bad, count\(\) if \(-__guard_row:=1 \(__v_status:>=500\)\) as __c$/);
    // Rows are read back as grouped (the guard's flag and the level inputs computed), then given
    // back their own fields, for the Worker to count.
    expect(p.readBack.rows).toContain("| delete __guard_row | format if (");
    expect(p.readBack.rows).toMatch(/ as __guard_row \| filter \(__v_status:>=500\) or __guard_row:=1 \| delete __dl_/);
    expect(p.readBack.cleanup.join(" | ")).toMatch(/^delete __dl_s, .* \| delete __b_\*, __p_\*/);
    expect(p.readBack.groups).toBe(true);
    const logfmt = plan(
      'sum by (detected_level) (count_over_time({app="x"} | logfmt | level="error" | drop __error__ [1m]))',
    )!;
    expect(logfmt.logsql).toContain('unpack_logfmt from _msg fields (level) result_prefix "__p_"');
    // A key names it only with its `=`: Loki's logfmt sets no label for an empty value.
    expect(logfmt.logsql).toContain('or _msg:~"detected(?s:.)level[^\\\\x00-\\\\x20=');
  });

  it("groups by the labels alone where a keep removed the level", () => {
    const p = plan('sum by (level, detected_level) (count_over_time({app="x"} | json | keep method, status [1m]))')!;
    expect(p).toMatchObject({ labels: [], labelFields: [], byLevel: false, levelFilters: [], guarded: true });
    expect(p.logsql).not.toContain("__dl_");
    expect(p.logsql).toMatch(
      /\| stats by \(_time:60000000000ns offset 1ns\) count\(\) if \(-__guard_row:=1\) as __v, /,
    );
    const kept = plan('sum by (method, level, detected_level) (count_over_time({app="x"} | json | keep method [1m]))')!;
    expect(kept).toMatchObject({ labels: ["method"], labelFields: ["__v_method"], byLevel: false });
    const unparsed = plan('sum by (app, detected_level) (rate({app="x"} | keep app [1m]))')!;
    expect(unparsed).toMatchObject({ labels: ["app"], byLevel: false, perSeconds: 60 });
    expect(unparsed.logsql).toBe('{app="x"} | stats by (_time:60000000000ns offset 1ns, app) count() as __v');
    // Listing detected_level, the keep leaves it.
    expect(plan('sum by (detected_level) (count_over_time({app="x"} | keep detected_level [1m]))')).toMatchObject({
      byLevel: true,
    });
  });

  it('counts behind | logfmt name="key" with its own guard, a label it sets to "" grouped apart', () => {
    const p = plan('sum by (level, detected_level) (count_over_time({app="x"} | logfmt lvl="level" [1m]))')!;
    expect(p).toMatchObject({ labels: ["level"], labelFields: ["__v_level"], byLevel: true, guarded: true });
    expect(p.logsql).toContain('unpack_logfmt from _msg fields (level, lvl) result_prefix "__q_"');
    const own = plan('sum by (lvl, detected_level) (count_over_time({app="x"} | logfmt lvl="level" [1m]))')!;
    expect(own).toMatchObject({ labels: ["lvl"], labelFields: ["__g_lvl"], setEmpty: "\u0001" });
  });

  it("reads line_format templates of total string functions, and line filters on a label's value", () => {
    expect(
      plan(
        'sum by (detected_level) (count_over_time({app="x"} | json | line_format "{{ .a | ToUpper | trim }}" [1m]))',
      ),
    ).toBeDefined();
    expect(
      plan('sum by (detected_level) (count_over_time({app="x"} | json | line_format "{{ToLower .a}}" [1m]))'),
    ).toBeDefined();
    const p = plan(
      'sum by (detected_level) (count_over_time({app="x"} | json | line_format "{{.a}}" |= "G.T" or "x" != "y" [1m]))',
    )!;
    expect(p.logsql).toContain(
      // Substring searches: the regexes hold wherever their literals occur (stringMatch).
      String.raw`filter (__v_a:~"G\\.T|x" -__v_a:~"y") or __guard_row:=1`,
    );
  });

  it("passes over | unpack, guarding the lines it could give labels", () => {
    const p = plan('sum by (level, detected_level) (count_over_time({app="x"} | unpack | drop __error__ [1m]))')!;
    expect(p).toMatchObject({ labels: ["level"], byLevel: true, guarded: true });
    expect(p.labelFields).toBeUndefined();
    expect(p.logsql).toContain(String.raw`format if (_msg:~"_entry|\\\\u") "1" as __guard_row`);
    expect(p.logsql).toContain("count() if (__guard_row:=1) as __bad, count() if (-__guard_row:=1) as __c");
    // Without the drop, the lines its parser may reject are guard rows too.
    const failing = plan('sum by (detected_level) (count_over_time({app="x"} | unpack [1m]))')!;
    expect(failing.logsql).toContain(String.raw`format if (_msg:~"_entry|\\\\u" or -_msg:~"^\\{[ \\t\\n\\r]*(?:`);
    for (const declined of [
      'sum by (detected_level) (count_over_time({app="x"} | unpack | drop __error__="JSONParserErr" [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | unpack | unpack | drop __error__ [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | unpack | a="b" | drop __error__ [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | json | unpack | drop __error__ [1m]))',
    ]) {
      expect(plan(declined), declined).toBeUndefined();
    }
  });

  it("renders and filters a formatted line per group where a line filter reads more than one label's value", () => {
    for (const q of [
      'sum by (detected_level) (count_over_time({app="x"} | json | line_format "{{.a}}" | a="b" |= "x" [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | json | line_format "{{.a}}" |~ "x" [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | json | line_format "{{.a}}-{{.b}}" != "x" [1m]))',
    ]) {
      const p = plan(q)!;
      expect(p, q).toBeDefined();
      expect(
        p.templates?.map((t) => t.label),
        q,
      ).toEqual(["__formatted_line_0"]);
      expect(p.templateFilters, q).toHaveLength(1);
      expect(p.seriesLabels, q).toEqual([]);
    }
  });

  it("declines what it cannot count per group", () => {
    const declined = [
      'sum by (level) (count_over_time({app="x"}[1m]))', // no detected_level: pushed whole elsewhere
      // Behind a parser: only what the parser push-down counts exactly.
      'sum by (detected_level) (count_over_time({app="x"} | json | line_format "{{.a | urldecode}}" [1m]))',
      'sum by (detected_level) (bytes_over_time({app="x"} | json | line_format "{{.a}}" [1m]))',
      // A level filter after a `keep` that removed the level reads it missing.
      'sum by (detected_level) (count_over_time({app="x"} | json | keep a | detected_level="error" [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | json | keep a, detected_level="x" [1m]))',
      'sum by (a, detected_level) (count_over_time({app="x"} | json | keep b | label_format a="{{.b}}" [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | json | line_format "{{.a}} {{__line__}}" |= "x" [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | json | label_format detected_level=a [1m]))',
      'sum by (a, detected_level) (count_over_time({app="x"} | regexp "(?P<a>.)" [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | regexp "(?P<detected_level>.)" [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | logfmt | a > 1.0000001 [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | json | drop detected_level [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | drop detected_level [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | detected_level > 1 [1m]))',
      'sum by (detected_level) (count_over_time({app="x"} | detected_level="error" or level="x" [1m]))',
      'sum(count_over_time({app="x"} | drop detected_level | detected_level="" [1m]))',
      'sum by (service_name, detected_level) (count_over_time({app="x"}[1m]))',
      'max by (detected_level) (count_over_time({app="x"}[1m]))',
      'sum without (detected_level) (count_over_time({app="x"}[1m]))',
      'sum by (detected_level) (sum_over_time({app="x"} | unwrap v [1m]))',
    ];
    for (const q of declined) expect(plan(q), q).toBeUndefined();
    expect(plan('sum by (detected_level) (count_over_time({app="x"}[1m]))', NO_DISCOVERY)).toBeUndefined();
  });
});

describe("levelOfGroup", () => {
  const json = (member: string) => ({ [INPUT.head]: "{", [INPUT.tail]: "}", [INPUT.json]: member });
  it("applies Loki's rules to a group's inputs", () => {
    expect(levelOfGroup({ level: "WARNING" })).toBe("warn");
    expect(levelOfGroup({ detected_level: "ERR", level: "info" })).toBe("error");
    expect(levelOfGroup({ severity_number: "18" })).toBe("error");
    expect(levelOfGroup({ lvl: "x", level: "dbg" })).toBe("debug");
    expect(levelOfGroup(json('"Info"'))).toBe("info");
    expect(levelOfGroup({ ...json('"loud"'), [INPUT.word]: "ERROR" })).toBe("error");
    expect(levelOfGroup(json('"loud"'))).toBe("unknown");
    // A flat object without a level member: the first level word.
    expect(levelOfGroup({ [INPUT.head]: "{", [INPUT.tail]: "}", [INPUT.flat]: "{", [INPUT.word]: "Err" })).toBe(
      "error",
    );
    expect(levelOfGroup({ [INPUT.logfmt]: 'LEVEL="wrn"', [INPUT.equals]: "=" })).toBe("warn");
    expect(levelOfGroup({ [INPUT.logfmt]: "level=", [INPUT.equals]: "=", [INPUT.word]: "Fatal" })).toBe("fatal");
    expect(levelOfGroup({ [INPUT.word]: "warning" })).toBe("warn");
    // A bare `level` key ends Loki's logfmt scan with an empty value: the first level word decides.
    expect(levelOfGroup({ [INPUT.logfmt]: "level", [INPUT.equals]: "=", [INPUT.word]: "error" })).toBe("error");
    expect(levelOfGroup({})).toBe("unknown");
  });

  it("declines a group whose inputs do not settle the level", () => {
    // Two level fields where one is a stream label: which wins depends on which.
    expect(levelOfGroup({ [INPUT.stream]: "severity", severity: "x", level: "y" })).toBeUndefined();
    expect(levelOfGroup({ [INPUT.stream]: "level", level: "y" })).toBe("y");
    expect(levelOfGroup({ [INPUT.stream]: "severity_number", severity_number: "9" })).toBeUndefined();
    // A JSON line whose level member could not be reduced, a logfmt line without a readable pair.
    expect(levelOfGroup({ [INPUT.head]: "{", [INPUT.tail]: "}" })).toBeUndefined();
    expect(levelOfGroup({ [INPUT.equals]: "=" })).toBeUndefined();
    // Braces at one end only: not a JSON line.
    expect(levelOfGroup({ [INPUT.head]: "{", [INPUT.word]: "info" })).toBe("info");
    expect(levelOfGroup({ [INPUT.tail]: "}", [INPUT.json]: '"debug"' })).toBe("unknown");
  });
});

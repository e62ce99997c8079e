/**
 * VictoriaLogs (v1.121) reads only the fields later pipes name, and `unpack_json|unpack_logfmt …
 * fields (…) result_prefix "p"` asks for its source field only where a later pipe names one of
 * the unpacked fields without the prefix: where only prefixed outputs are read, the source is not
 * read and the unpack silently sets nothing (every row then reads as one without the key). The
 * push-downs rely on a later pipe naming `_msg`, from which every unpacked value comes (the
 * guard's terms). This checks it of every LogsQL the metric planners write for Loki's own test
 * queries (../shared/logql, where present) and for the forms Grafana and Drilldown send: a plan
 * breaking it would answer wrongly without an error, which only data holding the key would show.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import { isLogExpr, type SampleExpr } from "../../../src/logql/ast";
import { walk } from "../../../src/logql/walk";
import { planMetricStrategy, planPart } from "../../../src/plan/metric-strategy";
import type { DerivedFieldRules } from "../../../src/engine/derived-fields";

const S = 1_000_000_000n;
const GRID = { start: 3600n * S, end: 7200n * S, step: 60n * S, instant: false };
const DISCOVERY: DerivedFieldRules = { serviceNameLabels: ["service", "app"], discoverLogLevels: true };

const corpus = join(dirname(fileURLToPath(import.meta.url)), "../../../../shared/logql/valid.json");
const lokiQueries: string[] = existsSync(corpus)
  ? (JSON.parse(readFileSync(corpus, "utf8")) as { query: string; kind: string }[])
      .filter((c) => c.kind === "metric")
      .map((c) => c.query)
  : [];

/** Grafana's and Drilldown's forms over JSON, logfmt and pattern parsers, with their filters. */
const DEFAULT_FORMS = [
  'sum by (level, detected_level) (count_over_time({app="x"} | drop __error__ [1m]))',
  'sum by (level, detected_level) (count_over_time({app="x"} | json | status >= 500 | drop __error__ [1m]))',
  'sum by (detected_level) (count_over_time({service_name="x"} | json | drop __error__, __error_details__ | m="GET" [1m]))',
  'sum by (m) (count_over_time({service_name="x"} | json | drop __error__, __error_details__ [1m]))',
  'sum by (http_host) (count_over_time({service_name="x"} | json | drop __error__, __error_details__ [1m]))',
  'sum by (p) (count_over_time({service_name="x"} | json p="[\\"http\\"][\\"proto\\"]" | drop __error__ | p!="" [1m]))',
  'sum by (job) (count_over_time({service_name="x"} | logfmt | drop __error__, __error_details__ [1m]))',
  'sum by (m) (count_over_time({service_name="x"} | json | logfmt | drop __error__, __error_details__ | s >= 500 [1m]))',
  'sum by (job) (count_over_time({app="x"} | logfmt | attempt > 3 [5m]))',
  'sum by (u) (count_over_time({app="x"} | logfmt | d > 1s, size <= 1.5KB [5m]))',
  'sum by (m) (count_over_time({app="x"} | json | label_format m2=m [5m]))',
  'sum by (m) (count_over_time({app="x"} | decolorize | json | drop __error__ [5m]))',
  'sum by (s) (count_over_time({app="x"} | pattern "<_> <s> <_>" [1m]))',
  'sum by (l) (count_over_time({app="x"} | logfmt l="level" [5m]))',
  'quantile_over_time(0.99, {app="x"} | json | unwrap v [5m]) by (m)',
  'sum by (c) (sum_over_time({app="x"} | json | s >= 500 | unwrap v [5m]))',
  'avg_over_time({app="x"} | json | unwrap v [5m]) by (m)',
  'stddev_over_time({app="x"} | json | unwrap v [5m]) by (p)',
  'sum by (j) (sum_over_time({app="x"} | logfmt | unwrap bytes(size) [5m]))',
  'max_over_time({app="x"} | json | unwrap duration(d) [5m]) by (j)',
  'sum by (m) (sum_over_time({app="x"} | pattern "<m> <size>" | unwrap size [5m]))',
];

/**
 * Whether `_msg` is named after the last unpack under a result prefix in `logsql`. Every unpacked
 * value comes from `_msg` (unpacked itself, or a copy a `format` made of it, which VictoriaLogs
 * computes whenever `_msg` is read): named after the last, `_msg` is read at every unpack, since
 * no pipe writes it.
 */
function lineReadAfterUnpacks(logsql: string): boolean {
  const unpacks = [...logsql.matchAll(/unpack_(?:json|logfmt) .*? result_prefix "[^"]*"/g)];
  if (unpacks.length === 0) return true;
  const last = unpacks[unpacks.length - 1]!;
  return /(?<![\w.])_msg(?![\w.])/.test(logsql.slice(last.index + last[0].length));
}

/** Every string a plan holds (its LogsQL, its guard's, its rows'), at any depth. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (value instanceof Map) for (const v of value.values()) strings(v, out);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) strings(v, out);
  return out;
}

/**
 * The LogsQL of every plan for `query` and the subtrees a Worker evaluation pushes as parts; none
 * for a query Loki refuses (some only when planned: a regex that does not compile).
 */
function planned(query: string, derived?: DerivedFieldRules): string[] {
  const out: string[] = [];
  try {
    const expr = parseExpr(query);
    if (isLogExpr(expr)) return [];
    strings(planMetricStrategy(expr, GRID, { pushdown: true, derived }), out);
    walk(expr, {
      RangeAggregation: (node) => void strings(planPart(node, GRID, derived), out),
      VectorAggregation: (node) => void strings(planPart(node as SampleExpr, GRID, derived), out),
    });
  } catch {
    return [];
  }
  // Whole queries only (a plan also holds fragments its executor joins, a guard apart from its rows).
  return out.filter((s) => s.includes("result_prefix") && s.includes(" | stats "));
}

describe("unpacks under a result prefix", () => {
  it("are followed by a pipe reading `_msg`, in every metric plan", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const query of [...DEFAULT_FORMS, ...lokiQueries]) {
      for (const derived of [undefined, DISCOVERY]) {
        for (const logsql of planned(query, derived)) {
          checked++;
          if (!lineReadAfterUnpacks(logsql)) broken.push(`${query}: ${logsql}`);
        }
      }
    }
    expect(broken).toEqual([]);
    // The forms above are planned with unpacks: the check is not vacuous.
    expect(checked).toBeGreaterThan(DEFAULT_FORMS.length);
  });

  it("finds a query reading `_msg` no more after its unpacks", () => {
    expect(
      lineReadAfterUnpacks('x | unpack_json from _msg fields (a) result_prefix "p_" | stats by (p_a) count()'),
    ).toBe(false);
    expect(
      lineReadAfterUnpacks(
        'x | format "<_msg>" as w | unpack_json from w fields (a) result_prefix "p_" | format if (_msg:~"b") "1" as g',
      ),
    ).toBe(true);
    expect(
      lineReadAfterUnpacks(
        'x | unpack_json from _msg fields (a) result_prefix "p_" | filter _msg:~"c" | unpack_logfmt from _msg fields (b) result_prefix "q_" | stats count()',
      ),
    ).toBe(false);
    expect(lineReadAfterUnpacks("x | stats count()")).toBe(true);
  });
});

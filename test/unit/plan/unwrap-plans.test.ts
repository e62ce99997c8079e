/**
 * Which unwrap aggregations go to the origin (push-down), which get projected rows, and which are
 * read as whole lines. Equality of the answers is proved against the real VictoriaLogs in
 * test/worker/unwrap-pushdown.test.ts; this pins down the shapes each planner accepts.
 */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { RangeAggregationExpr, SampleExpr } from "../../../src/logql/ast";
import { planUnwrapPushdown } from "../../../src/plan/unwrap-pushdown";
import { planUnwrapProjection } from "../../../src/plan/unwrap-projection";
import { DURATION_AGGREGATED_SHAPE } from "../../../src/plan/unwrap-units";
import type { DerivedFieldRules } from "../../../src/engine/derived-fields";
import { parsedLabelValues } from "../../../src/plan/parser-pushdown";

const S = 1_000_000_000n;
const GRID = { start: 3600n * S, end: 7200n * S, step: 60n * S, instant: false };
const DISCOVERY: DerivedFieldRules = { serviceNameLabels: ["service", "app"], discoverLogLevels: true };

const pushdown = (q: string, derived?: DerivedFieldRules) =>
  planUnwrapPushdown(parseExpr(q) as SampleExpr, GRID, derived);
const projection = (q: string, derived?: DerivedFieldRules) =>
  planUnwrapProjection(parseExpr(q) as RangeAggregationExpr, derived);

describe("planUnwrapPushdown", () => {
  it("accepts aggregations of the samples themselves over json | unwrap", () => {
    for (const [q, fn] of [
      ['sum by (app) (sum_over_time({app="x"} | json | unwrap v [5m]))', "sum"],
      ['sum(sum_over_time({app="x"} |= "e" | json | unwrap v | __error__="" [5m]))', "sum"],
      ['min by (app) (min_over_time({app="x"} | json | unwrap v [5m]))', "min"],
      ['max(max_over_time({app="x"} | json | __error__="" | unwrap v [5m]))', "max"],
      ['avg_over_time({app="x"} | json | unwrap v [5m]) by (pod)', "avg"],
      ['max_over_time({app="x"} | json | unwrap v [5m]) by (pod, app)', "max"],
      ['quantile_over_time(0.99, {app="x"} | json | unwrap v [5m]) by (cluster)', "quantile"],
      // Loki's rate over an unwrap is the window's sum per second: a sum of rates is the rate of the union.
      ['sum(rate({app="x"} | json | unwrap v [5m]))', "rate"],
      ['sum by (app) (rate({app="x"} | json | unwrap v | __error__="" [5m]))', "rate"],
      ['stddev_over_time({app="x"} | json | unwrap v [5m]) by (app)', "stddev"],
      ['stdvar_over_time({app="x"} | json | unwrap v [5m]) by (pod, app)', "stdvar"],
      ['first_over_time({app="x"} | json | unwrap v [5m]) by (app)', "first"],
      ['last_over_time({app="x"} | json | __error__="" | unwrap v [5m]) by (app, pod)', "last"],
    ] as const) {
      expect(pushdown(q)?.fn, q).toBe(fn);
    }
  });

  it("asks for the aggregate of the unguarded rows, their count and the guard's in one stats pipe, buckets aligned to the grid", () => {
    const plan = pushdown('sum by (app) (sum_over_time({app="x"} | json | unwrap v [5m]))')!;
    expect(plan.width).toBe(60n * S);
    expect(plan.bucketsPerWindow).toBe(5);
    expect(plan.logsql).toContain('unpack_json from _msg fields (v) result_prefix "__unwrap_"');
    expect(plan.logsql).toContain(
      "stats by (_time:60000000000ns offset 1ns, app) sum(__guard_exact) if (-__guard_row:=1 __guard_exact:*) as __v, count() if (-__guard_row:=1 __guard_exact:*) as __n, count() if (__guard_row:=1) as __bad",
    );
    expect(plan.logsql).toContain(" | delete __guard_row | format if (v:* or ");
  });

  it("guards a quantile's, a variance's, a first's or a last's rows in the stats pipe itself (they void the answer)", () => {
    for (const q of [
      'quantile_over_time(0.5, {app="x"} | json | unwrap v [5m]) by (app)',
      'stddev_over_time({app="x"} | json | unwrap v [5m]) by (app)',
      'first_over_time({app="x"} | json | unwrap v [5m]) by (app)',
    ]) {
      const plan = pushdown(q)!;
      expect(plan.guarded, q).toBeUndefined();
      expect(plan.logsql, q).not.toContain("__guard_row");
      expect(plan.logsql, q).toContain("count() if (v:* or ");
    }
  });

  it("tests a value's shape once, into a field cleared first, that the sum, the count and the guard read", () => {
    const plan = pushdown('sum by (app) (sum_over_time({app="x"} | json | unwrap v [5m]))')!;
    const test = String.raw`__unwrap_v:~"^-?(?:(0|[1-9][0-9]{0,8})(\\.[0-9]{1,6})?|[1-9][0-9]{9,14})$" not __unwrap_v:~"^-0(\\.0*)?$"`;
    expect(plan.logsql).toContain(
      `result_prefix "__unwrap_" | delete __guard_exact | format if (${test}) "<__unwrap_v>" as __guard_exact | `,
    );
    // Only that pipe runs the regexes of the value's shape.
    expect(plan.logsql.split("^-?(?:(0|[1-9]").length - 1).toBe(1);
    expect(plan.logsql).toContain('(__unwrap_v:* __guard_exact:"")');
    expect(plan.logsql).toContain('(__guard_exact:"" _msg:~"v(?:');
  });

  it("asks for a quantile's values, bounded per bucket, and keeps φ", () => {
    const plan = pushdown('quantile_over_time(0.99, {app="x"} | json | unwrap latency_ms [5m]) by (cluster)')!;
    expect(plan.phi).toBe(0.99);
    expect(plan.logsql).toMatch(
      /stats by \(_time:60000000000ns offset 1ns, cluster\) values\(__guard_exact\) limit 1000000 if \(__guard_exact:\*\) as __v, count\(\) if \(__guard_exact:\*\) as __n, count\(\) if \(latency_ms:\* or /,
    );
    expect(plan.logsql.endsWith(String.raw` as __bad | replace ("\"", "") at __v`)).toBe(true);
  });

  it("asks for a variance's values as for a quantile's, and for a rate's sum", () => {
    const variance = pushdown('stdvar_over_time({app="x"} | json | unwrap bytes(v) [5m]) by (cluster)')!;
    expect(variance.logsql).toContain(
      "stats by (_time:60000000000ns offset 1ns, cluster) values(__guard_exact) limit 1000000 if (__guard_exact:*) as __v,",
    );
    // The texts travel whole, units included: no split per unit.
    expect(variance.logsql).not.toContain("__guard_unit");
    expect(variance.logsql.endsWith(String.raw` as __bad | replace ("\"", "") at __v`)).toBe(true);
    const rate = pushdown('sum by (app) (rate({app="x"} | json | unwrap v [5m]))')!;
    expect(rate.logsql).toContain("app) sum(__guard_exact) if (-__guard_row:=1 __guard_exact:*) as __v, count()");
    expect(rate.bucketsPerWindow).toBe(5);
  });

  it("asks for a first's or last's smallest and largest value at its bucket's earliest or latest time", () => {
    const last = pushdown('last_over_time({app="x"} | json | unwrap v [5m]) by (pod)')!;
    expect(last.logsql).toContain(
      " | copy _time as __guard_t | stats by (_time:60000000000ns offset 1ns, pod, __guard_t) min(__guard_exact) if (__guard_exact:*) as __lo, max(__guard_exact) if (__guard_exact:*) as __hi, count() if (__guard_exact:*) as __n, count() if (",
    );
    expect(last.logsql).toMatch(
      / \| stats by \(_time, pod\) row_max\(__guard_t, __lo, __hi\) if \(__n:>0\) as __v, sum\(__n\) as __n, sum\(__bad\) as __bad$/,
    );
    const q = 'first_over_time({app="x"} | json | unwrap v [5m]) by (method)';
    const first = planUnwrapPushdown(parseExpr(q) as SampleExpr, GRID, undefined, parsedLabelValues)!;
    expect(first.logsql).toContain("row_min(__guard_t, __lo, __hi) if (__n:>0) as __v");
    expect(first.logsql).toContain("sum(__bad_label) as __bad_label");
  });

  it("spells a key's `_` as any character or escape, never as a wide negated class", () => {
    const plan = pushdown('sum by (app) (sum_over_time({app="x"} | json | unwrap latency_ms [5m]))')!;
    expect(plan.logsql).toContain(String.raw`_msg:~"latency(?:(?s:.)|\\\\.)ms(?:[^\"\\\\\\w]|\\\\.)*\"`);
    expect(plan.logsql).not.toContain(String.raw`[^\"\\\\]`);
  });

  it("pushes conversions for values of their shape, aggregated per unit (a quantile's texts whole)", () => {
    const sum = pushdown('sum(sum_over_time({app="x"} | json | unwrap duration(v) [5m]))')!;
    expect(sum.conversion).toBe("duration");
    expect(sum.logsql).toContain(`format if (__unwrap_v:~${JSON.stringify(DURATION_AGGREGATED_SHAPE)}`);
    expect(sum.logsql).toContain(
      ' | extract_regexp if (__guard_exact:*) "^(?P<__guard_num>[0-9.]+)(?P<__guard_unit>.*)$" from __guard_exact | format if (__guard_unit:~"[0-9]") ',
    );
    expect(sum.logsql).toContain(", __guard_unit) sum(__guard_num) if (-__guard_row:=1 __guard_exact:*) as __v");
    const q = pushdown('quantile_over_time(0.9, {app="x"} | json | unwrap bytes(v) [5m]) by (app)')!;
    expect(q.conversion).toBe("bytes");
    expect(q.logsql).not.toContain("__guard_unit");
    expect(q.logsql).toContain("values(__guard_exact) limit");
    expect(pushdown('max_over_time({app="x"} | json | unwrap v [5m]) by (app)')!.conversion).toBeUndefined();
    expect(projection('quantile_over_time(0.9, {app="x"} | json | unwrap bytes(v) [5m]) by (app)')!.conversion).toBe(
      "bytes",
    );
  });

  it("refuses what it cannot prove equal", () => {
    for (const q of [
      'avg by (app) (avg_over_time({app="x"} | json | unwrap v [5m]))',
      'sum without (pod) (sum_over_time({app="x"} | json | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | logfmt | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json v="w" | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json | v > 1 | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json | unwrap v | v > 1 [5m]))',
      'max_over_time({app="x"} | json | unwrap v [5m]) by (v)',
      'max_over_time({app="x"} | json | unwrap v [5m])',
      // Per stream, with every parsed label; an average or extreme of rates is no rate of the union.
      'rate({app="x"} | json | unwrap v [5m])',
      'avg(rate({app="x"} | json | unwrap v [5m]))',
      'max by (app) (rate({app="x"} | json | unwrap v [5m]))',
      'stddev_over_time({app="x"} | json | unwrap v [5m])',
      'stdvar_over_time({app="x"} | json | unwrap v [5m]) without (app)',
      // Units could order differently on the two sides.
      'first_over_time({app="x"} | json | unwrap duration(v) [5m]) by (app)',
      'last_over_time({app="x"} | json | unwrap v [5m])',
    ]) {
      expect(pushdown(q), q).toBeUndefined();
    }
  });

  it("leaves labels the Worker derives to the Worker", () => {
    const q = 'max_over_time({app="x"} | json | unwrap v [5m]) by (detected_level)';
    expect(pushdown(q)).toBeDefined();
    expect(pushdown(q, DISCOVERY)).toBeUndefined();
    expect(pushdown('sum by (service_name) (sum_over_time({app="x"} | json | unwrap v [5m]))', DISCOVERY)).toBe(
      undefined,
    );
  });
});

describe("planUnwrapPushdown with label filters before the unwrap", () => {
  const filtered = (q: string, derived?: DerivedFieldRules) =>
    planUnwrapPushdown(parseExpr(q) as SampleExpr, GRID, derived, parsedLabelValues);

  it("counts a sample only where the filters keep the row, over Loki's values of their labels", () => {
    const plan = filtered(
      'sum by (method) (sum_over_time({app="x"} | json | status >= 500 | unwrap latency_ms [5m]))',
    )!;
    const counted = "-__guard_row:=1 __guard_exact:* __v_status:>=500";
    expect(plan.logsql).toContain(`sum(__guard_exact) if (${counted}) as __v, count() if (${counted}) as __n`);
    expect(plan.groups!.counted).toBe(counted);
    // The filtered label's value: the row's own field, else the parsed key, guarded where it is set
    // but not a plain decimal.
    expect(plan.logsql).toContain('format "<status>" as __b_status');
    expect(plan.logsql).toContain(
      String.raw`(__v_status:* -__v_status:~"^-?(?:(0|[1-9][0-9]{0,8})(\\.[0-9]{1,6})?|[1-9][0-9]{9,14})$")`,
    );
    // One request, grouped by Loki's values, every value from one unpack.
    expect(plan.parsedLabels).toBeUndefined();
    expect(plan.groupBy).toEqual(["__v_method"]);
    expect(plan.logsql.match(/unpack_json/g)).toHaveLength(1);
    expect(plan.logsql).toContain(
      `unpack_json from _msg fields (latency_ms, "latency.ms", "latency-ms", method, status)`,
    );
  });

  it("accepts filters, `__error__` filters and drops of unused labels between the parser and the unwrap", () => {
    for (const q of [
      'avg_over_time({app="x"} | json | method="GET" | unwrap v [5m]) by (path)',
      'quantile_over_time(0.95, {app="x"} | logfmt | attempt > 3 | unwrap attempt [5m]) by (job)',
      'max_over_time({app="x"} | json | drop __error__ | status=~"5.." | unwrap v [5m]) by (method)',
      'sum(sum_over_time({app="x"} | json | __error__="" | d > 10ms or size <= 2KiB | drop d2 | unwrap v [5m]))',
      'min by (app) (min_over_time({app="x"} | logfmt | v > 1 | unwrap v | __error__="" [5m]))',
    ]) {
      expect(filtered(q), q).toBeDefined();
    }
  });

  it("refuses filters it cannot translate, and drops of a label it reads", () => {
    for (const q of [
      'sum(sum_over_time({app="x"} | json | drop v | unwrap v [5m]))',
      'sum by (method) (sum_over_time({app="x"} | json | drop method | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json | status >= 500 | drop status | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json | drop status="500" | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json | keep w | unwrap v [5m]))',
      'sum by (app) (sum_over_time({app="x"} | json | keep v | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json | label_format v="{{.w}}" | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json | label_format v=w | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json | addr = ip("10.0.0.0/8") | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json | __error__!="" | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json | status_extracted > 1 | unwrap v [5m]))',
      'sum(sum_over_time({app="x"} | json | line_format "{{ .v | urldecode }}" | unwrap v [5m]))',
    ]) {
      expect(filtered(q), q).toBeUndefined();
    }
    expect(filtered('sum(sum_over_time({app="x"} | json | detected_level="error" | unwrap v [5m]))', DISCOVERY)).toBe(
      undefined,
    );
    // The projection reads no filtered label: it keeps such queries on whole lines.
    expect(projection('stddev_over_time({app="x"} | json | status >= 500 | unwrap v [5m]) by (app)')).toBeUndefined();
  });
});

describe("planUnwrapProjection", () => {
  it("projects grouped, order-independent aggregations to time, group labels and value", () => {
    const plan = projection('quantile_over_time(0.99, {app="x"} |= "GET" | json | unwrap latency [5m]) by (cluster)')!;
    expect(plan.valueField).toBe("__unwrap_latency");
    expect(plan.groupBy).toEqual(["cluster"]);
    expect(plan.rows).toMatch(
      /^\{app="x"\} .* \| fields _time, cluster, _msg \| unpack_json from _msg fields \(latency\)/,
    );
    expect(plan.rows).toMatch(/\| filter __unwrap_latency:\* \| delete _msg$/);
    expect(plan.guard).toMatch(/\| filter latency:\* or .* \| limit 1 \| fields _time$/);
    for (const q of [
      'stddev_over_time({app="x"} | json | unwrap v [5m]) by (app)',
      'stdvar_over_time({app="x"} | json | unwrap v | __error__="" [5m]) by (app, pod)',
      'min_over_time({app="x"} | json | unwrap v [5m]) by (app)',
    ]) {
      expect(projection(q), q).toBeDefined();
    }
  });

  it("keeps whole lines where labels, order or conversions matter", () => {
    for (const q of [
      'quantile_over_time(0.9, {app="x"} | json | unwrap v [5m])',
      'quantile_over_time(0.9, {app="x"} | json | unwrap v [5m]) without (pod)',
      'first_over_time({app="x"} | json | unwrap v [5m]) by (app)',
      'last_over_time({app="x"} | json | unwrap v [5m]) by (app)',
      'quantile_over_time(0.9, {app="x"} | logfmt | unwrap v [5m]) by (app)',
      'quantile_over_time(0.9, {app="x"} | json | line_format "{{ .v | urldecode }}" | unwrap v [5m]) by (app)',
      'quantile_over_time(0.9, {app="x"} | json | unwrap v [5m]) by (v)',
    ]) {
      expect(projection(q), q).toBeUndefined();
    }
    expect(projection('stddev_over_time({app="x"} | json | unwrap v [5m]) by (detected_level)', DISCOVERY)).toBe(
      undefined,
    );
  });
});

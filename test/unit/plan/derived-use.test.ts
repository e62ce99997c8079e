/** When a query's answer can depend on the derived fields, and when they can be left out or wait. */
import { describe, expect, it } from "vitest";
import { levelsCanWait, metricNeedsDerived } from "../../../src/plan/derived-use";
import { parseExpr } from "../../../src/logql/parser";
import type { PipelineStage, SampleExpr } from "../../../src/logql/ast";

const DERIVED = new Set(["detected_level", "service_name"]);
const needs = (q: string) => metricNeedsDerived(parseExpr(q) as SampleExpr, DERIVED);

describe("metricNeedsDerived", () => {
  it("is false when every range aggregation is grouped by other labels and nothing reads them", () => {
    for (const q of [
      'sum by (app) (count_over_time({app="x"}[5m]))',
      'sum(rate({service_name="x"} |= "error" [5m]))',
      'quantile_over_time(0.99, {app="x"} | json | unwrap latency [5m]) by (cluster)',
      'topk(3, sum by (pod) (bytes_over_time({app="x"}[1h])))',
      'sum by (app) (count_over_time({app="x"}[5m])) / sum by (app) (count_over_time({app="x"} |= "e" [5m]))',
      'label_replace(sum by (app) (count_over_time({app="x"}[5m])), "a", "$1", "app", "(.*)")',
      "vector(1) + vector(1)",
    ]) {
      expect(needs(q), q).toBe(false);
    }
  });

  it("is true when a series keeps its labels, groups by a derived one, or a stage may read one", () => {
    for (const q of [
      'count_over_time({app="x"}[5m])',
      'sum by (level, detected_level) (count_over_time({app="x"} | drop __error__ [5m]))',
      'sum without (pod) (count_over_time({app="x"}[5m]))',
      'topk(3, count_over_time({app="x"}[1h]))',
      'sum by (app) (count_over_time({app="x"} | detected_level="error" [5m]))',
      'sum by (app) (count_over_time({app="x"} | line_format "{{.detected_level}}" [5m]))',
      'max_over_time({app="x"} | logfmt | unwrap n [5m]) by (service_name)',
      'sum by (app) (count_over_time({app="x"}[5m])) / count_over_time({app="x"}[5m])',
    ]) {
      expect(needs(q), q).toBe(true);
    }
  });

  it("derives detected_level under an aggregation the series it splits would change", () => {
    // Structured metadata splits a stream's series: only a sum adds the parts back into one.
    for (const q of [
      'max by (app) (count_over_time({app="x"}[5m]))',
      'avg by (app) (rate({app="x"}[5m]))',
      'count by (app) (count_over_time({app="x"}[5m]))',
      'sum by (app) (count_over_time({app="x"}[5m]) > 2)',
    ]) {
      expect(needs(q), q).toBe(true);
    }
    // service_name is the stream's: it splits nothing.
    const serviceOnly = new Set(["service_name"]);
    const q = 'max by (app) (count_over_time({app="x"}[5m]))';
    expect(metricNeedsDerived(parseExpr(q) as SampleExpr, serviceOnly), q).toBe(false);
  });

  it("is false when nothing is derived", () => {
    expect(metricNeedsDerived(parseExpr('count_over_time({app="x"}[5m])') as SampleExpr, new Set())).toBe(false);
  });
});

describe("levelsCanWait", () => {
  const local = (q: string) => (parseExpr(q) as unknown as { pipeline: PipelineStage[] }).pipeline;
  it("lets detected_level wait for the entries kept when no stage reads or removes it", () => {
    for (const q of [
      '{app="x"} |= "a" != "b" | level="error"',
      '{app="x"} | decolorize | drop level',
      '{app="x"} | json lvl="level" | logfmt status',
      '{app="x"} | regexp "(?P<a>[a-z]+)" | pattern "<_> <b>"',
    ]) {
      expect(levelsCanWait(local(q), DERIVED), q).toBe(true);
    }
    expect(levelsCanWait([], DERIVED)).toBe(true);
  });
  it("derives it from every row when a stage may read it or remove it", () => {
    for (const q of [
      '{app="x"} | detected_level="error"',
      '{app="x"} | json | detected_level=~"e.*"',
      '{app="x"} | line_format "{{.a}}"',
      '{app="x"} | label_format a=b',
      '{app="x"} | drop detected_level',
      '{app="x"} | keep app',
      // A parser that may extract a `detected_level` key: Loki names it `detected_level_extracted`
      // because the entry already carries the level.
      '{app="x"} | json | status >= 500',
      '{app="x"} | logfmt',
      '{app="x"} | unpack',
      '{app="x"} | json detected_level="lvl"',
      '{app="x"} | regexp "(?P<detected_level>[a-z]+)"',
      '{app="x"} | pattern "<detected_level> <_>"',
    ]) {
      expect(levelsCanWait(local(q), DERIVED), q).toBe(false);
    }
  });
});

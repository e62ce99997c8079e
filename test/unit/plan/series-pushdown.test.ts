/** Which counting metrics the series push-down takes, and what the origin groups their rows by. */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { SampleExpr } from "../../../src/logql/ast";
import type { DerivedFieldRules } from "../../../src/engine/derived-fields";
import { planSeriesPushdown, seriesStatsQuery } from "../../../src/plan/series-pushdown";
import { INPUT } from "../../../src/plan/level-pushdown";

const S = 1_000_000_000n;
const RANGE = { start: 3600n * S, end: 7200n * S, step: 60n * S, instant: false };
const DISCOVERY: DerivedFieldRules = { serviceNameLabels: ["service", "app"], discoverLogLevels: true };
const SERVICES: DerivedFieldRules = { serviceNameLabels: ["service", "app"], discoverLogLevels: false };
const plan = (q: string, derived?: DerivedFieldRules) => planSeriesPushdown(parseExpr(q) as SampleExpr, RANGE, derived);

describe("planSeriesPushdown", () => {
  it("groups a bare count's rows by every field, and by the level inputs when levels are discovered", () => {
    const p = plan('count_over_time({app="auth"} |= "ERROR" [5m])', DISCOVERY)!;
    expect(p.fields).toBe("all");
    expect(p.levels).toBe(true);
    expect(p.value).toBe("count");
    expect(p.perSeconds).toBe(0);
    const q = seriesStatsQuery(p, ["trace_id"]);
    expect(q.groupBy).toEqual(["_stream_id", "trace_id", ...Object.values(INPUT)]);
    expect(q.logsql).toContain("| stats by (_time:60000000000ns offset 1ns, _stream_id, trace_id, __dl_s");
    expect(plan('count_over_time({app="auth"} |= "ERROR" [5m])', SERVICES)!.levels).toBe(false);
  });

  it("groups a sum by labels only by them and by what the Worker's stages read", () => {
    const p = plan('sum by (service_name) (rate({namespace="prod"} |= "error" | pod!="x" [5m]))', DISCOVERY)!;
    expect(p.fields).toEqual(["service_name", "pod"]);
    expect(p.levels).toBe(false);
    expect(p.perSeconds).toBe(300);
    const q = seriesStatsQuery(p, p.fields as string[]);
    expect(q.groupBy).toEqual(["_stream_id", "service_name", "pod"]);
    expect(plan('sum by (detected_level, service_name) (count_over_time({app="x"}[1m]))', DISCOVERY)!.levels).toBe(
      true,
    );
  });

  it("counts the rows that set a stream label's name outside the streams carrying it", () => {
    const p = plan('count_over_time({app="auth"}[5m])')!;
    const q = seriesStatsQuery(p, ["trace_id"], ["pod", "k8s.node"]);
    expect(q.groupBy).toEqual(["_stream_id", "trace_id"]);
    expect(q.logsql).toMatch(
      /\| stats by \([^)]*\) count\(\) as __v, count\(\) if \(\(-_stream:\{"pod"=~"\.\+"\} pod:\*\) or \(-_stream:\{"k8s\.node"=~"\.\+"\} k8s\.node:\*\)\) as __x$/,
    );
    expect(seriesStatsQuery(p, ["trace_id"]).logsql).toMatch(/count\(\) as __v$/);
  });

  it("sums bytes with a row count beside them", () => {
    const p = plan('bytes_rate({app="x"}[5m])')!;
    expect(p.value).toBe("bytes");
    expect(p.stats).toBe("sum_len(_msg) as __v, count() as __c");
  });

  it("declines parsers, stages that read the line, unwraps, other functions and other outer aggregations", () => {
    for (const q of [
      'count_over_time({app="x"} | json [5m])',
      'count_over_time({app="x"} | line_format "{{.a}}" [5m])',
      'count_over_time({app="x"} | decolorize [5m])',
      'sum_over_time({app="x"} | logfmt | unwrap n [5m])',
      'absent_over_time({app="x"}[5m])',
      'avg by (app) (rate({app="x"}[5m]))',
      'sum without (pod) (rate({app="x"}[5m]))',
      'sum by (app) (sum(count_over_time({app="x"}[5m])))',
    ]) {
      expect(plan(q, DISCOVERY), q).toBeUndefined();
    }
  });
});

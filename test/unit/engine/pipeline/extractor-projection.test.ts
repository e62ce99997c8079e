/**
 * Samples of a range aggregation grouped `by (...)` carry only the grouping labels: for generated
 * rows (JSON and logfmt lines with colliding, missing, empty, malformed and non-numeric fields,
 * structured metadata, label filters and formats in the pipeline) they must equal the full
 * samples with the grouping applied, and error samples must still carry every label.
 */
import { describe, expect, it } from "vitest";
import { compileSampleExtractor } from "../../../../src/engine/pipeline";
import { keepLabels } from "../../../../src/engine/metric/labels";
import { parseExpr } from "../../../../src/logql/parser";
import type { RangeAggregationExpr } from "../../../../src/logql/ast";
import type { LogRow } from "../../../../src/engine/types";
import { prng } from "../../../../scripts/lib/prng.mjs";

const QUERIES = [
  'quantile_over_time(0.9, {app="a"} | json | unwrap latency [5m]) by (cluster)',
  'max_over_time({app="a"} | json | unwrap latency [5m]) by (cluster, method)',
  'stddev_over_time({app="a"} | logfmt | unwrap duration(took) [5m]) by (level)',
  'avg_over_time({app="a"} | json | __error__="" | unwrap bytes(size) | __error__="" [5m]) by (app, cluster_extracted)',
  'min_over_time({app="a"} | logfmt | label_format lvl=level | unwrap latency [5m]) by (lvl, pod)',
  'last_over_time({app="a"} | json | unwrap latency [5m]) by (method, trace_id)',
  'stdvar_over_time({app="a"} | logfmt | drop pod | unwrap bytes(size) [5m]) by (pod, level)',
  'first_over_time({app="a"} | json | keep latency, cluster | unwrap latency [5m]) by (cluster, latency)',
];

function rows(seed: number, n: number): LogRow[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const out: LogRow[] = [];
  for (let i = 0; i < n; i++) {
    const fields: Record<string, string> = {};
    if (rnd() < 0.8) fields.latency = pick(["12", "3.5", "", "x", "1e3", "-7", "NaN"]);
    if (rnd() < 0.5) fields.method = pick(["GET", "POST", ""]);
    if (rnd() < 0.3) fields.cluster = pick(["eu", "us"]); // collides with the stream label
    if (rnd() < 0.5) fields.took = pick(["15ms", "2s", "bad", "1h2m"]);
    if (rnd() < 0.5) fields.size = pick(["10KB", "3", "1.5MiB", "??"]);
    if (rnd() < 0.5) fields.level = pick(["info", "error"]);
    const json = rnd() < 0.5;
    let line = json
      ? JSON.stringify(fields)
      : Object.entries(fields)
          .map(([k, v]) => `${k}=${v}`)
          .join(" ");
    if (rnd() < 0.05) line = line.slice(0, Math.floor(line.length / 2)); // malformed
    out.push({
      ts: BigInt(i) * 1_000_000_000n,
      line,
      stream: { app: "a", cluster: pick(["c1", "c2"]), pod: pick(["p1", "p2", "p3"]) },
      metadata: rnd() < 0.5 ? { trace_id: pick(["t1", "t2"]) } : {},
    });
  }
  return out;
}

describe("samples projected on the grouping", () => {
  for (const q of QUERIES) {
    it(q, () => {
      const agg = parseExpr(q) as RangeAggregationExpr;
      const keep = agg.grouping!.labels;
      const full = compileSampleExtractor(agg.range, agg.op);
      const projected = compileSampleExtractor(agg.range, agg.op, keep);
      let compared = 0;
      for (const row of rows(q.length * 7919, 400)) {
        const a = full.process({ ...row });
        const b = projected.process({ ...row });
        if (a === null || b === null) {
          expect(b).toEqual(a);
          continue;
        }
        compared++;
        expect(b.value).toEqual(a.value);
        if ("__error__" in a.labels) expect(b.labels).toEqual(a.labels);
        else expect(b.labels).toEqual(keepLabels(a.labels, keep));
      }
      expect(compared).toBeGreaterThan(50);
    });
  }
});

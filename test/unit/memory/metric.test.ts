/**
 * Metric answers and volume_range under the 128 MB an isolate has (metric.capped.ts): a real
 * VictoriaLogs holds 200,000 logfmt lines over a day in 300 pod streams, each line carrying a
 * request id, so that a parser makes every line its own series. Every shape must be answered (200,
 * or the documented 400 of the limit that stops it) by a process that survives, within its deadline.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { join } from "node:path";
import { startTestOrigin, type TestOrigin } from "../../support/origin.mjs";
import { pushLokiBatches, waitForRows } from "../../../scripts/lib/victorialogs.mjs";
import { runCappedNode } from "../../../bench/lib/capped-node.mjs";

const ROWS = 200_000;
const PODS = 300;
/** 2026-01-01T00:00:00Z: the data's last second. */
const END_S = 1_767_225_600;
const DAY_S = 86_400;

let origin: TestOrigin;

/** Loki push bodies of 10,000 lines each, spread evenly over the day before END_S. */
function* pushBodies(): Generator<string> {
  const stepNs = (BigInt(DAY_S) * 1_000_000_000n) / BigInt(ROWS);
  const startNs = BigInt(END_S - DAY_S) * 1_000_000_000n;
  for (let from = 0; from < ROWS; from += 10_000) {
    const byPod = new Map<number, [string, string][]>();
    for (let i = from; i < Math.min(ROWS, from + 10_000); i++) {
      const pod = i % PODS;
      const ns = startNs + BigInt(i) * stepNs + 1n;
      const line = `level=info dur=${(i * 7919) % 5000}ms req=${i.toString(36)}${(i * 2654435761) % 1e9} path=/api/${i % 50}`;
      let values = byPod.get(pod);
      if (!values) byPod.set(pod, (values = []));
      values.push([String(ns), line]);
    }
    const streams = [...byPod].map(([pod, values]) => ({ stream: { env: "load", pod: `pod-${pod}` }, values }));
    yield JSON.stringify({ streams });
  }
}

beforeAll(async () => {
  origin = await startTestOrigin({ dataset: "none" });
  const { entries, streams } = await pushLokiBatches(origin.url, pushBodies());
  await waitForRows(origin.url, entries, {
    start: new Date((END_S - DAY_S) * 1000).toISOString(),
    end: new Date((END_S + 1) * 1000).toISOString(),
    streams,
  });
}, 90_000);

afterAll(async () => {
  await origin?.stop();
});

const SERIES_LIMIT = /^maximum number of series \(500\) reached for a single query/;
const POINTS_LIMIT =
  /^maximum number of points held in memory \(500000\) reached for a single query;.*MAX_METRIC_POINTS/;

it("answers every issue shape within 128 MB, each with 200 or the 400 of the limit it reaches", async () => {
  // The whole run is killed after 80 s: a request stuck in one synchronous loop fails it too.
  const { exit, results } = await runCappedNode(
    join(__dirname, "metric.capped.ts"),
    { ORIGIN_URL: origin.url, DATA_END_S: String(END_S) },
    { timeoutMs: 80_000 },
  );
  expect(exit).toBe(0);
  const byName = Object.fromEntries(results.map((r) => [r.name, r]));
  const expected: Record<string, [number, RegExp | number]> = {
    // Every line its own series: Loki's limit, found while reading, not after evaluating them all.
    "quantile_over_time [24h], every parsed label a series, step 60s": [400, SERIES_LIMIT],
    // One series of 200,000 samples over 10,800 steps: answered (a sliding window, no sort per step).
    "quantile_over_time [24h] by (env), step 8s": [200, 1],
    "count_over_time | logfmt [1h] over 3h": [400, SERIES_LIMIT],
    // max by cannot hold fewer series than the inner aggregation: the memory budget stops it.
    "max by (env) (count_over_time | logfmt [1h]) over 3h": [400, POINTS_LIMIT],
    // Folded into the sum: 300 groups held, never the 200,000 inner series.
    "sum by (pod) (count_over_time | logfmt [1h]), 300 series × 1,440 steps": [200, 300],
    // ~200,000 (bucket, pod) rows, held compactly: within the rows budget, and answered.
    "volume_range targetLabels=pod step 8s over 24h": [200, 300],
  };
  expect(Object.keys(byName).sort()).toEqual(Object.keys(expected).sort());
  for (const [name, [status, detail]] of Object.entries(expected)) {
    const r = byName[name];
    expect(r.status, `${name}: ${r.error}`).toBe(status);
    if (typeof detail === "number") expect(r.series, name).toBe(detail);
    else expect(r.error, name).toMatch(detail);
  }
}, 120_000);

/**
 * Bucketed stats answers under the 128 MB an isolate has (breakdown.capped.ts): a real
 * VictoriaLogs holds a day of lines from 700 pods, 500 of them with a line in 11 of every 24
 * minutes, so that Logs Drilldown's 24 h breakdown by pod at a one-minute step (kept to 500 series
 * past the series limit) reads 330,000 bucket rows of its 500 × 1,440, near the most the rows
 * budget admits (MAX_METRIC_POINTS / POINTS_PER_STATS_ROW), and a volume_range by pod at a
 * 2-minute step 208,800.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { join } from "node:path";
import { startTestOrigin, type TestOrigin } from "../../support/origin.mjs";
import { pushLokiBatches, waitForRows } from "../../../scripts/lib/victorialogs.mjs";
import { runCappedNode } from "../../../bench/lib/capped-node.mjs";

/** Pods 0–499 log in the first 11 minutes of every 24; pods 500–699 every tenth minute. */
const PODS = 700;
const FULL_PODS = 500;
/** 2026-01-01T00:00:00Z: the data's last second. */
const END_S = 1_767_225_600;
const DAY_S = 86_400;
const MINUTES = DAY_S / 60;
const KEPT_MINUTES = (MINUTES / 24) * 11;

let origin: TestOrigin;

const podName = (pod: number) => `pod-${String(pod).padStart(3, "0")}`;

/** Loki push bodies, an hour of every pod's lines each; the line at minute m of pod p is its own. */
function* pushBodies(): Generator<string> {
  const startNs = BigInt(END_S - DAY_S) * 1_000_000_000n;
  for (let hour = 0; hour < 24; hour++) {
    const streams = [];
    for (let pod = 0; pod < PODS; pod++) {
      const values: [string, string][] = [];
      for (let m = hour * 60; m < (hour + 1) * 60; m++) {
        if (pod >= FULL_PODS ? m % 10 !== 0 : m % 24 >= 11) continue;
        const ns = startNs + BigInt(m) * 60_000_000_000n + BigInt(pod) * 1_000_000n + 1n;
        values.push([String(ns), `level=info path=/api/${(pod * 31 + m) % 50} took=${(pod + m) % 900}ms`]);
      }
      streams.push({ stream: { namespace: "shop", pod: podName(pod) }, values });
    }
    yield JSON.stringify({ streams });
  }
}

beforeAll(async () => {
  origin = await startTestOrigin({ dataset: "none" });
  const { entries, streams } = await pushLokiBatches(origin.url, pushBodies());
  expect(entries).toBe(FULL_PODS * KEPT_MINUTES + (PODS - FULL_PODS) * (MINUTES / 10));
  await waitForRows(origin.url, entries, {
    start: new Date((END_S - DAY_S) * 1000).toISOString(),
    end: new Date((END_S + 1) * 1000).toISOString(),
    streams,
  });
}, 180_000);

afterAll(async () => {
  await origin?.stop();
});

it("answers the 24 h Drilldown breakdown of 500 pods × 1,440 steps, and volume_range's ~200,000 rows, within 128 MB", async () => {
  const { exit, results } = await runCappedNode(
    join(__dirname, "breakdown.capped.ts"),
    { ORIGIN_URL: origin.url, DATA_END_S: String(END_S) },
    { timeoutMs: 100_000 },
  );
  expect(exit).toBe(0);
  const byName = Object.fromEntries(results.map((r) => [r.name, r]));
  for (const name of [
    "Drilldown sum by (pod) (count_over_time [1m]) over 24h, 500 series × 1,440 steps",
    "the same, results cache on",
  ]) {
    const breakdown = byName[name];
    expect(breakdown.status, breakdown.error).toBe(200);
    expect(breakdown.series, name).toBe(500);
    // Each kept pod has a point at each step whose minute holds its line.
    expect(breakdown.points, name).toBe(FULL_PODS * KEPT_MINUTES);
  }
  const volume = byName["volume_range targetLabels=pod step 2m over 24h"];
  expect(volume.status, volume.error).toBe(200);
  // A row held as a StatsTable costs a small fraction of the parsed object it replaces.
  const objects = byName["held rows: parsed objects"];
  const table = byName["held rows: StatsTable"];
  expect(table.bytesPerRow).toBeLessThan(objects.bytesPerRow / 4);
}, 300_000);

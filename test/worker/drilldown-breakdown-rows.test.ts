/**
 * Logs Drilldown's 24 h label breakdown at a one-minute step over 700 pods: past the series limit
 * the Worker keeps 500 pods and reads their (minute, pod) bucket rows, 180,000 of them here, more
 * than a parsed row apiece would let the isolate hold; held compactly they fit the rows budget, and
 * the answer is 200 with Loki's partial warning and, for every series kept, exactly the lines
 * pushed in each minute.
 */
import { beforeAll, expect, it } from "vitest";
import { call } from "./support/request";
import { askMetric } from "./support/metric-answers";
import { pushStreams } from "../support/push-streams";

const TENANT = "33:1";
const APP = "bdrows";
const PODS = 700;
/** 2025-12-31T00:00:00Z to the next midnight. */
const START_S = 1_767_139_200;
const DAY_S = 86_400;
const MINUTES = DAY_S / 60;
const NS_PER_S = 1_000_000_000n;

const podName = (p: number) => `pod-${String(p).padStart(3, "0")}`;
/** Every pod logs in every fourth minute: once, or twice in one minute of five of those. */
const linesAt = (p: number, m: number): number => (m % 4 !== 0 ? 0 : (p * 7 + m) % 5 === 0 ? 2 : 1);

beforeAll(async () => {
  const total = Array.from({ length: PODS }, (_, p) =>
    Array.from({ length: MINUTES }, (_, m) => linesAt(p, m)).reduce((a, b) => a + b, 0),
  ).reduce((a, b) => a + b, 0);
  // Four pushes of 175 pods each: the last one waits until every line is counted.
  for (let from = 0; from < PODS; from += 175) {
    const streams = [];
    for (let p = from; p < from + 175; p++) {
      const values: [string, string][] = [];
      for (let m = 0; m < MINUTES; m++) {
        for (let k = 0; k < linesAt(p, m); k++) {
          // Inside the minute, away from its edges: each line lands in the minute's bucket and window.
          const ns = (BigInt(START_S + m * 60 + (p % 50) + 1) * NS_PER_S + BigInt(k)).toString();
          values.push([ns, `level=info pod=${p} minute=${m} k=${k}`]);
        }
      }
      streams.push({ stream: { app: APP, pod: podName(p) }, values });
    }
    const last = from + 175 >= PODS;
    await pushStreams(TENANT, streams, async () => {
      if (!last) return true;
      const probe = await askMetric(
        `sum(count_over_time({app="${APP}"}[24h]))`,
        { time: String(START_S + DAY_S) },
        false,
        { "X-Scope-OrgID": TENANT },
      );
      const seen = [...probe.series.values()][0]?.[0]?.[1];
      return seen === String(total) || `saw ${seen ?? "none"} of ${total} lines`;
    });
  }
}, 120_000);

it("answers a Drilldown breakdown of 700 pods × 1,440 one-minute steps with 500 series of exact counts", async () => {
  const res = await call(
    "/loki/api/v1/query_range",
    {
      query: `sum(count_over_time({app="${APP}", pod!=""} [1m])) by (pod)`,
      start: String(START_S + 60),
      end: String(START_S + DAY_S),
      step: "60",
    },
    { headers: { "X-Scope-OrgID": TENANT, "X-Query-Tags": "Source=grafana-lokiexplore-app" } },
  );
  expect(res.status, res.body.slice(0, 500)).toBe(200);
  const json = res.json as {
    warnings?: string[];
    data: { result: { metric: Record<string, string>; values: [number, string][] }[] };
  };
  expect(json.warnings).toEqual([
    "maximum number of series (500) reached for a single query; returning partial results",
  ]);
  expect(json.data.result).toHaveLength(500);
  const seen = new Set<string>();
  for (const s of json.data.result) {
    expect(Object.keys(s.metric)).toEqual(["pod"]);
    const p = Number(s.metric.pod!.slice("pod-".length));
    expect(s.metric.pod).toBe(podName(p));
    seen.add(s.metric.pod!);
    // The step ending one minute after minute m's start counts that minute's lines.
    const expected: [number, string][] = [];
    for (let m = 0; m < MINUTES; m++) {
      const n = linesAt(p, m);
      if (n > 0) expected.push([START_S + (m + 1) * 60, String(n)]);
    }
    expect(s.values, s.metric.pod).toEqual(expected);
  }
  expect(seen.size).toBe(500);
}, 120_000);

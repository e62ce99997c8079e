/**
 * Push-down must never change an answer: random metric queries that VictoriaLogs can compute are
 * answered twice against the real origin — pushed down, and evaluated by the Worker from rows
 * (PUSHDOWN=off) — and must agree point for point. The pushed answer must also really be pushed
 * (no rows scanned by the Worker), or the property would compare the local evaluator with itself.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { askMetric, expectSameAnswer, type MetricAnswer } from "./support/metric-answers";
import { pushStreams } from "../support/push-streams";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;

/** An answer that must be a success (every query here is valid). */
async function ask(
  query: string,
  params: Record<string, string>,
  pushdown: boolean,
  headers: Record<string, string> = {},
): Promise<MetricAnswer> {
  const answer = await askMetric(query, params, pushdown, headers);
  expect(answer.status, answer.body).toBe(200);
  return answer;
}

/** Counts and bytes are exact; rates are divisions of them, equal to 9 decimal places. */
const expectSameSeries = (pushed: MetricAnswer, local: MetricAnswer) => expectSameAnswer(pushed, local, "", 1e-9);

const selector = fc.constantFrom(
  '{app="nginx"}',
  '{namespace="prod"}',
  '{app=~"checkout|payments", cluster="eu-west-1"}',
  '{namespace="staging", app!="worker"}',
  '{app="auth"} |= "error"',
  '{namespace="prod"} |~ "timeout|refused" != "debug"',
);
const op = fc.constantFrom("count_over_time", "bytes_over_time", "rate", "bytes_rate");
const dropStage = fc.constantFrom("", " | drop __error__", " | drop pod, trace_id");
const grouping = fc.constantFrom("", "by (app)", "by (cluster, namespace)", "by (pod)", "by (tenant)", "by (nope)");
const seconds = fc.constantFrom(15, 60, 190, 300, 600, 1800, 3600);

describe("metric push-down equals local evaluation (property, real VictoriaLogs)", () => {
  it("range queries", async () => {
    await fc.assert(
      fc.asyncProperty(
        selector,
        dropStage,
        op,
        grouping,
        seconds,
        seconds,
        fc.integer({ min: 0, max: 4 * 3600 }),
        fc.constantFrom(0, 0, 600, 1800),
        async (sel, drop, fn, by, range, step, startOffset, offset) => {
          const start = DATA_START + startOffset;
          const end = Math.min(DATA_END, start + step * 60);
          const off = offset ? ` offset ${offset}s` : "";
          // `drop pod` only stays pushable when pod is not grouped by: compare either way.
          const query = `sum ${by} (${fn}(${sel}${drop} [${range}s]${off}))`;
          const params = { start: String(start), end: String(end), step: String(step) };
          const [pushed, local] = await Promise.all([ask(query, params, true), ask(query, params, false)]);
          if (!(drop.includes("pod") && by.includes("pod"))) {
            expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
          }
          // The local answer is computed from rows: any series it has came from rows the Worker read.
          if (local.series.size > 0)
            expect(local.linesScanned, `${query} was not evaluated locally`).toBeGreaterThan(0);
          expectSameSeries(pushed, local);
        },
      ),
      { numRuns: 40, seed: 20260201 },
    );
  });

  it("instant queries", async () => {
    await fc.assert(
      fc.asyncProperty(
        selector,
        op,
        grouping,
        seconds,
        fc.integer({ min: 600, max: 6 * 3600 }),
        async (sel, fn, by, range, at) => {
          const query = `sum ${by} (${fn}(${sel} [${range}s]))`;
          const params = { time: String(DATA_START + at) };
          const [pushed, local] = await Promise.all([ask(query, params, true), ask(query, params, false)]);
          expect(pushed.linesScanned).toBe(0);
          expectSameSeries(pushed, local);
        },
      ),
      { numRuns: 25, seed: 7 },
    );
  });

  it("pushes string filters on labels and structured metadata (Drilldown's field panels), same answer", async () => {
    for (const query of [
      'sum by (app) (count_over_time({namespace="prod"} | trace_id!="" [5m]))',
      'sum by (app) (count_over_time({namespace="prod"} | trace_id=~"0.*|a.*" [5m]))',
      'sum by (pod) (rate({namespace="prod"} | pod!~".*-0" or span_id=~"(?i)F0.*" [10m]))',
      'sum by (pod) (count_over_time({namespace="prod"} | app="checkout" or app="auth" [10m]))',
      'sum by (app) (bytes_rate({namespace="prod"} | pod!="x", cluster!="eu-west-1" | drop trace_id [5m]))',
      'sum by (app) (count_over_time({namespace="prod"} | trace_id="" [10m]))',
    ]) {
      const params = { start: String(DATA_START), end: String(DATA_START + 3 * 3600), step: "300" };
      const [pushed, local] = await Promise.all([ask(query, params, true), ask(query, params, false)]);
      expect(local.series.size, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
      expectSameSeries(pushed, local);
    }
  });

  it("declines what it cannot compute exactly, and the answer is unchanged", async () => {
    for (const query of [
      // A template with a function may fail (an error Loki's metric reports): it stays local.
      'sum by (method) (count_over_time({app="api-gateway"} | json | line_format "{{.method | urldecode}}" [10m]))',
      'sum without (pod) (count_over_time({app="nginx"} | decolorize [10m]))',
      'count_over_time({app="nginx", cluster="us-east-1"} | line_format "{{.pod}}" [10m])',
    ]) {
      const params = { start: String(DATA_START), end: String(DATA_START + 3600), step: "600" };
      const [pushed, local] = await Promise.all([ask(query, params, true), ask(query, params, false)]);
      expect(pushed.linesScanned, query).toBeGreaterThan(0);
      expectSameSeries(pushed, local);
    }
  });
});

/**
 * The compat data has no entry exactly on a window boundary, so the boundary rule is proven on
 * entries placed there on purpose (in a tenant of their own): Loki's window (t − range, t] takes an
 * entry at t and leaves one at t − range to the previous step.
 */
describe("window boundaries", () => {
  const TENANT = { "X-Scope-OrgID": "9:9" };
  const base = 1769904000n * 1_000_000_000n;
  const at = (s: number, ns = 0n) => String(base + BigInt(s) * 1_000_000_000n + ns);

  beforeAll(async () => {
    const values = [at(600), at(600, 1n), at(1200), at(1200, -1n), at(900), at(1800), at(0)].map((ts) => [
      ts,
      `edge ${ts}`,
    ]);
    // A new stream is found by stream filters only once VictoriaLogs flushes its stream index,
    // about 10 s after ingestion: wait for all 7 entries, and fail here rather than compare empties.
    await pushStreams("9:9", [{ stream: { app: "edge" }, values }], async () => {
      const probe = await ask(
        'sum(count_over_time({app="edge"}[1h]))',
        { time: String(1769904000 + 1800) },
        false,
        TENANT,
      );
      const seen = [...probe.series.values()][0]?.[0]?.[1];
      return seen === "7" || `saw ${seen ?? "none"} of 7`;
    });
  });

  it.each([
    ['sum(count_over_time({app="edge"}[10m]))', "600"],
    ['sum(count_over_time({app="edge"}[5m]))', "300"],
    ['sum(count_over_time({app="edge"}[10m]))', "300"],
    ['sum(count_over_time({app="edge"}[5m] offset 5m))', "300"],
  ])("%s at step %ss", async (query, step) => {
    const params = { start: String(1769904000), end: String(1769904000 + 2400), step };
    const [pushed, local] = await Promise.all([ask(query, params, true, TENANT), ask(query, params, false, TENANT)]);
    expect(pushed.linesScanned).toBe(0);
    expect(local.series.size).toBe(1);
    expectSameSeries(pushed, local);
  });

  it("counts an entry at t in the window ending at t (checked by hand)", async () => {
    const params = { start: String(1769904000), end: String(1769904000 + 2400), step: "600" };
    const pushed = await ask('sum(count_over_time({app="edge"}[10m]))', params, true, TENANT);
    // Windows (t−10m, t]: t=0 → {0}; 600 → {600}; 1200 → {600+1ns, 900, 1200−1ns, 1200}; 1800 → {1800}.
    expect([...pushed.series.values()][0]).toEqual([
      [1769904000, "1"],
      [1769904600, "1"],
      [1769905200, "4"],
      [1769905800, "1"],
    ]);
  });
});

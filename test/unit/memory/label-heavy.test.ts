/**
 * Label-heavy log queries under an isolate's 128 MB: the Worker's app in a Node whose heap is capped
 * like one (label-heavy.capped.ts), against a real VictoriaLogs with the compat dataset. A
 * `label_format` that gives every entry a 1 MB label is refused with Loki's 400 at any limit
 * instead of answering 100 MB or running the process out of memory; eight at once that each fit the
 * budget (as query_range or detected_fields) take turns; and twenty concurrent queries
 * that copy a parsed field into a label twice all answer within the heap: admission runs them a
 * few at a time, and one still waiting after 30 s gets Loki's 429 (a loaded machine), never more
 * memory.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startTestOrigin, type TestOrigin } from "../../support/origin.mjs";
import { runCappedNode } from "../../../bench/lib/capped-node.mjs";

const script = join(dirname(fileURLToPath(import.meta.url)), "label-heavy.capped.ts");

interface CaseResult {
  name: string;
  statuses: Record<string, number>;
  bodyBytes: number;
  head?: string;
  peakLiveGrowthMB: number;
}

let origin: TestOrigin;
let run: { exit: number | string | null; results: CaseResult[] };

/** A tenant of its own whose 200 lines are 100 KB each, an hour before the compat data's end. */
const BIG_LINES_TENANT = "7";
const END_S = 1769925600;

async function pushBigLines(url: string): Promise<void> {
  const values = Array.from({ length: 200 }, (_, i) => [
    String(BigInt(END_S - 3600 + i) * 1_000_000_000n),
    `line ${i} ${"y".repeat(100_000)}`,
  ]);
  const headers = { "Content-Type": "application/json", AccountID: BIG_LINES_TENANT, ProjectID: "0" };
  const res = await fetch(`${url}/insert/loki/api/v1/push?disable_message_parsing=1`, {
    method: "POST",
    headers,
    body: JSON.stringify({ streams: [{ stream: { app: "big" }, values }] }),
  });
  expect(res.status).toBe(204);
  // A new stream answers stream filters once VictoriaLogs has flushed its stream index.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const q = new URLSearchParams({
      query: '{app="big"} | count() n',
      start: String(END_S - 7200),
      end: String(END_S),
    });
    const count = await fetch(`${url}/select/logsql/query?${q}`, { headers });
    if ((await count.text()).includes('"n":"200"')) return;
    if (Date.now() > deadline) throw new Error("the 100 KB lines are not searchable after 60 s");
    await new Promise((r) => setTimeout(r, 500));
  }
}

beforeAll(async () => {
  origin = await startTestOrigin({ dataset: "compat" });
  await pushBigLines(origin.url);
  run = (await runCappedNode(script, {
    ORIGIN_URL: origin.url,
    LABEL_HEAVY_CONCURRENCY: "20",
    BIG_LINES_TENANT,
  })) as typeof run;
}, 180_000);

afterAll(async () => {
  await origin?.stop();
});

const byName = (name: string) => run.results.find((r) => r.name === name);

describe("label-heavy log queries in 128 MB", () => {
  it("the process lives through every case", () => {
    expect(run.results.map((r) => r.name)).toEqual([
      "big label, limit 100",
      "big label, limit 2000",
      "metric, big label per sample",
      "big label under the budget x8",
      "detected_fields, big label x8",
      "big lines x10",
      "label-heavy x20",
    ]);
    expect(run.exit).toBe(0);
  });

  it.each([100, 2000])("a 1 MB label on every entry at limit %i is Loki's 400 naming the limit", (limit) => {
    const r = byName(`big label, limit ${limit}`);
    expect(r, "the process died before this case answered").toBeDefined();
    expect(r!.statuses, r!.head).toEqual({ 400: 1 });
    expect(r!.head).toBe(
      `the query would return more than 16Mi characters of log lines and labels (limit ${limit} entries); reduce the limit or the size of the lines and labels`,
    );
    expect(r!.bodyBytes).toBeLessThan(1024);
  });

  it("a metric query giving every sample a 1 MB label is Loki's 400 naming the limit", () => {
    const r = byName("metric, big label per sample");
    expect(r, "the process died before this case answered").toBeDefined();
    expect(r!.statuses, r!.head).toEqual({ 400: 1 });
    expect(r!.head).toBe(
      "the query's series would hold more than 16Mi characters of labels; reduce the size of the labels or the number of series",
    );
  });

  it.each(["big label under the budget x8", "detected_fields, big label x8"])(
    "%s: each fits the budget, and they take turns for the isolate's memory",
    (name) => {
      const r = byName(name);
      expect(r, "the process died before this case answered").toBeDefined();
      expect(r!.statuses, r!.head).toEqual({ 200: 8 });
      expect(r!.peakLiveGrowthMB).toBeLessThan(64);
    },
  );

  it("ten concurrent queries of 160 lines of 100 KB (each within the budget) answer or get Loki's 429, within the heap", () => {
    const r = byName("big lines x10");
    expect(r, "the process died before this case answered").toBeDefined();
    const { 200: ok = 0, 429: refused = 0, ...other } = r!.statuses;
    expect(other).toEqual({});
    expect(ok + refused).toBe(10);
    expect(ok).toBeGreaterThan(0);
    expect(r!.bodyBytes).toBeGreaterThan(ok * 160 * 100_000);
    expect(r!.peakLiveGrowthMB).toBeLessThan(64);
  });

  it("twenty concurrent 5,000-entry queries copying a parsed field into a label twice answer within the heap", () => {
    const r = byName("label-heavy x20");
    expect(r, "the process died before this case answered").toBeDefined();
    const { 200: ok = 0, 429: waitedTooLong = 0, ...other } = r!.statuses;
    expect(other).toEqual({});
    expect(ok + waitedTooLong).toBe(20);
    // How many wait past 30 s depends on the machine's speed; what is answered is what counts.
    expect(ok).toBeGreaterThan(0);
    // Each answer holds 5,000 entries of a few hundred bytes of labels.
    expect(r!.bodyBytes).toBeGreaterThan(ok * 1024 * 1024);
    expect(r!.peakLiveGrowthMB).toBeLessThan(64);
  });
});

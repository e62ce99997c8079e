/**
 * `| logfmt name="key"` in metric queries, answered as Loki answers: its parser hints name the
 * labels a query needs, and the expression parser reads a key that is not one of its labels only
 * where the hints name it. Expected values are worked out by hand from Loki's rule
 * (engine/pipeline/parser-hints.ts), line by line, and hold with the push-down on and off.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { askMetric, pushCounted } from "./support/metric-answers";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const TENANT = { "X-Scope-OrgID": "26:81" };
const base = BigInt(DATA_START) * 1_000_000_000n;

/** One line every 10 s from DATA_START; an instant query at +60 s over [5m] reads them all. */
const LINES = [
  "level=info msg=a", // no key `lvl`
  "level=warn lvl=own msg=b", // the label's own name after the renamed key
  "lvl=first level=error", // the label's own name before it
  "msg=none",
  "level=debug level=info", // the key twice
];
const AT = { time: String(DATA_START + 60) };
const STREAM = { app: "lfp", set: "hints" };

/** The answer as `name=value,…` (sorted) → value; an empty object for no series. */
async function answer(query: string, pushdown: boolean): Promise<Record<string, string>> {
  const res = await askMetric(query, AT, pushdown, TENANT);
  expect(res.status, `${query}: ${res.body}`).toBe(200);
  const out: Record<string, string> = {};
  for (const [key, points] of res.series) {
    const labels = (JSON.parse(key) as [string, string][]).map(([k, v]) => `${k}=${v}`).join(",");
    out[labels] = points[0]![1];
  }
  return out;
}

async function expectAnswer(query: string, expected: Record<string, string>): Promise<void> {
  for (const pushdown of [false, true])
    expect(await answer(query, pushdown), `${query} (${pushdown})`).toEqual(expected);
}

describe('| logfmt name="key" under Loki\'s parser hints', () => {
  beforeAll(async () => {
    const values = LINES.map((line, i) => [String(base + BigInt(i * 10) * 1_000_000_000n), line]);
    const streams = [{ stream: STREAM, values }];
    await pushCounted("26:81", "lfp", streams, DATA_START);
  });

  it("a sum by the renamed label reads only the label's own key (the hints name lvl, not level)", async () => {
    // Hints {lvl}: `level` is never read. Lines 2 and 3 set lvl from their own `lvl=` key, and stop
    // there (every hinted label extracted); lines 1, 4 and 5 keep the lvl="" the parser sets first.
    await expectAnswer('sum by (lvl) (count_over_time({app="lfp"} | logfmt lvl="level" [5m]))', {
      "lvl=": "3",
      "lvl=own": "1",
      "lvl=first": "1",
    });
  });

  it("a filter on the renamed label under sum() keeps no line that has only the renamed key", async () => {
    // Hints {lvl} (the filter's label): no line reads lvl=info.
    await expectAnswer('sum(count_over_time({app="lfp"} | logfmt lvl="level" | lvl="info" [5m]))', {});
    await expectAnswer('sum(count_over_time({app="lfp"} | logfmt lvl="level" | lvl="own" [5m]))', { "": "1" });
  });

  it("a label named as its key stops at the first occurrence under hints, takes the last without", async () => {
    await expectAnswer('sum by (level) (count_over_time({app="lfp"} | logfmt level="level" [5m]))', {
      "level=": "1",
      "level=info": "1",
      "level=warn": "1",
      "level=error": "1",
      "level=debug": "1",
    });
    // `max by` is not injected into the extraction: no hints, every pair read, the last one wins.
    await expectAnswer('max by (level) (count_over_time({app="lfp"} | logfmt level="level" [5m]))', {
      "level=": "1",
      "level=info": "2",
      "level=warn": "1",
      "level=error": "1",
    });
  });

  it("without a grouping to hint, the renamed key is read and the last pair wins", async () => {
    // No hints: line 1 lvl=info; line 2 level=warn then lvl=own; line 3 lvl=first then level=error;
    // line 5 level=debug then level=info.
    await expectAnswer('max by (lvl) (count_over_time({app="lfp"} | logfmt lvl="level" [5m]))', {
      "lvl=": "1",
      "lvl=info": "2",
      "lvl=own": "1",
      "lvl=error": "1",
    });
    await expectAnswer('sum without (app, set) (count_over_time({app="lfp"} | logfmt lvl="level" [5m]))', {
      "lvl=": "1",
      "lvl=info": "2",
      "lvl=own": "1",
      "lvl=error": "1",
    });
  });
});

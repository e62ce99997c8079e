/**
 * Label-filter prefilters may only remove rows the Worker's own filter drops: on entries built to
 * reach each clause of the condition (a value in the line, one behind an escape, one that is only a
 * stream label or structured metadata), answers with prefilters equal answers without, and both
 * equal the entries counted by hand.
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { queryRange } from "./support/request";

const TENANT = { "X-Scope-OrgID": "8:8" };
const T0 = 1769904000n * 1_000_000_000n;
const at = (s: number) => String(T0 + BigInt(s) * 1_000_000_000n);
const RANGE = { start: "1769904000", end: String(1769904000 + 3600), limit: "100" };

interface Answer {
  lines: string[];
  scanned: number;
}

async function ask(query: string, prefilter: boolean): Promise<Answer> {
  const res = await queryRange(
    { query, ...RANGE },
    { headers: TENANT, env: { PUSHDOWN: prefilter ? "on" : "off", CACHE: "off" } },
  );
  expect(res.status, res.body).toBe(200);
  const json = res.json;
  const lines: string[] = [];
  for (const s of json.data.result) for (const [, line] of s.values) lines.push(line);
  return { lines: lines.sort(), scanned: json.data.stats.summary.totalLinesProcessed };
}

describe("label-filter prefilters never change an answer", () => {
  beforeAll(async () => {
    const streams = [
      {
        stream: { app: "pf", level: "info" },
        values: [
          [at(1), "level=error msg=plain"],
          [at(2), '{"level":"err\\u006fr"}'],
          [at(3), 'msg=x lvl="e\\"rror"'],
          [at(4), "no value here", { user: "alice" }],
          [at(5), '{"code":500,"a":{"b":"deep"}}'],
          [at(6), "level=warn msg=other"],
          // The json stage drops U+FFFD from values: this line's sev is "fatal".
          [at(8), '{"sev":"fa\ufffdtal"}'],
        ],
      },
      { stream: { app: "pf", level: "error" }, values: [[at(7), "hello"]] },
    ];
    const res = await fetch(`${inject("originUrl")}/insert/loki/api/v1/push?disable_message_parsing=1`, {
      method: "POST",
      headers: { "Content-Type": "application/json", AccountID: "8", ProjectID: "8" },
      body: JSON.stringify({ streams }),
    });
    expect(res.status).toBe(204);
    // New streams are found by stream filters about 10 s after ingestion.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { lines } = await ask('{app="pf"}', false);
      if (lines.length === 8) break;
      if (Date.now() > deadline)
        throw new Error(`prefilter entries not searchable after 60 s (saw ${lines.length} of 8)`);
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  it.each([
    // [query, lines Loki returns, worked out by hand]
    ['{app="pf"} | logfmt | level_extracted="error"', ["level=error msg=plain"]],
    ['{app="pf"} | logfmt | level="error"', ["hello"]], // the stream label wins over the line's
    ['{app="pf"} | json | level_extracted="error"', ['{"level":"err\\u006fr"}']], // only behind an escape
    ['{app="pf"} | logfmt | lvl="e\\"rror"', ['msg=x lvl="e\\"rror"']],
    ['{app="pf"} | user="alice"', ["no value here"]], // structured metadata only
    ['{app="pf"} | json | code="500", a_b="deep"', ['{"code":500,"a":{"b":"deep"}}']],
    ['{app="pf"} | json | sev="fatal"', ['{"sev":"fa\ufffdtal"}']], // a value the line does not spell
    ['{app="pf"} | json | __error__="" | sev="fatal"', ['{"sev":"fa\ufffdtal"}']],
    [
      '{app="pf"} | logfmt | level_extracted="error" or level_extracted="warn"',
      ["level=error msg=plain", "level=warn msg=other"],
    ],
  ])("%s", async (query, expected) => {
    const [withPrefilter, without] = await Promise.all([ask(query, true), ask(query, false)]);
    expect(withPrefilter.lines).toEqual([...expected].sort());
    expect(without.lines).toEqual([...expected].sort());
  });

  it("and they do narrow what the origin returns", async () => {
    const query = '{app="pf"} | logfmt | level_extracted="warn"';
    const [withPrefilter, without] = await Promise.all([ask(query, true), ask(query, false)]);
    expect(without.scanned).toBe(8);
    // The warn line, the two lines with a backslash and the one with U+FFFD (kept for the Worker).
    expect(withPrefilter.scanned).toBe(4);
  });
});

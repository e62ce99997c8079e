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
      { stream: { app: "pf", level: "debug" }, values: [[at(9), "multi", { note: "a\nb" }]] },
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
      if (lines.length === 9) break;
      if (Date.now() > deadline)
        throw new Error(`prefilter entries not searchable after 60 s (saw ${lines.length} of 9)`);
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
    // Before any parser a label is a stream label or structured metadata: sent to the origin exactly.
    ['{app="pf"} | user=~"al.*"', ["no value here"]],
    ['{app="pf"} | user!~"al.*" | level="error"', ["hello"]],
    ['{app="pf"} | level=~"err.*|debug" | user=""', ["hello", "multi"]],
    ['{app="pf"} | user="alice" or level!="info"', ["hello", "multi", "no value here"]],
    ['{app="pf"} |= "e" | level!="info" and note!="a"', ["hello"]],
    // Go's `.` does not match a newline unless (?s) says so, on both sides.
    ['{app="pf"} | note=~"a.*"', []],
    ['{app="pf"} | note=~"(?s)a.*"', ["multi"]],
    ['{app="pf"} | note=~"a\\nb"', ["multi"]],
    // After a `drop` the label is gone: the filter reads "" there, not the origin's field.
    [
      '{app="pf"} | drop user | user!="alice" | level="info"',
      [
        "level=error msg=plain",
        '{"level":"err\\u006fr"}',
        'msg=x lvl="e\\"rror"',
        "no value here",
        '{"code":500,"a":{"b":"deep"}}',
        "level=warn msg=other",
        '{"sev":"fa\ufffdtal"}',
      ],
    ],
  ])("%s", async (query, expected) => {
    const [withPrefilter, without] = await Promise.all([ask(query, true), ask(query, false)]);
    expect(withPrefilter.lines).toEqual([...expected].sort());
    expect(without.lines).toEqual([...expected].sort());
  });

  it("and they do narrow what the origin returns", async () => {
    const query = '{app="pf"} | logfmt | level_extracted="warn"';
    const [withPrefilter, without] = await Promise.all([ask(query, true), ask(query, false)]);
    expect(without.scanned).toBe(9);
    // The warn line, the two lines with a backslash and the one with U+FFFD (kept for the Worker).
    expect(withPrefilter.scanned).toBe(4);
  });

  it("and a filter on a stream label or structured metadata before any parser reads only its rows", async () => {
    for (const [query, rows] of [
      ['{app="pf"} | user=~"al.*"', 1],
      ['{app="pf"} | level!="info"', 2],
    ] as const) {
      const [withPrefilter, without] = await Promise.all([ask(query, true), ask(query, false)]);
      expect(without.scanned, query).toBe(9);
      expect(withPrefilter.scanned, query).toBe(rows);
    }
  });
});

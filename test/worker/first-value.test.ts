/**
 * Within one line the first parsed value of a label wins, across parsers and within one: Loki
 * records every label a parser sets and every later parser (and a key the line repeats) skips it,
 * even when the first value was "". Expected values are worked out by hand from that rule, line by
 * line, and hold with the push-down on and off, in metric and log queries.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { expectLabelledValues, pushCounted } from "./support/metric-answers";
import { queryRange } from "./support/request";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const TENANT = { "X-Scope-OrgID": "26:90" };
const base = BigInt(DATA_START) * 1_000_000_000n;
const AT = { time: String(DATA_START + 120) };

/** Streams of app="fv", one per case; one line every 10 s from DATA_START. */
const SETS: Record<string, string[]> = {
  // Duplicate JSON keys; a nested key flattened to a later top-level key's name.
  dup: ['{"g":"a","g":"b"}', '{"g":"c","n":{"g":"x"},"g":"d"}', '{"n":{"g":"e"},"n_g":"f"}'],
  // json then logfmt on lines both read: JSON's g (even "") stays; logfmt's g only where JSON set none.
  jl: ['{"g":"j"} g=l', '{"g":""} g=l', '{"h":"k"} g=l'],
  // logfmt then a regexp capturing the same label.
  lr: ["level=info g=p msg=x", "level=info msg=y"],
};

/** The answer with push-down off and on, each equal to `expected` (worked out by hand). */
const expectAnswer = (query: string, expected: Record<string, string>) =>
  expectLabelledValues(query, AT, TENANT, expected);

/** Each returned line → the value of `label` on its entry ("" when absent). */
async function expectLogLabel(query: string, label: string, expected: Record<string, string>): Promise<void> {
  for (const pushdown of [false, true]) {
    const res = await queryRange(
      { query, start: String(DATA_START - 60), end: String(DATA_START + 600), limit: "100" },
      { headers: TENANT, env: { PUSHDOWN: pushdown ? "on" : "off", CACHE: "off" } },
    );
    expect(res.status, `${query}: ${res.body}`).toBe(200);
    const got: Record<string, string> = {};
    for (const s of res.json.data.result as { stream: Record<string, string>; values: [string, string][] }[]) {
      for (const [, line] of s.values) got[line] = s.stream[label] ?? "";
    }
    expect(got, `${query} (pushdown ${pushdown})`).toEqual(expected);
  }
}

describe("the first parsed value of a label within a line wins", () => {
  beforeAll(async () => {
    let i = 0;
    const streams = Object.entries(SETS).map(([set, lines]) => ({
      stream: { app: "fv", set },
      values: lines.map((line) => [String(base + BigInt(i++ * 10) * 1_000_000_000n), line]),
    }));
    await pushCounted("26:90", "fv", streams, DATA_START);
  });

  it("| json keeps the first of duplicate keys", async () => {
    await expectAnswer('sum by (g) (count_over_time({app="fv", set="dup"} | json [5m]))', {
      "g=a": "1",
      "g=c": "1",
      "": "1",
    });
    await expectAnswer('sum by (n_g) (count_over_time({app="fv", set="dup"} | json [5m]))', {
      "n_g=e": "1",
      "n_g=x": "1",
      "": "1",
    });
    await expectAnswer('sum(count_over_time({app="fv", set="dup"} | json | g="b" [5m]))', {});
    await expectLogLabel('{app="fv", set="dup"} | json', "g", {
      '{"g":"a","g":"b"}': "a",
      '{"g":"c","n":{"g":"x"},"g":"d"}': "c",
      '{"n":{"g":"e"},"n_g":"f"}': "",
    });
  });

  it("| json | logfmt keeps JSON's value, an empty one too", async () => {
    await expectAnswer('sum by (g) (count_over_time({app="fv", set="jl"} | json | logfmt [5m]))', {
      "g=j": "1",
      "g=l": "1",
      "g=": "1",
    });
    await expectAnswer('sum(count_over_time({app="fv", set="jl"} | json | logfmt | g="l" [5m]))', { "": "1" });
    await expectAnswer('sum(count_over_time({app="fv", set="jl"} | json | logfmt | g="" [5m]))', { "": "1" });
    await expectLogLabel('{app="fv", set="jl"} | json | logfmt', "g", {
      '{"g":"j"} g=l': "j",
      '{"g":""} g=l': "",
      '{"h":"k"} g=l': "l",
    });
    await expectLogLabel('{app="fv", set="jl"} | json | logfmt | g!="l"', "g", {
      '{"g":"j"} g=l': "j",
      '{"g":""} g=l': "",
    });
  });

  it("| logfmt | regexp keeps logfmt's value", async () => {
    await expectAnswer(
      'sum by (g) (count_over_time({app="fv", set="lr"} | logfmt | regexp "msg=(?P<g>\\\\w+)" [5m]))',
      { "g=p": "1", "g=y": "1" },
    );
    await expectLogLabel('{app="fv", set="lr"} | logfmt | regexp "msg=(?P<g>\\\\w+)"', "g", {
      "level=info g=p msg=x": "p",
      "level=info msg=y": "y",
    });
  });
});

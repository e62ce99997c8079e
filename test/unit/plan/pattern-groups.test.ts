import { describe, expect, it } from "vitest";
import { MAX_GROUPS, chunkLinesQuery, patternGroupsQuery } from "../../../src/plan/pattern-groups";

const run = {
  filter: '{app="worker"}',
  stepMs: 60_000,
  chunkSteps: 30,
  chunks: 4,
  startNs: 1_769_904_000_000_000_000n,
  levelFields: ["detected_level", "log.level"],
  sample: 1,
};

describe("pattern groups in LogsQL", () => {
  it("groups by the line with numbers made 0 and the level fields, with each line's step bucket, in one pass", () => {
    const q = patternGroupsQuery(run);
    expect(q.startsWith('{app="worker"} | copy _msg as __pt | ')).toBe(true);
    expect(q).toContain("| collapse_nums at __pt | ");
    expect(q).toContain('| replace ("9", "0") at __pt | ');
    // The level fields are grouping fields of their own.
    expect(q).not.toContain("as __pl ");
    // A line's bucket: its index from the run's start, or its own time within 1 ms of an edge.
    expect(q).toContain(
      "| math (_time - 1769904000000000000) % 60000000000 as __ph, " +
        "floor((_time - 1769904000000000000) / 60000000000) as __pi | " +
        'format if (__ph:<1000000 or __ph:>59999000000) "<_time>" as __pi | ',
    );
    expect(q).toContain(
      "| stats by (__pt, detected_level, log.level) count() __pn, values(__pi) __pi, min(_msg) __plo, max(_msg) __phi, min(_time) __pf | ",
    );
    expect(q).not.toContain("_time:60000ms");
    expect(q).toContain(`| sort by (__pn desc) limit ${MAX_GROUPS * 4} | `);
    expect(q.endsWith("| delete __pt")).toBe(true);
    expect(q).not.toContain("sample");
  });

  it("groups by a single level field as it is", () => {
    const q = patternGroupsQuery({ ...run, levelFields: ["detected_level"] });
    expect(q).toContain("stats by (__pt, detected_level) count() __pn, ");
  });

  it("sends every line's time when the step is within two edges' width", () => {
    const q = patternGroupsQuery({ ...run, stepMs: 1 });
    expect(q).toContain('format if (__ph:<500000 or __ph:>500000) "<_time>" as __pi | ');
  });

  it("groups only the first lines the origin reads when given a line limit", () => {
    expect(
      patternGroupsQuery({ ...run, lineLimit: 26_001 }).startsWith('{app="worker"} | limit 26001 | copy _msg'),
    ).toBe(true);
  });

  it("samples one line in N before grouping when asked", () => {
    expect(patternGroupsQuery({ ...run, sample: 7 }).startsWith('{app="worker"} | sample 7 | copy _msg')).toBe(true);
  });

  it("counts lines per chunk on the epoch-aligned chunk grid", () => {
    expect(chunkLinesQuery('{app="worker"}', 1_800_000)).toBe(
      '{app="worker"} | stats by (_time:1800000ms) count() __pn',
    );
  });
});

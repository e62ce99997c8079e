import { describe, expect, it } from "vitest";
import { MAX_GROUPS, chunkLinesQuery, patternGroupsQuery } from "../../../src/plan/pattern-groups";

const run = {
  filter: '{app="worker"}',
  stepMs: 60_000,
  chunkSteps: 30,
  startNs: 1_769_904_000_000_000_000n,
  levelFields: ["detected_level", "log.level"],
  sample: 1,
};

describe("pattern groups in LogsQL", () => {
  it("groups by the line with numbers made 0 and the level fields, per step bucket, then per chunk", () => {
    const q = patternGroupsQuery(run);
    expect(q.startsWith('{app="worker"} | copy _msg as __pt | ')).toBe(true);
    expect(q).toContain("| collapse_nums at __pt | ");
    expect(q).toContain('| replace ("9", "0") at __pt | ');
    // Several level fields go in one grouping field, a list of JSON strings.
    expect(q).toContain('| format "<q:detected_level>,<q:log.level>" as __pl | ');
    expect(q).toContain("stats by (_time:60000ms, __pt, __pl) count() __pc, ");
    expect(q).toContain(
      "math round((_time - 1769904000000000000) / 60000000000) as __pi | math floor(__pi / 30) as __pk",
    );
    expect(q).toContain(`sort by (__pn desc) partition by (__pk) limit ${MAX_GROUPS}`);
    expect(q.endsWith("| delete __pt")).toBe(true);
    expect(q).not.toContain("sample");
  });

  it("groups by a single level field as it is", () => {
    const q = patternGroupsQuery({ ...run, levelFields: ["detected_level"] });
    expect(q).toContain("stats by (_time:60000ms, __pt, detected_level) count() __pc, ");
    expect(q).not.toContain("as __pl ");
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

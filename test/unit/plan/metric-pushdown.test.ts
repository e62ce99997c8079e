import { describe, expect, it } from "vitest";
import { planMetricPushdown } from "../../../src/plan/metric-pushdown";
import { parseExpr } from "../../../src/logql/parser";
import type { SampleExpr } from "../../../src/logql/ast";

const S = 1_000_000_000n;
const grid = { start: 1769904000n * S, end: 1769925600n * S, step: 600n * S, instant: false };
const plan = (q: string, g = grid) => planMetricPushdown(parseExpr(q) as SampleExpr, g);

describe("metric push-down planning", () => {
  it("sums counts per group in buckets shifted by 1ns so that they end at the evaluation times", () => {
    const p = plan('sum by (app) (count_over_time({namespace="prod"} |= "error" [10m]))')!;
    expect(p.logsql).toBe(
      '{namespace="prod"} _msg:~"error" | stats by (_time:600000000000ns offset 1ns, app) count() as __v',
    );
    expect(p.window).toEqual({ start: grid.start - 600n * S + 1n, end: grid.end + 1n });
    expect(p).toMatchObject({ width: 600n * S, bucketsPerWindow: 1, groupBy: ["app"], value: "count", perSeconds: 0 });
  });

  it("uses the gcd of range and step as the bucket, and divides rates by the range", () => {
    const p = plan('sum(bytes_rate({app="x"}[3m]))', { ...grid, step: 190n * S })!;
    expect(p.width).toBe(10n * S);
    expect(p.bucketsPerWindow).toBe(18);
    expect(p.perSeconds).toBe(180);
    expect(p.logsql).toBe(
      '{app="x"} | math ((_time - 40000000000) % 190000000000) as __window_phase' +
        " | filter __window_phase:>9999000000 or __window_phase:<1000000 | delete __window_phase" +
        " | stats by (_time:10000000000ns offset 1ns) sum_len(_msg) as __v",
    );
  });

  it("moves buckets with offset and with an unaligned start", () => {
    const p = plan('sum(count_over_time({app="x"}[10m] offset 1h))', { ...grid, start: grid.start + 7n * S })!;
    // Buckets must end at t − 1h for every t ≡ start (mod 10m): starts ≡ start − 1h + 1ns.
    expect(p.logsql).toContain("_time:600000000000ns offset 7000000001ns");
    expect(p.window.start).toBe(grid.start + 7n * S - 3600n * S - 600n * S + 1n);
  });

  it("takes the whole range as one bucket for instant queries", () => {
    const at = 1769925600n * S;
    const p = plan('sum(count_over_time({app="x"}[1h]))', { start: at, end: at, step: 0n, instant: true })!;
    expect(p.width).toBe(3600n * S);
    expect(p.window).toEqual({ start: at - 3600n * S + 1n, end: at + 1n });
  });

  it("pushes Grafana's log-volume query: dropping labels nobody groups by changes no sum", () => {
    const p = plan('sum by (level, detected_level) (count_over_time({app="x"} |= "e" | drop __error__ [1m]))')!;
    expect(p.logsql).toBe(
      '{app="x"} _msg:~"e" | math ((_time - 0) % 600000000000) as __window_phase' +
        " | filter __window_phase:>539999000000 or __window_phase:<1000000 | delete __window_phase" +
        " | stats by (_time:60000000000ns offset 1ns, level, detected_level) count() as __v",
    );
    expect(plan('sum by (pod) (count_over_time({app="x"} | drop pod [1m]))')).toBeUndefined();
    expect(plan('sum(count_over_time({app="x"} | drop pod="a" [1m]))')).toBeUndefined();
  });

  it('pushes `=` / `!=` label filters on labels and metadata (Drilldown\'s `| field!=""`) as field filters', () => {
    const p = plan('sum by (trace_id) (count_over_time({app="x"} | trace_id!="" [1m]))')!;
    // The grid's 10 min step leaves gaps between the 1 m windows: the filters come before the pipes dropping them.
    const gaps =
      " | math ((_time - 0) % 600000000000) as __window_phase" +
      " | filter __window_phase:>539999000000 or __window_phase:<1000000 | delete __window_phase";
    expect(p.rows).toBe(`{app="x"} -trace_id:=""${gaps}`);
    expect(p.logsql).toBe(`${p.rows} | stats by (_time:60000000000ns offset 1ns, trace_id) count() as __v`);
    const q = plan(
      'sum by (pod) (count_over_time({app="x"} | level="error" or (pod!="a" and user="b"), env="p" [1m]))',
    )!;
    expect(q.rows.endsWith(` (level:="error" or ((-pod:="a" user:="b") env:="p"))${gaps}`)).toBe(true);
    expect(q.groups).toEqual({ rows: q.rows, fields: ["pod"] });
    // Regexes too: Go's, anchored at both ends, on both sides.
    const r = plan('sum by (pod) (count_over_time({app="x"} | level=~"e.*" or pod!~"a|b" [1m]))')!;
    expect(r.rows).toBe(`{app="x"} (level:~"^(?:e.*)$" or -pod:~"^(?:a|b)$")${gaps}`);
  });

  it.each([
    ['sum by (pod) (count_over_time({app="x"} | status > 400 [1m]))', "a numeric filter"],
    ['sum by (pod) (count_over_time({app="x"} | __error__="" [1m]))', "an internal label"],
    ['sum by (pod) (count_over_time({app="x"} | drop level | level="" [1m]))', "a dropped label"],
    ['sum by (pod) (count_over_time({app="x"} | level="" | drop level [1m]))', "a label dropped after"],
  ])("keeps label filters local for %s (%s)", (q) => {
    expect(plan(q)).toBeUndefined();
  });

  it.each([
    ['sum by (method) (count_over_time({app="x"} | json [10m]))', "a parser runs in the Worker"],
    ['sum without (pod) (count_over_time({app="x"}[10m]))', "without needs every label"],
    ['count_over_time({app="x"}[10m])', "series per full label set"],
    ['avg by (app) (count_over_time({app="x"}[10m]))', "not a sum"],
    ['sum(sum_over_time({app="x"} | logfmt | unwrap n [10m]))', "unwrap"],
    ['sum(count_over_time({app="x"} |= ip("10.0.0.0/8") [10m]))', "an ip() filter runs in the Worker"],
  ])("declines %s (%s)", (q) => {
    expect(plan(q)).toBeUndefined();
  });

  it("reads a pattern filter with `extract`, label filters joining its `filter` pipe", () => {
    const p = plan('sum by (pod) (count_over_time({app="x"} |> "<_> x" | pod="a" [10m]))')!;
    expect(p.logsql).toBe(
      '{app="x"}' +
        ' | extract "<plain:__lpf0_0_0> x<plain:__lpf0_0_rest>"' +
        ' | filter (__lpf0_0_0:* __lpf0_0_rest:"") pod:="a"' +
        " | stats by (_time:600000000000ns offset 1ns, pod) count() as __v",
    );
  });

  it("drops the rows between windows when the step is longer than the range, and only then", () => {
    const late = { ...grid, start: grid.start + 7n * S };
    const p = plan('sum(count_over_time({app="x"}[2m] offset 1h))', late)!;
    // Windows end at t − 1h ≡ start + 7s (mod 10m); the phase past such an end must be 0 or > 8m.
    expect(p.logsql).toBe(
      '{app="x"} | math ((_time - 7000000000) % 600000000000) as __window_phase' +
        " | filter __window_phase:>479999000000 or __window_phase:<1000000 | delete __window_phase" +
        " | stats by (_time:120000000000ns offset 7000000001ns) count() as __v",
    );
    expect(plan('sum(count_over_time({app="x"}[10m]))')!.logsql).not.toContain("__window_phase");
    expect(plan('sum(count_over_time({app="x"}[1h]))')!.logsql).not.toContain("__window_phase");
    const at = 1769925600n * S;
    const instant = plan('sum(count_over_time({app="x"}[1m]))', { start: at, end: at, step: 0n, instant: true })!;
    expect(instant.logsql).not.toContain("__window_phase");
  });

  it("keeps every row a window holds, as VictoriaLogs' float64 math computes the phase", () => {
    const cases: [string, typeof grid][] = [
      ['sum(count_over_time({app="x"}[5m]))', grid],
      ['sum(count_over_time({app="x"}[5m]))', { ...grid, start: grid.start + 1n }],
      ['sum(count_over_time({app="x"}[1m] offset 37s))', { ...grid, start: grid.start + 123_456_789n }],
      ['sum(rate({app="x"}[90s]))', { ...grid, step: 3600n * S }],
    ];
    for (const [q, g] of cases) {
      const p = plan(q, g)!;
      const m =
        /math \(\(_time - (\d+)\) % (\d+)\) as __window_phase \| filter __window_phase:>(\d+) or __window_phase:<(\d+)/.exec(
          p.logsql,
        )!;
      const [anchor, step, above, below] = m.slice(1).map(Number) as [number, number, number, number];
      // What VictoriaLogs computes: `_time` in nanoseconds as a float64, then float64 arithmetic.
      const kept = (t: bigint) => {
        const phase = (Number(t) - anchor) % step;
        return phase > above || phase < below;
      };
      const range = BigInt(p.width) * BigInt(p.bucketsPerWindow);
      let dropped = 0;
      for (let t = g.start; t <= g.end; t += g.step) {
        const end = t - p.offset;
        // A window is (end − range, end]: its edges, a few ns either side, and points inside.
        for (const d of [0n, 1n, 255n, 256n, 257n, 1000n, range / 2n, range - 257n, range - 1n]) {
          expect(kept(end - d), `${q}: ${end - d} in the window ending ${end}`).toBe(true);
        }
        // Well inside the gap before the window: nothing asks for these rows.
        const gapMiddle = end - range - (g.step - range) / 2n;
        if (!kept(gapMiddle)) dropped++;
      }
      expect(dropped).toBeGreaterThan(0);
    }
  });

  it("declines when the buckets would outnumber local evaluation's work", () => {
    expect(plan('sum(count_over_time({app="x"}[7s]))', { ...grid, step: 11n * S })).toBeUndefined();
  });
});

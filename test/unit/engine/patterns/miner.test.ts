import { describe, expect, it } from "vitest";
import { joinTokens, logfmtPairs, tokenizeLine, tokenizeText } from "../../../../src/engine/patterns/tokenize";
import { Drain } from "../../../../src/engine/patterns/drain";
import {
  PatternMiner,
  apportion,
  patternLevel,
  patternText,
  type MinedPattern,
} from "../../../../src/engine/patterns/miner";

const S = 1_000_000_000n;
const text = (p: MinedPattern) => patternText(p);

describe("tokenizing", () => {
  it("splits text on spaces, = and punctuation, keeping _ - . : / inside tokens", () => {
    expect(tokenizeText('GET /api/v1_x-y.z:8080 took=15ms, "ok" (done)!')).toEqual({
      tokens: ["GET", "/api/v1_x-y.z:8080", "took", "=", "15ms", ",", '"', "ok", '"', "(", "done", ")", "!"],
      spacesAfter: [0, 1, 5, 8],
    });
  });

  it("keeps symbols (< > $ + |) inside tokens, as Go's IsPunct does not count them", () => {
    expect(tokenizeText("a<b> $x+y|z").tokens).toEqual(["a<b>", "$x+y|z"]);
  });

  it("splits on non-ASCII punctuation but not on letters", () => {
    expect(tokenizeText("日本語「ログ」です").tokens).toEqual(["日本語", "「", "ログ", "」", "です"]);
  });

  it("writes text back with its spacing", () => {
    const line = "  a  b=c, d";
    const t = tokenizeText(line);
    expect(joinTokens("text", t.tokens, t.spacesAfter)).toBe(line);
  });

  it("reads logfmt lines as key/value pairs; time and trace values are variable from the start", () => {
    expect(logfmtPairs('ts=2026-01-01T00:00:00Z level=info msg="a b" traceID=abc n=1')).toEqual([
      "ts",
      "<_>",
      "level",
      "info",
      "msg",
      "a b",
      "traceID",
      "<_>",
      "n",
      "1",
    ]);
    // Not logfmt by Loki's guess: a bare word, an empty value, a double space.
    expect(logfmtPairs("hello level=info")).toBeUndefined();
    expect(logfmtPairs("a= b=1")).toBeUndefined();
    expect(logfmtPairs("a=1  b=1")).toBeUndefined();
    expect(tokenizeLine("a=1 b=2")?.format).toBe("logfmt");
    expect(joinTokens("logfmt", ["msg", "a b", "q", 'x"y', "n", "<_>"], [])).toBe('msg="a b" q="x\\"y" n=<_>');
  });

  it("mines a JSON object's message field, framed by <_>", () => {
    const t = tokenizeLine('{"level":"info","msg":"out of memory: kill process","n":1}')!;
    expect(t.format).toBe("json");
    // `:` stays inside tokens.
    expect(t.tokens).toEqual(["out", "of", "memory:", "kill", "process"]);
    expect(joinTokens("json", t.tokens, t.spacesAfter)).toBe("<_>out of memory: kill process<_>");
    // No message field: nothing to mine.
    expect(tokenizeLine('{"level":"info","n":1}')).toBeUndefined();
    expect(tokenizeLine("x".repeat(3001))).toBeUndefined();
  });

  it("collapses runs of <_> into one", () => {
    expect(joinTokens("text", ["a", "<_>", "<_>", "b"], [])).toBe("a<_>b");
  });
});

describe("clustering", () => {
  const add = (d: Drain, line: string) => {
    const t = tokenizeText(line);
    return d.add(t.tokens, t.spacesAfter);
  };

  it("merges lines that share the tree path and agree on enough tokens, with <_> where they differ", () => {
    // Depth 3: the tree holds the token count and the first two tokens; the rest is compared.
    const d = new Drain({ maxNodeDepth: 3, similarity: 0.3, maxChildren: 15, maxClusters: 300 });
    const a = add(d, "user alice logged in from web at noon");
    const b = add(d, "user alice logged out from app at noon");
    expect(b).toBe(a);
    expect(a!.tokens).toEqual(["user", "alice", "logged", "<_>", "from", "<_>", "at", "noon"]);
    // Below the threshold (2 of 8 tokens equal): a cluster of its own.
    expect(add(d, "user alice x y z w v u")).not.toBe(a);
    expect(d.clusters).toHaveLength(2);
  });

  it("keeps leading words apart until a node has maxChildren children, then pools the rest under <_>", () => {
    const d = new Drain();
    const names = Array.from({ length: 20 }, (_, i) => `name${"abcdefghijklmnopqrst"[i]}`);
    for (const n of names) add(d, `user ${n} logged in now`);
    const tokens = d.clusters.map((c) => c.tokens.join(" "));
    expect(tokens).toHaveLength(15);
    expect(tokens.slice(0, 14)).toEqual(names.slice(0, 14).map((n) => `user ${n} logged in now`));
    expect(tokens[14]).toBe("user <_> logged in now");
  });

  it("keeps apart lines of different token counts or too little in common", () => {
    const d = new Drain();
    add(d, "user alice logged in");
    add(d, "user alice logged in twice");
    add(d, "disk full on sda1 now");
    expect(d.clusters.map((c) => c.tokens.join(" "))).toEqual([
      "user alice logged in",
      "user alice logged in twice",
      "disk full on sda1 now",
    ]);
  });

  it("sends tokens with digits down the <_> branch, so numbers never split clusters", () => {
    const d = new Drain();
    for (let i = 0; i < 50; i++) add(d, `request ${i} took ${i * 3}ms ok`);
    expect(d.clusters).toHaveLength(1);
    expect(d.clusters[0]!.tokens).toEqual(["request", "<_>", "took", "<_>", "ok"]);
  });

  it("refuses lines with fewer than 4 or more than 80 tokens", () => {
    const d = new Drain();
    expect(add(d, "only three tokens")).toBeUndefined();
    expect(add(d, Array.from({ length: 81 }, (_, i) => `w${i}`).join(" "))).toBeUndefined();
    expect(add(d, Array.from({ length: 80 }, (_, i) => `w${i}`).join(" "))).toBeDefined();
  });

  it("never holds more than maxClusters clusters", () => {
    const d = new Drain({ maxNodeDepth: 28, similarity: 0.3, maxChildren: 15, maxClusters: 5 });
    for (let i = 0; i < 20; i++) add(d, `alpha${"abcdefghijklmnopqrst"[i]} beta gamma delta epsilon`.repeat(1));
    // Five distinct first tokens fill the drain; lines matching none of them are refused.
    expect(d.clusters.length).toBeLessThanOrEqual(5);
  });
});

describe("mining", () => {
  it("counts every line once per bucket of the step grid and files it by level", () => {
    const m = new PatternMiner(60_000);
    const base = 1_769_990_400n; // a multiple of 60 s
    m.addLine("user 17 logged in now", (base + 5n) * S, "info");
    m.addLine("user 18 logged in now", (base + 59n) * S, "info");
    m.addLine("user 19 logged in now", (base + 61n) * S, "info");
    m.addLine("user 20 logged in now", (base + 1n) * S, "error");
    m.addLine("too short", (base + 1n) * S, "info");
    const [info, error] = m.result();
    expect(text(info!)).toBe("user <_> logged in now");
    expect(info!.level).toBe("info");
    expect(info!.samples).toEqual([
      [Number(base) * 1000, 2],
      [Number(base + 60n) * 1000, 1],
    ]);
    expect(error!.level).toBe("error");
    expect(error!.samples).toEqual([[Number(base) * 1000, 1]]);
    expect(m.figures).toEqual({ lines: 5, refused: 1, clusters: 2 });
  });

  it("merges mined chunks into the patterns of the whole, with the same counts", () => {
    const lines = Array.from({ length: 200 }, (_, i) => `job ${["a", "b", "c"][i % 3]} finished in ${i}ms`);
    const whole = new PatternMiner(10_000);
    const first = new PatternMiner(10_000);
    const second = new PatternMiner(10_000);
    lines.forEach((l, i) => {
      const ts = BigInt(i) * S;
      whole.addLine(l, ts, "info");
      (i < 100 ? first : second).addLine(l, ts, "info");
    });
    const merged = new PatternMiner(10_000);
    for (const p of [...first.result(), ...second.result()]) merged.addPattern(p);
    expect(merged.result().map((p) => [text(p), p.samples])).toEqual(whole.result().map((p) => [text(p), p.samples]));
    expect(whole.result().map(text)).toEqual([
      "job a finished in <_>",
      "job b finished in <_>",
      "job c finished in <_>",
    ]);
  });

  it("adds up the samples of mined patterns that meet in one cluster, in bucket order whatever order they came in", () => {
    const p = (samples: [number, number][]): MinedPattern => ({
      format: "text",
      level: "info",
      tokens: ["job", "a", "finished", "<_>"],
      spacesAfter: [1, 1, 1],
      samples,
    });
    const one = new PatternMiner(1000);
    one.addPattern(
      p([
        [3000, 2],
        [1000, 1],
      ]),
    );
    expect(one.result().map((r) => r.samples)).toEqual([
      [
        [1000, 1],
        [3000, 2],
      ],
    ]);
    const two = new PatternMiner(1000);
    two.addPattern(
      p([
        [1000, 1],
        [3000, 2],
      ]),
    );
    two.addPattern(
      p([
        [2000, 4],
        [3000, 5],
      ]),
    );
    expect(two.result().map((r) => r.samples)).toEqual([
      [
        [1000, 1],
        [2000, 4],
        [3000, 7],
      ],
    ]);
    expect(two.figures).toEqual({ lines: 12, refused: 0, clusters: 1 });
  });

  it("is deterministic", () => {
    const run = () => {
      const m = new PatternMiner(1000);
      for (let i = 0; i < 500; i++) m.addLine(`k=${i % 7} v=${i} msg="event ${i % 3}"`, BigInt(i) * S, "unknown");
      return JSON.stringify(m.result());
    };
    expect(run()).toBe(run());
  });

  it("takes the level from detected_level only, as Loki's pattern ingester does", () => {
    expect(patternLevel({}, { detected_level: "WARN" })).toBe("warn");
    expect(patternLevel({ detected_level: "error" }, {})).toBe("error");
    expect(patternLevel({ level: "info" }, {})).toBe("unknown");
    expect(patternLevel({}, { detected_level: "loud" })).toBe("unknown");
  });
});

describe("groups of lines counted by the origin", () => {
  const info = (line: string) => ({ line, level: "info" });

  it("counts on a known grid of buckets as without one, buckets off the grid included", () => {
    const groups: [string[], [number, number][]][] = [
      [
        ["took 15 ms to serve a", "took 230 ms to serve a"],
        [
          [60_000, 3],
          [180_000, 1],
        ],
      ],
      [
        ["took 7 ms to serve a"],
        [
          [0, 2],
          [180_000, 4],
          [600_000, 5],
        ],
      ],
      [["user 12 logged in now"], [[120_000, 1]]],
    ];
    const mine = (m: PatternMiner) => {
      for (const [lines, samples] of groups) m.addGroup(lines.map(info), samples);
      return m.result().map((p) => [text(p), p.samples]);
    };
    const onGrid = mine(new PatternMiner(60_000, undefined, { startMs: 0, buckets: 4 }));
    expect(onGrid).toEqual(mine(new PatternMiner(60_000)));
    expect(onGrid).toEqual([
      [
        "took <_> ms to serve a",
        [
          [0, 2],
          [60_000, 3],
          [180_000, 5],
          [600_000, 5],
        ],
      ],
      ["user 12 logged in now", [[120_000, 1]]],
    ]);
  });

  it("mines a group's lines once and books its counts per bucket to the pattern they joined", () => {
    const m = new PatternMiner(60_000);
    m.addGroup(
      [info("took 15 ms to serve a"), info("took 230 ms to serve a")],
      [
        [0, 40],
        [60_000, 2],
      ],
    );
    const [p] = m.result();
    expect(text(p!)).toBe("took <_> ms to serve a");
    expect(p!.samples).toEqual([
      [0, 40],
      [60_000, 2],
    ]);
    expect(m.figures).toEqual({ lines: 42, refused: 0, clusters: 1 });
  });

  it("mines a group as its lines would be: the same patterns as adding every line", () => {
    const lines = ["GET /a took 15 ms", "GET /a took 99 ms", "PUT /b took 7 ms now", "PUT /b took 8 ms now"];
    const byLine = new PatternMiner(60_000);
    for (const l of lines) byLine.addLine(l, 0n, "info");
    const byGroup = new PatternMiner(60_000);
    byGroup.addGroup([info(lines[0]!), info(lines[1]!)], [[0, 2]]);
    byGroup.addGroup([info(lines[2]!), info(lines[3]!)], [[0, 2]]);
    expect(byGroup.result()).toEqual(byLine.result());
  });

  it("splits a group whose lines join different patterns in proportion, and refuses the share no pattern took", () => {
    const m = new PatternMiner(60_000);
    // Too few tokens: not mined, as a line of its own would not be.
    m.addGroup([info("a 1"), info("one two three 1"), info("x y z w 2")], [[0, 10]]);
    const counts = m.result().map((p) => [text(p), p.samples]);
    expect(counts).toEqual([
      ["one two three 1", [[0, 3]]],
      ["x y z w 2", [[0, 3]]],
    ]);
    // Thirds of 10: the leftover unit goes to the first share, the refused one.
    expect(m.figures.refused).toBe(4);
    expect(m.figures.lines).toBe(10);
  });

  it("apportions whole numbers that add up, the largest remainders first", () => {
    expect(apportion(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(apportion(7, [2, 1])).toEqual([5, 2]);
    expect(apportion(5, [1])).toEqual([5]);
    expect(apportion(0, [1, 2])).toEqual([0, 0]);
  });
});

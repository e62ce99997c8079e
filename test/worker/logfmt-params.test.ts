/**
 * `| logfmt name="key"` in metric queries, answered as Loki answers: its parser hints name the
 * labels a query needs, and the expression parser reads a key that is not one of its labels only
 * where the hints name it. Expected values are worked out by hand from Loki's rule
 * (engine/pipeline/parser-hints.ts), line by line, and hold with the push-down on and off.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  expectLabelledValues,
  lineSetStreams,
  pushCounted,
  pushedAcrossSets,
  pushedAndLocal,
} from "./support/metric-answers";
import { expectBucketsNotLines } from "./support/traffic";

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

/** The answer with push-down off and on, each equal to `expected` (worked out by hand). */
const expectAnswer = (query: string, expected: Record<string, string>) =>
  expectLabelledValues(query, AT, TENANT, expected);

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

  it("plain | logfmt keeps the first value of a repeated key", async () => {
    // Line 5 is `level=debug level=info`: Loki skips a key it already extracted.
    await expectAnswer('sum by (level) (count_over_time({app="lfp"} | logfmt [5m]))', {
      "": "1",
      "level=info": "1",
      "level=warn": "1",
      "level=error": "1",
      "level=debug": "1",
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

describe('| logfmt name="key" counting push-down on the compat data', () => {
  const DATA_END = DATA_START + 6 * 3600;
  const range = { start: String(DATA_START), end: String(DATA_END), step: "300" };

  it("pushes sums by its labels and filters on them down, with the answer of local evaluation", async () => {
    for (const query of [
      'sum by (lvl) (count_over_time({app="worker"} | logfmt lvl="level" [5m]))',
      'sum by (level) (count_over_time({app="worker"} | logfmt level="level" [5m]))',
      'sum by (level, job) (rate({app="worker"} | logfmt level="level", msg | msg="order created" [5m]))',
      'sum(bytes_over_time({app=~"worker|auth"} | logfmt lvl="level", caller | lvl="" | caller=~"worker.*" [10m]))',
      'sum by (lvl) (count_over_time({app="auth"} | logfmt lvl="level", took="duration" | lvl!="debug" [5m]))',
      'sum by (app) (count_over_time({app=~"worker|auth"} | logfmt level | drop level | __error__="" [5m]))',
      // Reading stops at the first key read (level, first in every line): msg's "" is never read.
      'sum by (level) (count_over_time({app="worker"} | logfmt level="level", msg [5m]))',
      // `job` is a stream label and a key of every line, after `level=`: Loki stops reading there.
      'sum by (level) (count_over_time({app="worker"} | logfmt job, level [5m]))',
      'sum by (level) (count_over_time({app="worker"} | logfmt level="level", job="job" | job="prod/worker" [5m]))',
    ]) {
      const { pushed, local } = await pushedAndLocal(query, range);
      expect(local.series.size, query).toBeGreaterThan(0);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    }
  });

  it("keeps what it cannot prove equal local, with the same answer", async () => {
    for (const query of [
      // Reading stops at the first key read (level): msg, which the answer reads, stays "".
      'sum by (level, msg) (count_over_time({app="worker"} | logfmt level="level", msg [5m]))',
      'sum by (lvl, j) (count_over_time({app="worker"} | logfmt lvl="level", j="job" [5m]))',
      // Typed filters on the parser's labels (Loki fails on the "" it sets).
      'sum by (level) (count_over_time({app="worker"} | logfmt level, attempt | attempt > 3 [5m]))',
    ]) {
      const { pushed } = await pushedAndLocal(query, range);
      expect(pushed.linesScanned, query).not.toBe(0);
    }
  });

  it("reads buckets instead of lines", async () => {
    await expectBucketsNotLines('sum by (lvl) (count_over_time({app="worker"} | logfmt lvl="level" [5m]))', {
      ...range,
      step: "60",
    });
  });
});

/**
 * Generated logfmt lines in streams of their own (a tenant of its own): a set of plain lines must
 * be pushed; with a line VictoriaLogs could read differently, or a label `g` held by the row, it
 * may be pushed or sent back, but must give the same answer.
 */
describe('| logfmt name="key" push-down over generated lines (property, real VictoriaLogs)', () => {
  const HEADERS = { "X-Scope-OrgID": "26:82" };
  const word = fc.constantFrom("a", "bb", "sync", "x-y", "élan", "GET");
  const plain = fc
    .tuple(fc.constantFrom("info", "warn", "error"), word, fc.integer({ min: -5, max: 500 }))
    .map(([level, g, n]) => `level=${level} g=${g} msg="a probe" num=${n}`);
  const TRICKY = [
    "g=a g=b num=1",
    "lvl=x level=info g=a",
    "level=warn lvl=y g=b",
    "g=a lvl=z",
    "lvl=z g=a",
    "g num=2",
    "g= level=info",
    "lvl= level=warn",
    '"g"=q level=info',
    'g="x y" level=info',
    'g="a=b" level=info',
    "g=a=b level=info",
    'g="unterminated level=info',
    "level=info\tg=tab",
    "g.x=1 g-x=2 level=info",
    "g=é level=info",
    "g=repl\ufffd level=info",
    'g="esc\\u0041" level=info',
    "gg=1 g=c level=debug",
    "no pairs here",
    "level=info level=warn g=a",
    // The keys the shapes read in other orders: where reading stops decides which labels are "".
    "g=a level=info",
    'msg="x" g=b level=warn num=3',
    "num=4 level=error g=sync",
  ];
  const setOf = fc.record({
    plain: fc.array(plain, { minLength: 2, maxLength: 8 }),
    tricky: fc.array(fc.constantFrom(...TRICKY), { maxLength: 2 }),
    label: fc.constantFrom(undefined, undefined, "stream" as const, "metadata" as const),
  });
  type LineSet = { plain: string[]; tricky: string[]; label?: "stream" | "metadata" | undefined };
  const sets: LineSet[] = [
    ...TRICKY.map((line, k) => ({ plain: fc.sample(plain, { numRuns: 4, seed: k }), tricky: [line] })),
    { plain: fc.sample(plain, { numRuns: 6, seed: 91 }), tricky: [] },
    { plain: fc.sample(plain, { numRuns: 6, seed: 92 }), tricky: [], label: "stream" },
    { plain: fc.sample(plain, { numRuns: 6, seed: 93 }), tricky: [], label: "metadata" },
    ...fc.sample(setOf, { numRuns: 12, seed: 2681 }),
  ];

  beforeAll(async () => {
    const streams = lineSetStreams("lfpgen", sets, DATA_START, {
      stream: { g: "from-stream" },
      metadata: { g: "from-metadata" },
    });
    await pushCounted("26:82", "lfpgen", streams, DATA_START);
  });

  const shapes = (sel: string) => [
    `sum by (g) (count_over_time(${sel} | logfmt g [1m]))`,
    `sum by (gg) (count_over_time(${sel} | logfmt gg="g" [1m]))`,
    `sum by (lvl) (count_over_time(${sel} | logfmt lvl="level", g [30s]))`,
    `sum by (g, set) (rate(${sel} | logfmt g, lvl="level" | lvl!="x" [1m]))`,
    `sum(bytes_over_time(${sel} | logfmt gg="g" | gg=~"a|b.*" [1m]))`,
    `sum by (level) (count_over_time(${sel} | logfmt lvl="level" | lvl="info" [20s]))`,
    `sum by (lvl, g) (bytes_rate(${sel} | logfmt lvl="level", g | g=~"a|bb|sync" [1m]))`,
    `sum(count_over_time(${sel} | logfmt g [1m]))`,
  ];

  it("every set and shape: pushed equals local; plain sets are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      sets.length,
      (k) => shapes(`{app="lfpgen", set="s${k}"}`),
      (k) => sets[k]!.tricky.length === 0 && sets[k]!.label === undefined,
      DATA_START,
      HEADERS,
    );
    console.info(`lfp property: ${pushedAsRequired} pushed as required, ${fellBack} fell back`);
    expect(pushedAsRequired).toBeGreaterThan(10);
    expect(fellBack).toBeGreaterThan(10);
  }, 360_000);
});

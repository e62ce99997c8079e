/**
 * The incremental streams encoder. Every `streams` answer real Loki gave in the compat corpus is
 * taken apart into entries, written back through the encoder in small chunks, and must come out as
 * the same multiset of entries with the same document shape.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StreamsJsonWriter, streamsResponseStream, tailFrameJson } from "../../../src/encode/stream-writer";
import { groupByLabelSet, labelHash } from "../../../src/encode/label-sets";
import type { Labels, LogEntry } from "../../../src/engine/types";

const GOLDEN_DIR = join(__dirname, "..", "..", "fixtures", "compat", "golden");
const CASES = join(__dirname, "..", "..", "fixtures", "compat", "cases.json");

interface StreamsDoc {
  status: string;
  data: {
    resultType: string;
    encodingFlags?: string[];
    result: { stream: Labels; values: [string, string, { structuredMetadata?: Labels; parsed?: Labels }?][] }[];
  };
}

function write(entries: LogEntry[], categorize: boolean, chunkChars: number): { text: string; chunks: number } {
  const parts: string[] = [];
  const w = new StreamsJsonWriter((c) => parts.push(c), { categorize, chunkChars });
  for (const e of entries) w.push(e);
  w.end('{"summary":{}}');
  return { text: parts.join(""), chunks: parts.length };
}

/** One string per entry: labels (sorted), ts, line and the categorized extra, for multiset equality. */
function entryKeys(doc: StreamsDoc): string[] {
  const out: string[] = [];
  for (const s of doc.data.result) {
    const labels = JSON.stringify(Object.entries(s.stream).sort());
    for (const [ts, line, extra] of s.values) {
      const norm = extra
        ? JSON.stringify([
            Object.entries(extra.structuredMetadata ?? {}).sort(),
            Object.entries(extra.parsed ?? {}).sort(),
          ])
        : "";
      out.push(`${labels}\u0000${ts}\u0000${line}\u0000${norm}`);
    }
  }
  return out.sort();
}

const e = (ts: bigint, line: string, stream: Labels, metadata: Labels = {}, parsed: Labels = {}): LogEntry => ({
  ts,
  line,
  stream,
  metadata,
  parsed,
});

describe("StreamsJsonWriter", () => {
  it("writes consecutive entries of one label set into one stream object", () => {
    const s = { app: "a", ns: "x" };
    const { text } = write([e(3n, "c", s), e(2n, "b", s)], false, 1 << 20);
    expect(JSON.parse(text)).toEqual({
      status: "success",
      data: {
        resultType: "streams",
        result: [
          {
            stream: { app: "a", ns: "x" },
            values: [
              ["3", "c"],
              ["2", "b"],
            ],
          },
        ],
        stats: { summary: {} },
      },
    });
  });

  it("opens a new object when the label set changes, including by metadata or parsed labels", () => {
    const a = { app: "a" };
    const b = { app: "b" };
    const { text } = write(
      [
        e(5n, "1", a),
        e(4n, "2", b),
        e(3n, "3", a),
        e(2n, "4", a, { trace_id: "t" }),
        e(1n, "5", a, {}, { level: "x" }),
      ],
      false,
      1 << 20,
    );
    const doc = JSON.parse(text) as StreamsDoc;
    expect(doc.data.result.map((r) => r.stream)).toEqual([
      { app: "a" },
      { app: "b" },
      { app: "a" },
      { app: "a", trace_id: "t" },
      { app: "a", level: "x" },
    ]);
  });

  it("with categorize-labels keeps stream labels apart and adds the third element", () => {
    const s = { app: "a" };
    const { text } = write([e(2n, "x", s, { trace_id: "t" }, { level: "info" }), e(1n, "y", s)], true, 1 << 20);
    expect(JSON.parse(text).data).toEqual({
      resultType: "streams",
      encodingFlags: ["categorize-labels"],
      result: [
        {
          stream: { app: "a" },
          values: [
            ["2", "x", { structuredMetadata: { trace_id: "t" }, parsed: { level: "info" } }],
            ["1", "y", {}],
          ],
        },
      ],
      stats: { summary: {} },
    });
  });

  it("escapes lines and label values as JSON", () => {
    const { text } = write([e(1n, 'q"\\\n\u0001☕', { 'we"ird': "v\u0000" })], false, 1 << 20);
    const doc = JSON.parse(text) as StreamsDoc;
    expect(doc.data.result[0]!.stream).toEqual({ 'we"ird': "v\u0000" });
    expect(doc.data.result[0]!.values[0]![1]).toBe('q"\\\n\u0001☕');
  });

  it("merges stream, metadata and parsed labels in sorted order, the later set winning a clash", () => {
    const s = { b: "1", d: "2", z: "3" };
    const { text } = write([e(1n, "x", s, { a: "m", c: "m" }, { e: "p", d: "over" })], false, 1 << 20);
    expect(text).toContain('"stream":{"a":"m","b":"1","c":"m","d":"over","e":"p","z":"3"}');
  });

  it("escapes control characters and lone surrogates in label values as JSON.stringify does", () => {
    const odd = { a: "\ud800x", b: "tab\t", c: "plain 日本" };
    const { text } = write([e(1n, "x", odd, { m: "\udc00" })], false, 1 << 20);
    expect(text).toContain('"a":"\\ud800x","b":"tab\\t","c":"plain 日本","m":"\\udc00"');
    expect(JSON.parse(text).data.result[0].stream).toEqual({ ...odd, m: "\udc00" });
  });

  it("writes an empty result", () => {
    expect(JSON.parse(write([], false, 10).text).data.result).toEqual([]);
  });

  it("flushes in chunks near the requested size", () => {
    const s = { app: "a" };
    const entries = Array.from({ length: 1000 }, (_, i) => e(BigInt(i), "x".repeat(50), s));
    const parts: string[] = [];
    const w = new StreamsJsonWriter((c) => parts.push(c), { categorize: false, chunkChars: 4096 });
    for (const x of entries) w.push(x);
    w.end("{}");
    // Each entry adds ~ 60 characters, so no chunk overshoots the threshold by more than one entry.
    for (const p of parts.slice(0, -1)) expect(p.length).toBeLessThan(4096 + 200);
    expect(parts.length).toBeGreaterThan(10);
  });
});

describe("StreamsJsonWriter on real Loki answers", () => {
  const cases = JSON.parse(readFileSync(CASES, "utf8")) as {
    id: string;
    params: Record<string, string>;
    headers: Record<string, string>;
  }[];
  const streamsGoldens = cases.flatMap((c) => {
    const g = JSON.parse(readFileSync(join(GOLDEN_DIR, `${c.id}.json`), "utf8")) as {
      status: number;
      json?: StreamsDoc;
    };
    return g.status === 200 && g.json?.data?.resultType === "streams" ? [{ c, doc: g.json }] : [];
  });

  it("reproduces every streams golden as the same multiset of entries", () => {
    expect(streamsGoldens.length).toBeGreaterThan(50);
    let docs = 0;
    for (const { c, doc } of streamsGoldens) {
      const categorize = (c.headers["X-Loki-Response-Encoding-Flags"] ?? "").includes("categorize-labels");
      const backward = (c.params.direction ?? "backward") === "backward";
      const entries: LogEntry[] = [];
      for (const s of doc.data.result) {
        const stream = { ...s.stream }; // one object per stream, as the row decoder gives
        for (const [ts, line, extra] of s.values) {
          entries.push(e(BigInt(ts), line, stream, extra?.structuredMetadata ?? {}, extra?.parsed ?? {}));
        }
      }
      // The order the executor produces: all streams interleaved by time in the query's direction.
      entries.sort((a, b) => (a.ts === b.ts ? 0 : a.ts < b.ts === backward ? 1 : -1));
      const { text } = write(entries, categorize, 256);
      const ours = JSON.parse(text) as StreamsDoc;
      expect(ours.status, c.id).toBe(doc.status);
      expect(ours.data.resultType, c.id).toBe("streams");
      expect(ours.data.encodingFlags, c.id).toEqual(doc.data.encodingFlags);
      expect(entryKeys(ours), c.id).toEqual(entryKeys(doc));
      for (const s of ours.data.result) {
        for (let i = 1; i < s.values.length; i++) {
          const prev = BigInt(s.values[i - 1]![0]);
          const cur = BigInt(s.values[i]![0]);
          expect(backward ? prev >= cur : prev <= cur, c.id).toBe(true);
        }
      }
      docs++;
    }
    console.log(`stream-writer: ${docs} streams goldens reproduced`);
  });
});

describe("streamsResponseStream", () => {
  it("pulls entries only as the body is read, and cancelling returns the source", async () => {
    let produced = 0;
    let closed = false;
    async function* source(): AsyncGenerator<LogEntry[]> {
      const s = { app: "a" };
      try {
        for (let i = 0; ; i++) {
          produced++;
          yield [e(BigInt(i), "line of about forty characters, padded..", s)];
        }
      } finally {
        closed = true;
      }
    }
    const body = streamsResponseStream(source(), false, () => "{}", 1024);
    const reader = body.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    // One chunk of ~1 KiB is ~20 entries; the stream's high-water mark may prefetch one more chunk.
    expect(produced).toBeLessThan(100);
    await reader.cancel();
    expect(closed).toBe(true);
  });

  it("writes grouped entries the same way as batches", async () => {
    const entries = [e(2n, "b", { app: "x" }), e(1n, "a", { app: "x" })];
    const text = await new Response(
      streamsResponseStream(groupByLabelSet(entries, false), false, () => '{"n":1}'),
    ).text();
    expect(JSON.parse(text).data.result).toEqual([
      {
        stream: { app: "x" },
        values: [
          ["2", "b"],
          ["1", "a"],
        ],
      },
    ]);
  });

  it("splits grouped entries across many small chunks into one valid document", async () => {
    const x = { app: "x" };
    const y = { app: "y" };
    const entries = Array.from({ length: 50 }, (_, i) => e(BigInt(100 - i), `line ${i}`, i % 3 === 0 ? y : x));
    const text = await new Response(
      streamsResponseStream(groupByLabelSet(entries, false), false, () => "{}", 64),
    ).text();
    const result = JSON.parse(text).data.result as { stream: Labels; values: [string, string][] }[];
    expect(result.map((r) => r.stream)).toEqual([y, x]);
    expect(result[0]!.values.length + result[1]!.values.length).toBe(50);
    expect(result[1]!.values[0]).toEqual(["99", "line 1"]);
  });

  it("does not reuse a grouped key for a later push of another label set", () => {
    let out = "";
    const w = new StreamsJsonWriter((c) => (out += c), { categorize: false });
    const a = { app: "a" };
    w.push(e(3n, "p", a));
    w.pushKeyed(e(2n, "k", { app: "b" }), '{"app":"b"}');
    w.push(e(1n, "q", a));
    w.end("{}");
    expect(JSON.parse(out).data.result.map((r: { stream: Labels }) => r.stream)).toEqual([a, { app: "b" }, a]);
  });

  it("produces a complete document for a finite source", async () => {
    async function* source(): AsyncGenerator<LogEntry[]> {
      yield [e(2n, "b", { app: "x" })];
      yield [e(1n, "a", { app: "x" })];
    }
    const text = await new Response(streamsResponseStream(source(), false, () => '{"n":1}')).text();
    expect(JSON.parse(text)).toEqual({
      status: "success",
      data: {
        resultType: "streams",
        result: [
          {
            stream: { app: "x" },
            values: [
              ["2", "b"],
              ["1", "a"],
            ],
          },
        ],
        stats: { n: 1 },
      },
    });
  });
});

describe("streamsResponseStream bytes", () => {
  // Lines, labels and metadata with what JSON escapes (quotes, backslashes, control characters,
  // lone surrogates), characters of two to four UTF-8 bytes, and lines kept as the origin's literal.
  const texts = [
    "plain",
    'q"uote',
    "back\\slash",
    "tab\tnl\n\u0001",
    "日本語 ☕",
    "😀 pair",
    "\ud800 lone",
    "\udc00",
    "é",
  ];
  const text = fc.constantFrom(...texts);
  const labels = fc.dictionary(fc.constantFrom("a", "b", "trace_id", "détail", 'we"ird'), text, { maxKeys: 3 });
  const entry = fc
    .tuple(fc.bigInt({ min: 1n, max: 10n ** 19n }), text, fc.constantFrom(0, 1, 2), labels, labels, fc.boolean())
    .map(([ts, line, s, metadata, parsed, literal]): LogEntry => {
      const stream = ([{ app: "a" }, { app: "b", "x-y": "☕" }, { app: "c\u0000" }] as Labels[])[s]!;
      return literal
        ? { ts, line, rawLine: JSON.stringify(line), stream, metadata, parsed: {} }
        : { ts, line, stream, metadata, parsed };
    });

  it("are the UTF-8 of the text the string writer gives, for any entries and chunk size (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { maxLength: 12 }),
        fc.boolean(),
        fc.integer({ min: 8, max: 300 }),
        async (entries, categorize, chunk) => {
          const groups = groupByLabelSet(entries, categorize);
          const parts: string[] = [];
          const w = new StreamsJsonWriter((c) => parts.push(c), { categorize });
          for (const g of groups) w.pushGroup(g);
          w.end('{"n":"☕"}');
          const want = new TextEncoder().encode(parts.join(""));
          const body = streamsResponseStream(groups, categorize, () => '{"n":"☕"}', chunk);
          const got = new Uint8Array(await new Response(body).arrayBuffer());
          expect(got).toEqual(want);
          // And the document says what the entries hold.
          const doc = JSON.parse(new TextDecoder().decode(got)) as StreamsDoc;
          expect(doc.data.result.reduce((n, r) => n + r.values.length, 0)).toBe(entries.length);
        },
      ),
      { numRuns: 300, seed: 5 },
    );
  });

  it("write a categorized entry's metadata and parsed labels, escaped, beside its line", async () => {
    const stream = { app: "a" };
    const entries: LogEntry[] = [
      { ts: 2n, line: "x", rawLine: '"caf\\u00e9 \\"q\\""', stream, metadata: { trace_id: "t\u0001" }, parsed: {} },
      { ts: 1n, line: "日本", stream, metadata: { a: "☕" }, parsed: { level: "\ud800" } },
    ];
    const body = streamsResponseStream(groupByLabelSet(entries, true), true, () => "{}", 16);
    const text = new TextDecoder().decode(await new Response(body).arrayBuffer());
    expect(text).toBe(
      '{"status":"success","data":{"resultType":"streams","encodingFlags":["categorize-labels"],"result":[' +
        '{"stream":{"app":"a"},"values":[["2","caf\\u00e9 \\"q\\"",{"structuredMetadata":{"trace_id":"t\\u0001"}}],' +
        '["1","日本",{"structuredMetadata":{"a":"☕"},"parsed":{"level":"\\ud800"}}]]}],"stats":{}}}',
    );
  });
});

describe("groupByLabelSet and tail frames", () => {
  const a = { app: "a" };
  const b = { app: "b" };
  const entry = (ts: bigint, stream: Record<string, string>, parsed: Record<string, string> = {}) => ({
    ts,
    line: `l${ts}`,
    stream,
    metadata: {},
    parsed,
  });

  it("gives each label set one stream object, keeping direction order inside it", () => {
    const interleaved = [entry(5n, a), entry(4n, b), entry(3n, a), entry(2n, b, { x: "1" }), entry(1n, b)];
    let out = "";
    const w = new StreamsJsonWriter((c) => (out += c), { categorize: false });
    for (const g of groupByLabelSet(interleaved, false)) w.pushGroup(g);
    w.end("{}");
    expect(JSON.parse(out).data.result).toEqual([
      {
        stream: { app: "a" },
        values: [
          ["5", "l5"],
          ["3", "l3"],
        ],
      },
      {
        stream: { app: "b" },
        values: [
          ["4", "l4"],
          ["1", "l1"],
        ],
      },
      { stream: { app: "b", x: "1" }, values: [["2", "l2"]] },
    ]);
  });

  it("groups by stream labels only with categorize-labels, and writes tail frames as Loki does", () => {
    const frame = JSON.parse(tailFrameJson([entry(2n, b, { x: "1" }), entry(1n, b)], true));
    expect(frame).toEqual({
      streams: [
        {
          stream: { app: "b" },
          values: [
            ["2", "l2", { parsed: { x: "1" } }],
            ["1", "l1", {}],
          ],
        },
      ],
      encodingFlags: ["categorize-labels"],
    });
    expect(Object.keys(frame)).toEqual(["streams", "encodingFlags"]);
    expect(JSON.parse(tailFrameJson([entry(1n, a)], false))).toEqual({
      streams: [{ stream: { app: "a" }, values: [["1", "l1"]] }],
    });
  });
});

describe("merged label sets (property)", () => {
  /** Loki's label set of an entry as sorted JSON, built the plain way: merge, sort, stringify. */
  const reference = (x: LogEntry) => {
    const merged: Labels = { ...x.stream, ...x.metadata, ...x.parsed };
    const names = Object.keys(merged).sort();
    return `{${names.map((n) => `${JSON.stringify(n)}:${JSON.stringify(merged[n])}`).join(",")}}`;
  };
  // Few names, so that streams, metadata and parsed labels often share them; numeric-looking names
  // come out of Object.keys in another order than they went in.
  const name = fc.constantFrom("app", "pod", "trace_id", "span_id", "z", "a_b", "10", "9", "é", "level");
  const value = fc.oneof(fc.constantFrom("x", "", 'q"', "\\", "\u0001", "\ud800"), fc.string({ maxLength: 4 }));
  const labels = fc.array(fc.tuple(name, value), { maxLength: 4 }).map((pairs) => Object.fromEntries(pairs) as Labels);
  const streams = fc.array(labels, { minLength: 1, maxLength: 3 });

  it("groups and writes every entry under the label set Loki gives it", () => {
    fc.assert(
      fc.property(
        streams,
        fc.array(fc.tuple(fc.nat(), labels, labels, fc.boolean()), { minLength: 1, maxLength: 12 }),
        (streamSets, rows) => {
          // Entries of one stream share its object, as rows of one stream do.
          const entries = rows.map(([s, metadata, parsed, withParsed], i) =>
            e(BigInt(i), `l${i}`, streamSets[s % streamSets.length]!, metadata, withParsed ? parsed : {}),
          );
          const groups = groupByLabelSet(entries, false);
          for (const g of groups) for (const x of g.entries) expect(g.key).toBe(reference(x));
          expect(new Set(groups.map((g) => g.key)).size).toBe(groups.length);
          const doc = JSON.parse(write(entries, false, 64).text) as StreamsDoc;
          const written = doc.data.result.flatMap((s) => s.values.map(([ts]) => [ts, s.stream] as const));
          expect(written.map(([ts, stream]) => [ts, reference(e(0n, "", stream))])).toEqual(
            entries.map((x) => [String(x.ts), reference(x)]),
          );
        },
      ),
      { numRuns: 2000, seed: 7 },
    );
  });
});

describe("label sets of streams met again in later answers (property)", () => {
  // A stream's rendering is kept for the isolate's life, with the placement of the own labels its
  // last entry had: answers that follow one another over the same stream objects, with other
  // metadata and parsed names each time, must each get Loki's label sets.
  const name = fc.constantFrom("app", "pod", "trace_id", "z", "10", "level");
  const labels = fc
    .array(fc.tuple(name, fc.constantFrom("x", "y", 'q"', "")), { maxLength: 3 })
    .map((pairs) => Object.fromEntries(pairs) as Labels);
  const reference = (x: LogEntry) => {
    const merged: Labels = { ...x.stream, ...x.metadata, ...x.parsed };
    return JSON.stringify(
      Object.fromEntries(
        Object.keys(merged)
          .sort()
          .map((n) => [n, merged[n]]),
      ),
    );
  };

  it("gives every entry of every answer its own label set", () => {
    fc.assert(
      fc.property(
        fc.array(labels, { minLength: 1, maxLength: 3 }),
        fc.array(fc.array(fc.tuple(fc.nat(), labels, labels), { minLength: 1, maxLength: 5 }), { maxLength: 6 }),
        (streamSets, answers) => {
          for (const rows of answers) {
            const entries = rows.map(([s, metadata, parsed], i) =>
              e(BigInt(i), "l", streamSets[s % streamSets.length]!, metadata, parsed),
            );
            for (const g of groupByLabelSet(entries, false))
              for (const x of g.entries) expect(g.key).toBe(reference(x));
            const doc = JSON.parse(write(entries, false, 64).text) as StreamsDoc;
            expect(doc.data.result.flatMap((s) => s.values.map(() => JSON.stringify(s.stream)))).toEqual(
              entries.map((x) => JSON.stringify(JSON.parse(reference(x)))),
            );
          }
        },
      ),
      { numRuns: 1000, seed: 13 },
    );
  });
});

describe("groupByLabelSet when hashes meet", () => {
  /** Two values whose labels `app="…"` hash alike (a birthday search over 32 bits). */
  function collidingValues(): [string, string] {
    const seen = new Map<number, string>();
    for (let i = 0; ; i++) {
      const v = `v${i}`;
      const h = labelHash("app", v);
      const other = seen.get(h);
      if (other !== undefined) return [other, v];
      seen.set(h, v);
    }
  }

  it("keeps label sets with the same hash apart, each with its own entries", () => {
    const [a, b] = collidingValues();
    expect(labelHash("app", a)).toBe(labelHash("app", b));
    const entries = [a, b, a, b, b].map((v, i) => e(BigInt(i), `l${i}`, { app: v }));
    const groups = groupByLabelSet(entries, false);
    expect(groups.map((g) => [g.key, g.entries.map((x) => x.line)])).toEqual([
      [`{"app":"${a}"}`, ["l0", "l2"]],
      [`{"app":"${b}"}`, ["l1", "l3", "l4"]],
    ]);
  });

  it("puts one label set in one group whichever labels came from the stream", () => {
    const entries = [
      e(1n, "x", { app: "a", level: "info" }),
      e(2n, "y", { app: "a" }, { level: "info" }),
      e(3n, "z", { app: "a", level: "warn" }, {}, { level: "info" }),
    ];
    const groups = groupByLabelSet(entries, false);
    expect(groups.map((g) => [g.key, g.entries.map((x) => x.line)])).toEqual([
      ['{"app":"a","level":"info"}', ["x", "y", "z"]],
    ]);
  });
});

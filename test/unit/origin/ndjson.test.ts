/** NDJSON framing over arbitrary chunk boundaries, including ones inside a UTF-8 character. */
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readLineBatches, readNdjson } from "../../../src/origin/ndjson";

function streamOf(chunks: Uint8Array[], onCancel?: () => void): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
    cancel() {
      onCancel?.();
    },
  });
}

/** Splits bytes at the given offsets. */
function cut(bytes: Uint8Array, at: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of [...at, bytes.length]) {
    out.push(bytes.slice(from, p));
    from = p;
  }
  return out;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const enc = new TextEncoder();

/** The lines of every batch, in order. */
async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  for await (const batch of readLineBatches(body)) yield* batch;
}

describe("readLineBatches", () => {
  const text = '{"_msg":"日本語 ☕"}\n{"_msg":"b"}\n\n{"_msg":"c"}';
  const bytes = enc.encode(text);

  it("gives the same lines for every way of cutting the bytes in two or three (empty lines dropped)", async () => {
    const want = ['{"_msg":"日本語 ☕"}', '{"_msg":"b"}', '{"_msg":"c"}'];
    for (let a = 0; a <= bytes.length; a++) {
      expect(await collect(readLines(streamOf(cut(bytes, [a]))))).toEqual(want);
    }
    for (let a = 1; a < bytes.length; a += 3) {
      for (let b = a; b < bytes.length; b += 5) {
        expect(await collect(readLines(streamOf(cut(bytes, [a, b]))))).toEqual(want);
      }
    }
  });

  it("handles one byte per chunk", async () => {
    const chunks = Array.from(bytes, (b) => new Uint8Array([b]));
    expect(await collect(readLines(streamOf(chunks)))).toHaveLength(3);
  });

  it("emits a final line without a trailing newline, and nothing extra after one", async () => {
    expect(await collect(readLines(streamOf([enc.encode("a\nb")])))).toEqual(["a", "b"]);
    expect(await collect(readLines(streamOf([enc.encode("a\nb\n")])))).toEqual(["a", "b"]);
    expect(await collect(readLines(streamOf([])))).toEqual([]);
  });

  it("decodes as one decoder over the whole body would, however the bytes are cut (property)", async () => {
    // Bytes around the edge cases: newlines, multi-byte and invalid UTF-8, byte order marks.
    const piece = fc.constantFrom(
      ...[[10], [10, 10], [0xef, 0xbb, 0xbf], [0xe2, 0x98, 0x95], [0xe6, 0x97], [0xff], [0xc3], [0x7b], [0x61]].map(
        (b) => new Uint8Array(b),
      ),
    );
    const body = fc.array(piece, { maxLength: 24 }).map((ps) => Uint8Array.from(ps.flatMap((p) => [...p])));
    await fc.assert(
      fc.asyncProperty(body, fc.array(fc.nat(), { maxLength: 4 }), async (all, cuts) => {
        const at = [...new Set(cuts.map((c) => c % (all.length + 1)))].sort((x, y) => x - y);
        const want = new TextDecoder()
          .decode(all)
          .split("\n")
          .filter((l) => l.length > 0);
        expect(await collect(readLines(streamOf(cut(all, at))))).toEqual(want);
      }),
      { numRuns: 500, seed: 3 },
    );
  });

  it("joins a line that spans many chunks", async () => {
    const long = "x".repeat(10_000) + "é";
    const chunks = cut(enc.encode(`${long}\n{"_msg":"b"}`), [1000, 2000, 5000, 9999, 10_001]);
    expect(await collect(readLines(streamOf(chunks)))).toEqual([long, '{"_msg":"b"}']);
  });

  it("gives lines that hold no more than themselves (a kept piece does not keep its chunk)", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const row = `{"_msg":"${"x".repeat(280)}"}\n`;
    const chunk = enc.encode(row.repeat(Math.ceil(65_536 / row.length)));
    const chunks = 400;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < chunks) controller.enqueue(chunk.slice());
        else controller.close();
      },
    });
    gc();
    const before = process.memoryUsage().heapUsed;
    // One piece of one line per chunk, as a query whose stages keep few rows keeps entries.
    const kept: string[] = [];
    for await (const batch of readLineBatches(body)) kept.push(batch[1]!.slice(9, 200));
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(kept).toHaveLength(chunks);
    // Each piece holding its decoded chunk would be 400 × 64 KiB = 25 MiB.
    expect(grown).toBeLessThan(4 * 1024 * 1024);
  });

  it("cancels the body when the consumer stops early", async () => {
    let cancelled = false;
    const body = streamOf([enc.encode("1\n2\n"), enc.encode("3\n"), enc.encode("4\n")], () => (cancelled = true));
    for await (const line of readLines(body)) if (line === "2") break;
    expect(cancelled).toBe(true);
  });
});

describe("readNdjson", () => {
  it("parses each non-empty line as JSON", async () => {
    const body = streamOf(cut(enc.encode('{"a":"1"}\n\n{"a":"2"}\n'), [4, 11]));
    expect(await collect(readNdjson(body))).toEqual([{ a: "1" }, { a: "2" }]);
  });

  it("fails loudly on a line that is not JSON", async () => {
    await expect(collect(readNdjson(streamOf([enc.encode('{"a":1}\nnot json\n')])))).rejects.toThrow(SyntaxError);
  });
});

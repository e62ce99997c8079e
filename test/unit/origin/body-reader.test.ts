/** Reading origin bodies into one reused buffer: fewer reads, the same bytes, the same lines. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bodyReader } from "../../../src/origin/body-reader";
import { OriginDeadline } from "../../../src/origin/deadline";
import { readLineBatches, type ChunkReader } from "../../../src/origin/ndjson";

/** A byte stream (as fetch bodies are) that delivers `pieces`, all queued at once or one per pull. */
function byteStream(pieces: Uint8Array[], opts: { queued: boolean; onCancel?: (reason: unknown) => void }) {
  let i = 0;
  return new ReadableStream({
    type: "bytes",
    start(controller) {
      if (!opts.queued) return;
      for (const p of pieces) controller.enqueue(p.slice());
      controller.close();
    },
    pull(controller) {
      if (opts.queued) return;
      if (i < pieces.length) controller.enqueue(pieces[i++]!.slice());
      else {
        controller.close();
        // A pending BYOB read must be answered after close.
        controller.byobRequest?.respond(0);
      }
    },
    cancel(reason) {
      opts.onCancel?.(reason);
    },
  });
}

/** Pieces of bytes, one after the other. */
function joined(ps: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(ps.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of ps) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Every chunk's bytes, copied as they come (a chunk is only valid until the next read). */
async function readAll(reader: ChunkReader): Promise<{ bytes: Uint8Array; reads: number }> {
  const copies: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    copies.push(value.slice());
  }
  return { bytes: joined(copies), reads: copies.length };
}

const pieces = (count: number, size: number) =>
  Array.from({ length: count }, (_, k) => new Uint8Array(size).fill(k % 251));

describe("bodyReader", () => {
  it("reads what has arrived in one read, up to 64 KiB, instead of piece by piece", async () => {
    const ps = pieces(100, 1024); // 100 KiB arrived in 1 KiB pieces
    const { bytes, reads } = await readAll(bodyReader(byteStream(ps, { queued: true })));
    expect(bytes).toEqual(joined(ps));
    expect(reads).toBe(2); // 64 KiB, then 36 KiB
  });

  it("gives each piece as it comes when no more has arrived", async () => {
    const ps = pieces(5, 3000);
    const { bytes, reads } = await readAll(bodyReader(byteStream(ps, { queued: false })));
    expect(bytes).toEqual(joined(ps));
    expect(reads).toBe(5);
  });

  it("reads a stream that is not a byte stream with its default reader", async () => {
    const ps = pieces(3, 10);
    let i = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (i < ps.length) c.enqueue(ps[i++]!);
        else c.close();
      },
    });
    const { bytes, reads } = await readAll(bodyReader(stream));
    expect(bytes).toEqual(joined(ps));
    expect(reads).toBe(3);
  });

  it("passes a cancel on to the body", async () => {
    const reasons: unknown[] = [];
    const reader = bodyReader(byteStream(pieces(4, 100), { queued: false, onCancel: (r) => reasons.push(r) }));
    await reader.read();
    await reader.cancel("stop");
    expect(reasons).toEqual(["stop"]);
  });

  it("gives readLineBatches the lines of the body wherever reads cut it, UTF-8 included (property)", async () => {
    const line = fc
      .string({ unit: fc.constantFrom("a", "é", "€", "𝄞", '"', "\\", " "), maxLength: 300 })
      .map((s) => JSON.stringify({ _msg: s }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 400 }),
        fc.array(fc.integer({ min: 1, max: 9000 }), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        async (lines, sizes, queued) => {
          const bytes = new TextEncoder().encode(lines.join("\n") + "\n");
          // Cut into pieces of the given sizes (cycled), anywhere, UTF-8 sequences included.
          const ps: Uint8Array[] = [];
          for (let at = 0, k = 0; at < bytes.length; k++) {
            const n = sizes[k % sizes.length]!;
            ps.push(bytes.slice(at, at + n));
            at += n;
          }
          const deadline = new OriginDeadline(60_000);
          const got: string[] = [];
          for await (const batch of readLineBatches(deadline.guard(byteStream(ps, { queued })))) got.push(...batch);
          expect(got).toEqual(lines);
        },
      ),
      { numRuns: 200, seed: 11 },
    );
  });
});

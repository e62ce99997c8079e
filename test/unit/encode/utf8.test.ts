/** Response text written as UTF-8 byte chunks: the bytes TextEncoder gives, whatever the text and cuts. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Utf8Chunks } from "../../../src/encode/utf8";

const encode = (s: string) => [...new TextEncoder().encode(s)];

function written(pieces: string[], chunkBytes: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  const out = new Utf8Chunks(chunkBytes, (c) => chunks.push(c));
  for (const p of pieces) out.write(p);
  out.flush();
  return chunks;
}

describe("Utf8Chunks", () => {
  it("fills chunks to their size and carries a piece over into the next", () => {
    const chunks = written(["abcdef", "ghi", "jk", "lmnopqrstuvwxyz"], 8);
    expect(chunks.map((c) => new TextDecoder().decode(c))).toEqual(["abcdefgh", "ijklmnop", "qrstuvwxyz"]);
    // Each chunk stands on an array of its own: a reader taking one over leaves the others whole.
    expect(new Set(chunks.map((c) => c.buffer)).size).toBe(3);
  });

  it("keeps multi-byte characters and surrogate pairs whole across chunk boundaries", () => {
    for (const s of ["é", "x日本語", "a☕b", "😀", "a😀", "\ud800", "x\udc00y", "😀\ud800", "é".repeat(100) + "x"]) {
      for (const size of [4, 5, 7, 64]) {
        const bytes = written([s, s], size).flatMap((c) => [...c]);
        expect(bytes, `${JSON.stringify(s)} in chunks of ${size}`).toEqual(encode(s + s));
      }
    }
  });

  it("writes nothing for no text, and a piece larger than a chunk whole", () => {
    expect(written([], 16)).toEqual([]);
    expect(written([""], 16)).toEqual([]);
    const big = "日".repeat(50);
    expect(written(["a", big], 8).flatMap((c) => [...c])).toEqual(encode("a" + big));
  });

  it("gives each piece's bytes as TextEncoder gives them, for any pieces and chunk size (property)", () => {
    const unit = fc.oneof(
      fc.constantFrom("a", "\n", '"', "é", "日", "😀", "\ud83d", "\ude00", "\u0000"),
      fc.string({ unit: "binary", maxLength: 4 }),
    );
    const piece = fc.array(unit, { maxLength: 12 }).map((us) => us.join(""));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.integer({ min: 4, max: 40 }), (pieces, size) => {
        const chunks = written(pieces, size);
        // Piece by piece: a pair of surrogates split between two pieces is two lone ones (the
        // writer's pieces are JSON, which escapes lone surrogates, so none ends in half a pair).
        expect(chunks.flatMap((c) => [...c])).toEqual(pieces.flatMap(encode));
        for (const c of chunks) expect(c.length).toBeGreaterThan(0);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});

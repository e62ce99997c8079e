/** Response text as UTF-8: the bytes TextEncoder.encode gives, whatever the text holds. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Bytes } from "../../../src/encode/utf8";

const encode = (s: string) => new TextEncoder().encode(s);

describe("utf8Bytes", () => {
  it("gives an ASCII text's bytes in an array of exactly its length", () => {
    const out = utf8Bytes('{"a":"b"}');
    expect([...out]).toEqual([...encode('{"a":"b"}')]);
    expect(out.buffer.byteLength).toBe(9);
  });

  it("encodes multi-byte characters, surrogate pairs and lone surrogates as TextEncoder does", () => {
    for (const s of [
      "",
      "é",
      "x日本語",
      "a☕b",
      "😀",
      "a😀",
      "\ud800",
      "x\udc00y",
      "😀\ud800",
      "é".repeat(1000) + "x",
    ]) {
      expect([...utf8Bytes(s)], JSON.stringify(s)).toEqual([...encode(s)]);
    }
  });

  it("equals TextEncoder.encode for any text (property)", () => {
    const unit = fc.oneof(
      fc.constantFrom("a", "\n", '"', "é", "日", "😀", "\ud83d", "\ude00", "\u0000"),
      fc.string({ unit: "binary", maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), (parts) => {
        const s = parts.join("");
        expect([...utf8Bytes(s)]).toEqual([...encode(s)]);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});

/**
 * Label sets as JSON with sorted keys, the text of every stream object, metric series and tail
 * frame: the same as sorting the names and writing each name and value with JSON.stringify.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sortedLabelsJson } from "../../../src/encode/labels";
import type { Labels } from "../../../src/engine/types";

/** The reference: sort, then JSON.stringify each name and value. */
function reference(labels: Labels): string {
  const names = Object.keys(labels).sort();
  return `{${names.map((n) => `${JSON.stringify(n)}:${JSON.stringify(labels[n])}`).join(",")}}`;
}

describe("sortedLabelsJson", () => {
  it("writes names in code-unit order, escaping as JSON.stringify does", () => {
    expect(sortedLabelsJson({})).toBe("{}");
    expect(sortedLabelsJson({ b: "2", a: 'q"x', "10": "n", Z: "\u0000\ud800é" })).toBe(
      '{"10":"n","Z":"\\u0000\\ud800é","a":"q\\"x","b":"2"}',
    );
  });

  it("agrees with sorting and JSON.stringify on random label sets, large ones included (property)", () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: "grapheme" }),
      fc.constantFrom('"', "\\", "\n", "\u0000", "\u001f", "\ud800", "\udfff", "é☕", "10", "__proto__x"),
    );
    fc.assert(
      fc.property(fc.dictionary(text, text, { maxKeys: 20 }), (labels) => {
        expect(sortedLabelsJson(labels)).toBe(reference(labels));
      }),
      { numRuns: 3000, seed: 3 },
    );
  });
});

import { describe, expect, it } from "vitest";
import { goFixture } from "./fixtures";

// The comparisons below are only as strong as the fixtures: they must exist and cover every function.
describe("Go fixtures", () => {
  const expected: Record<string, Record<string, number>> = {
    "duration.json": { parseDuration: 500, durationString: 300, parsePromDuration: 300, promDurationString: 200 },
    "strconv.json": { parseFloat: 500, parseInt: 600, formatFloat: 5000, quote: 2000, unquote: 400 },
    "bytes.json": { parseBytes: 400, bytes: 300 },
  };
  for (const [file, sections] of Object.entries(expected)) {
    it(`${file} holds Go's outputs for each function`, () => {
      const data = goFixture<Record<string, unknown>>(file);
      expect((data.meta as { go: string }).go).toMatch(/^go1\./);
      for (const [name, min] of Object.entries(sections)) {
        expect((data[name] as unknown[]).length, name).toBeGreaterThanOrEqual(min);
      }
    });
  }
});

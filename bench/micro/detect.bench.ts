/**
 * Field-type detection (detected_fields) on very long values: a label_format can make 1 Mi
 * characters per entry, and detection tries Go's float, duration and bytes parsers on each. The
 * parsers' errors are built only when read, and a duration's unit is not read past its first
 * unknown rune, so one 1 MB value costs a scan, not a quoted copy in each error message (100 to
 * 300 ms a value when they were).
 */
import { bench, describe } from "vitest";
import { detectFieldType } from "../../src/engine/detected/field-type";

const VALUES = ["x", "1x", "-x", "1.5x", "9h9x"].map((p) => p + "x".repeat(1_000_000));

let sink = 0;

describe("detected field type of a 1 MB value", () => {
  for (const value of VALUES) {
    bench(`${value.slice(0, 4)}… (${value.length} chars)`, () => {
      sink += detectFieldType(value).length;
    });
  }
});

export { sink };

/** Field-type detection on very long values (a label_format can make 1 Mi characters per entry). */
import { describe, expect, it } from "vitest";
import { detectFieldType } from "../../../../src/engine/detected/field-type";
import { parseBytes } from "../../../../src/core/go/bytes";
import { parseDurationNs } from "../../../../src/core/go/duration";
import { parseFloat } from "../../../../src/core/go/strconv";

describe("detecting the type of a 1 MB value", () => {
  // What this costs is measured in bench/micro/detect.bench.ts.
  it("reads each as a string", () => {
    const values = ["x", "1x", "-x", "1.5x", "9h9x"].map((p) => p + "x".repeat(1_000_000));
    for (const v of values) expect(detectFieldType(v)).toBe("string");
  });

  it("still gives Go's message when it is read", () => {
    const float = parseFloat("1x");
    expect(float.ok ? undefined : float.error).toBe('strconv.ParseFloat: parsing "1x": invalid syntax');
    const duration = parseDurationNs("9q");
    expect(duration.ok ? undefined : duration.error).toBe('time: unknown unit "q" in duration "9q"');
    const long = parseDurationNs("9hours1s");
    expect(long.ok ? undefined : long.error).toBe('time: unknown unit "hours" in duration "9hours1s"');
    const bytes = parseBytes("1 KiBytes");
    expect(bytes.ok ? undefined : bytes.error).toBe("unhandled size name: kibytes");
    expect(parseBytes("1 KiB ")).toEqual({ ok: true, value: 1024 });
  });
});

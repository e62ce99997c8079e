import { describe, expect, it } from "vitest";
import { formatBytes, parseBytes } from "../../../../src/core/go/bytes";
import { goFixture } from "./fixtures";

const fx = goFixture<{
  parseBytes: { in: string; out?: string; err?: string }[];
  bytes: { in: string; out: string }[];
}>("bytes.json");

describe("go-humanize ParseBytes (Go fixtures)", () => {
  it("matches go-humanize on every input", () => {
    for (const c of fx.parseBytes) {
      const r = parseBytes(c.in);
      expect(r, c.in).toEqual(c.err ? { ok: false, error: c.err } : { ok: true, value: Number(c.out!) });
    }
  });
});

describe("go-humanize Bytes (Go fixtures)", () => {
  it("matches go-humanize, rounding ties of %.0f to even", () => {
    for (const c of fx.bytes) expect(formatBytes(Number(c.in)), c.in).toBe(c.out);
    expect(formatBytes(12_500)).toBe("12 kB");
  });
});

import { describe, expect, it } from "vitest";
import {
  durationSeconds,
  formatDuration,
  formatPromDuration,
  parseDuration,
  parseDurationNs,
  parseLokiDuration,
  parsePromDuration,
  timeQuote,
} from "../../../../src/core/go/duration";
import { goFixture, toBits } from "./fixtures";

interface Parse {
  in: string;
  ns?: string;
  seconds?: string;
  err?: string;
}
interface Format {
  ns: string;
  out: string;
}
const fx = goFixture<{
  parseDuration: Parse[];
  durationString: Format[];
  parsePromDuration: Parse[];
  promDurationString: Format[];
}>("duration.json");

describe("time.ParseDuration (Go fixtures)", () => {
  it("matches Go on every input, value and error text", () => {
    for (const c of fx.parseDuration) {
      const r = parseDuration(c.in);
      expect(r, c.in).toEqual(c.err ? { ok: false, error: c.err } : { ok: true, value: BigInt(c.ns!) });
    }
  });

  it("the double form is the nearest double to Go's nanoseconds", () => {
    for (const c of fx.parseDuration) {
      const r = parseDurationNs(c.in);
      expect(r, c.in).toEqual(c.err ? { ok: false, error: c.err } : { ok: true, value: Number(BigInt(c.ns!)) });
    }
  });

  it("Duration.Seconds matches Go bit for bit, from bigint and from number", () => {
    for (const c of fx.parseDuration) {
      if (c.err) continue;
      expect(toBits(durationSeconds(BigInt(c.ns!))), c.in).toBe(c.seconds);
      if (Math.abs(Number(c.ns)) <= Number.MAX_SAFE_INTEGER) {
        expect(toBits(durationSeconds(Number(c.ns))), c.in).toBe(c.seconds);
      }
    }
  });

  it("reads fractions with Go's integer arithmetic: 0.5005s is 500500000ns", () => {
    expect(parseDuration("0.5005s")).toEqual({ ok: true, value: 500_500_000n });
    expect(parseDurationNs("0.5005s")).toEqual({ ok: true, value: 500_500_000 });
    expect(parseDurationNs("500.5ms")).toEqual({ ok: true, value: 500_500_000 });
  });

  it("quotes with the time package's quoting, not strconv's", () => {
    expect(timeQuote('a"µ\n')).toBe('"a\\"\\xc2\\xb5\\x0a"');
    expect(parseDuration("5x µ").ok).toBe(false);
  });

  it("Duration.Seconds splits whole seconds and the fraction", () => {
    expect(durationSeconds(1_500_000_000n)).toBe(1.5);
    expect(durationSeconds(-(2n ** 63n))).toBe(-9223372036.854776);
  });
});

describe("Duration.String (Go fixtures)", () => {
  it("matches Go for bigint input", () => {
    for (const c of fx.durationString) expect(formatDuration(BigInt(c.ns)), c.ns).toBe(c.out);
  });
  it("matches Go for number input within the exact range", () => {
    for (const c of fx.durationString) {
      if (Math.abs(Number(c.ns)) <= Number.MAX_SAFE_INTEGER) expect(formatDuration(Number(c.ns)), c.ns).toBe(c.out);
    }
  });
});

describe("Prometheus model.ParseDuration / Duration.String (Go fixtures)", () => {
  it("parses as Prometheus does", () => {
    for (const c of fx.parsePromDuration) {
      const r = parsePromDuration(c.in);
      expect(r, c.in).toEqual(c.err ? { ok: false, error: c.err } : { ok: true, value: BigInt(c.ns!) });
    }
  });
  it("prints as Prometheus does", () => {
    for (const c of fx.promDurationString) expect(formatPromDuration(Number(c.ns)), c.ns).toBe(c.out);
  });
  it("Loki reads Prometheus forms first, then Go's", () => {
    expect(parseLokiDuration("1d")).toEqual({ ok: true, value: 86_400_000_000_000n });
    expect(parseLokiDuration("1.5h")).toEqual({ ok: true, value: 5_400_000_000_000n });
    expect(parseLokiDuration("1q")).toEqual({ ok: false, error: 'time: unknown unit "q" in duration "1q"' });
  });
});

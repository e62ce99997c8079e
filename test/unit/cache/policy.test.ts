import { describe, expect, it } from "vitest";
import { cachePolicy, fitsInKv, historicalTtlSeconds, KV_MIN_TTL_S } from "../../../src/cache/policy";

const NOW = Date.parse("2024-05-01T12:00:00Z");
const ns = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
const MIN_NS = 60_000_000_000n;
const nowNs = BigInt(NOW) * 1_000_000n;

describe("cachePolicy", () => {
  it("treats a window ending 10 minutes or more ago as historical; only those that live a day go to KV", () => {
    expect(cachePolicy({ start: ns("2024-05-01T11:00:00Z"), end: ns("2024-05-01T11:50:00Z") }, NOW)).toEqual({
      historical: true,
      maxAgeSeconds: 120,
      kv: false,
    });
    expect(cachePolicy({ start: ns("2024-05-01T08:00:00Z"), end: ns("2024-05-01T09:00:00Z") }, NOW)).toEqual({
      historical: true,
      maxAgeSeconds: 1200,
      kv: false,
    });
    expect(cachePolicy({ start: ns("2024-04-29T11:00:00Z"), end: ns("2024-04-30T11:50:00Z") }, NOW)).toEqual({
      historical: true,
      maxAgeSeconds: 86_400,
      kv: true,
    });
  });

  it("treats a window touching the last 10 minutes as recent: 30 s, no KV", () => {
    expect(cachePolicy({ start: ns("2024-05-01T11:00:00Z"), end: ns("2024-05-01T11:50:00Z") + 1n }, NOW)).toEqual({
      historical: false,
      maxAgeSeconds: 30,
      kv: false,
    });
    expect(cachePolicy({ start: ns("2024-05-01T11:00:00Z"), end: ns("2024-05-01T12:05:00Z") }, NOW).kv).toBe(false);
  });
});

describe("historicalTtlSeconds", () => {
  it("grades by how long ago the window ended: < 1 h two minutes, < 6 h twenty minutes, else a day", () => {
    const ttlEndedAgo = (minutes: bigint) => historicalTtlSeconds(nowNs - minutes * MIN_NS, NOW);
    expect(ttlEndedAgo(10n)).toBe(120);
    expect(ttlEndedAgo(59n)).toBe(120);
    expect(ttlEndedAgo(60n)).toBe(1200);
    expect(ttlEndedAgo(140n)).toBe(1200);
    expect(ttlEndedAgo(359n)).toBe(1200);
    expect(ttlEndedAgo(360n)).toBe(86_400);
    expect(ttlEndedAgo(100_000n)).toBe(86_400);
  });

  it("never goes below KV's minimum expirationTtl and never shrinks as a window ages", () => {
    let previous = 0;
    for (let minutes = 10n; minutes < 3000n; minutes += 7n) {
      const ttl = historicalTtlSeconds(nowNs - minutes * MIN_NS, NOW);
      expect(ttl).toBeGreaterThanOrEqual(KV_MIN_TTL_S);
      expect(ttl).toBeGreaterThanOrEqual(previous);
      previous = ttl;
    }
  });
});

describe("fitsInKv", () => {
  it("accepts bodies up to 20 MiB of UTF-8 and refuses larger ones", () => {
    expect(fitsInKv("x".repeat(20 * 1024 * 1024))).toBe(true);
    expect(fitsInKv("x".repeat(20 * 1024 * 1024 + 1))).toBe(false);
    // 7 Mi three-byte characters: 21 MiB of UTF-8 from only 7 Mi UTF-16 units.
    expect(fitsInKv("€".repeat(7 * 1024 * 1024))).toBe(false);
  });
});

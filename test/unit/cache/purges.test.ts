/**
 * Operator purges: a record voids only the named tenant's entries whose window overlaps it and that
 * were asked of the origin before it; a record that cannot be read voids everything before it.
 */
import { describe, expect, it, vi } from "vitest";
import { kvPurgeLog, type PurgeKv, voidedBy } from "../../../src/cache/purges";
import { stamped, unstamped } from "../../../src/cache/stamp";

/** An in-memory KV. */
function memoryKv(): PurgeKv & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    get: async (key) => data.get(key) ?? null,
    async put(key, value, options) {
      expect(options.expirationTtl).toBeGreaterThan(24 * 3600);
      data.set(key, value);
    },
  };
}

const A = { accountId: 7, projectId: 0 };
const B = { accountId: 8, projectId: 0 };

describe("voidedBy", () => {
  const records = [{ start: 100n, end: 200n, atMs: 5000 }];
  it("voids entries asked before the purge whose window overlaps its range", () => {
    expect(voidedBy(records, { start: 150n, end: 400n }, 4999)).toBe(true);
    expect(voidedBy(records, { start: 0n, end: 101n }, 5000)).toBe(true);
  });
  it("keeps entries asked after it, and entries whose window does not overlap", () => {
    expect(voidedBy(records, { start: 150n, end: 400n }, 5001)).toBe(false);
    expect(voidedBy(records, { start: 200n, end: 300n }, 1)).toBe(false);
    expect(voidedBy(records, { start: 0n, end: 100n }, 1)).toBe(false);
  });
});

describe("kvPurgeLog", () => {
  it("keeps each tenant's purges apart, under a key that does not name the tenant", async () => {
    const kv = memoryKv();
    const log = kvPurgeLog(kv);
    for (let i = 0; i < 3; i++) await log.purge(A, { start: BigInt(i), end: BigInt(i + 10) }, 1000 + i);
    expect((await log.recordsOf(A)).map((r) => r.atMs).sort()).toEqual([1000, 1001, 1002]);
    expect(await log.recordsOf(B)).toEqual([]);
    expect(kv.data.size).toBe(1);
    for (const key of kv.data.keys()) expect(key).toMatch(/^purge:v1:[0-9a-f]{64}$/);
  });

  it("reads a value it cannot parse as voiding everything asked before it was read", async () => {
    const kv = memoryKv();
    const tenant = { accountId: 9, projectId: 1 };
    await kvPurgeLog(kv).purge(tenant, { start: 1n, end: 2n }, 10);
    const [key] = [...kv.data.keys()];
    kv.data.set(key!, '[["1","bogus",10]]');
    // Half a minute later the isolate reads the tenant's purges again.
    const later = Date.now() + 31_000;
    vi.spyOn(Date, "now").mockReturnValue(later);
    try {
      const records = await kvPurgeLog(kv).recordsOf(tenant);
      expect(voidedBy(records, { start: 500n, end: 600n }, later - 1)).toBe(true);
      expect(voidedBy(records, { start: 500n, end: 600n }, later + 1)).toBe(false);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("drops records no entry can outlive when it records a new one", async () => {
    const kv = memoryKv();
    const log = kvPurgeLog(kv);
    const tenant = { accountId: 10, projectId: 0 };
    const day = 86_400_000;
    await log.purge(tenant, { start: 0n, end: 1n }, 1_000_000);
    await log.purge(tenant, { start: 0n, end: 1n }, 1_000_000 + 2 * day);
    expect((await log.recordsOf(tenant)).map((r) => r.atMs)).toEqual([1_000_000 + 2 * day]);
  });
});

describe("stamps", () => {
  it("read back what they wrote, and refuse text that is not a stamped entry", () => {
    const text = stamped('{"a":"e1 1 2\\n"}', { expiresAtMs: 123, askedAtMs: 45 });
    expect(unstamped(text)).toEqual({ body: '{"a":"e1 1 2\\n"}', stamp: { expiresAtMs: 123, askedAtMs: 45 } });
    for (const bad of ['{"rows":[]}', "e1 x 1\n{}", "e2 1 2\n{}", "e1 1\n{}", ""])
      expect(unstamped(bad)).toBeUndefined();
  });
});

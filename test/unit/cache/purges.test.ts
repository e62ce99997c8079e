/**
 * Operator purges: a record voids only the named tenant's entries whose window overlaps it and that
 * were asked of the origin before it; a record that cannot be read voids everything before it.
 */
import { describe, expect, it } from "vitest";
import { kvPurgeLog, type PurgeKv, type RecordMetadata, voidedBy } from "../../../src/cache/purges";
import { stamped, unstamped } from "../../../src/cache/stamp";

/** An in-memory KV with prefix listing, pages of two keys (so the cursor is followed). */
function memoryKv(): PurgeKv & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    async list({ prefix, cursor }) {
      const names = [...data.keys()].filter((k) => k.startsWith(prefix)).sort();
      const from = cursor ? Number(cursor) : 0;
      const keys = names.slice(from, from + 2).map((name) => ({ name, metadata: data.get(name) }));
      const complete = from + 2 >= names.length;
      return { keys, list_complete: complete, cursor: complete ? undefined : String(from + 2) };
    },
    async put(key, _value, options: { metadata: RecordMetadata; expirationTtl: number }) {
      expect(options.expirationTtl).toBeGreaterThan(24 * 3600);
      data.set(key, options.metadata);
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
  it("keeps each tenant's purges apart, under keys that do not name the tenant", async () => {
    const kv = memoryKv();
    const log = kvPurgeLog(kv);
    for (let i = 0; i < 3; i++) await log.purge(A, { start: BigInt(i), end: BigInt(i + 10) }, 1000 + i);
    expect((await log.recordsOf(A)).map((r) => r.atMs).sort()).toEqual([1000, 1001, 1002]);
    expect(await log.recordsOf(B)).toEqual([]);
    for (const key of kv.data.keys()) expect(key).toMatch(/^purge:v1:[0-9a-f]{64}:\d{15}-[0-9a-f-]{36}$/);
  });

  it("reads a record it cannot parse as voiding everything before it", async () => {
    const kv = memoryKv();
    const tenant = { accountId: 9, projectId: 1 };
    await kvPurgeLog(kv).purge(tenant, { start: 1n, end: 2n }, 10);
    const [key] = [...kv.data.keys()];
    kv.data.set(key!, { start: "1", end: "bogus", at: 10 });
    const records = await kvPurgeLog(kv).recordsOf(tenant);
    expect(voidedBy(records, { start: 500n, end: 600n }, Date.now())).toBe(true);
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

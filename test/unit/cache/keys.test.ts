import { describe, expect, it } from "vitest";
import { cacheKey, canonicalForm, keyMaterial } from "../../../src/cache/keys";
import type { JsonRequest } from "../../../src/origin/client";

const ORIGIN = { baseUrl: "http://vl.example:9428" };

function req(over: Partial<JsonRequest> = {}): JsonRequest {
  return {
    path: "/select/logsql/stream_field_names",
    form: [
      ["query", "_time:[2024-05-01T10:00:00Z, 2024-05-01T11:00:00Z) *"],
      ["start", "2024-05-01T10:00:00Z"],
      ["end", "2024-05-01T11:00:00Z"],
    ],
    tenant: { accountId: 0, projectId: 0 },
    window: { start: 1714557600000000000n, end: 1714561200000000000n },
    ...over,
  };
}

describe("canonicalForm", () => {
  it("sorts by name then value and percent-encodes both", () => {
    expect(
      canonicalForm([
        ["query", "a b&c"],
        ["field", "z"],
        ["field", "a"],
      ]),
    ).toBe("field=a&field=z&query=a%20b%26c");
  });
  it("cannot confuse a value containing separators with two fields", () => {
    expect(canonicalForm([["a", "1&b=2"]])).not.toBe(
      canonicalForm([
        ["a", "1"],
        ["b", "2"],
      ]),
    );
  });
});

describe("cacheKey", () => {
  it("is a 64-digit hex SHA-256", async () => {
    expect(await cacheKey(ORIGIN, req())).toMatch(/^[0-9a-f]{64}$/);
  });

  it("does not depend on form field order", async () => {
    const a = req();
    const b = req({ form: [...a.form].reverse() });
    expect(await cacheKey(ORIGIN, b)).toBe(await cacheKey(ORIGIN, a));
  });

  it("never lets two tenants share an entry", async () => {
    const keys = await Promise.all([
      cacheKey(ORIGIN, req({ tenant: { accountId: 0, projectId: 0 } })),
      cacheKey(ORIGIN, req({ tenant: { accountId: 1, projectId: 0 } })),
      cacheKey(ORIGIN, req({ tenant: { accountId: 0, projectId: 1 } })),
      // "1:23" vs "12:3" would collide in a naive concatenation.
      cacheKey(ORIGIN, req({ tenant: { accountId: 1, projectId: 23 } })),
      cacheKey(ORIGIN, req({ tenant: { accountId: 12, projectId: 3 } })),
    ]);
    expect(new Set(keys).size).toBe(5);
  });

  it("differs by path, window, form values and origin", async () => {
    const base = await cacheKey(ORIGIN, req());
    const variants = await Promise.all([
      cacheKey(ORIGIN, req({ path: "/select/logsql/stream_field_values" })),
      cacheKey(ORIGIN, req({ window: { start: 1714557600000000000n, end: 1714561200000000001n } })),
      cacheKey(ORIGIN, req({ form: [...req().form, ["field", "app"]] })),
      cacheKey({ baseUrl: "http://other-vl:9428" }, req()),
    ]);
    for (const v of variants) expect(v).not.toBe(base);
    expect(new Set(variants).size).toBe(variants.length);
  });

  it("differs by the origin credential, without the credential itself in the key or its material", async () => {
    const secret = "Basic c2VjcmV0LXBhc3M=";
    const keys = await Promise.all([
      cacheKey(ORIGIN, req()),
      cacheKey({ ...ORIGIN, authorization: secret }, req()),
      cacheKey({ ...ORIGIN, authorization: "Basic b3RoZXI=" }, req()),
      cacheKey({ ...ORIGIN, authorization: "" }, req()),
    ]);
    expect(new Set(keys).size).toBe(4);
    expect(await cacheKey({ ...ORIGIN, authorization: secret }, req())).toBe(keys[1]);
    const material = await keyMaterial({ ...ORIGIN, authorization: secret }, req());
    expect(material).not.toContain("c2VjcmV0");
    expect(material).toMatch(/"[0-9a-f]{64}"/);
  });

  it("contains nothing readable from the request", async () => {
    const key = await cacheKey(ORIGIN, req({ tenant: { accountId: 4242, projectId: 7 } }));
    expect(key).not.toContain("4242");
  });
});

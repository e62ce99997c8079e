/**
 * Cache keys name queries by logql/ast-key.ts: two trees share a key exactly when they are equal,
 * field for field, numbers bit for bit. The canonical printer rounds (`1549B` and `1500B` both
 * print `1.5kB`), which is why keys must not be built from printed text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { astKey } from "../../../src/logql/ast-key";
import { parseUncached } from "../../../src/logql/parser";
import { printExpr } from "../../../src/logql/printer";
import cases from "../../fixtures/compat/cases.json";

/** Structural equality where numbers are equal only when they are the same double (Object.is). */
function sameTree(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    return a.length === bs.length && a.every((x, i) => sameTree(x, bs[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => k in rb && sameTree(ra[k], rb[k]));
}

/** Plain tree-shaped data of every kind a syntax tree holds, with the awkward values over-represented. */
const leaf = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.constantFrom("", "#1", "n1", "T", "U", "N", '"', ",", ":", "}", "]", "1.5kB", "é", "\u{1F600}", "\ud800"),
  fc.double(),
  fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1e-7, 4e-7, 3e-7, 1549, 1500, 0.1 + 0.2, 0.3),
  fc.bigInt(),
  fc.boolean(),
  fc.constant(null),
);
const { tree } = fc.letrec<{ tree: unknown }>((rec) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(rec("tree"), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.string({ unit: "binary", maxLength: 4 }), fc.constantFrom("kind", "type", "value", "text")),
      rec("tree"),
      {
        maxKeys: 4,
      },
    ),
  ),
}));

const bytesUnit = fc.constantFrom("B", "kB", "KB", "KiB", "MB", "MiB", "GB");
const durationUnit = fc.constantFrom("ns", "us", "µs", "ms", "s", "m", "h");
const decimal = fc
  .tuple(fc.nat({ max: 99_999 }), fc.option(fc.nat({ max: 9_999_999 }), { nil: undefined }))
  .map(([i, f]) => (f === undefined ? String(i) : `${i}.${f}`));
const text = fc.string({ unit: fc.constantFrom("a", "é", "\u{1F600}", "\u00a0", "x", "1", ".", "*", "\\\\", " ") });

/** LogQL queries that differ mostly in their literals (bytes, durations, floats, regexes, strings). */
const query = fc.oneof(
  fc.tuple(decimal, bytesUnit).map(([n, u]) => `{app="a"} | logfmt | size > ${n}${u}`),
  fc.tuple(decimal, durationUnit).map(([n, u]) => `{app="a"} | logfmt | took >= ${n}${u}`),
  fc.tuple(decimal, bytesUnit).map(([n, u]) => `sum(count_over_time({app="a"} | logfmt | size > ${n}${u} [5m]))`),
  decimal.map((n) => `vector(0.${n.replace(".", "")})`),
  decimal.map((n) => `sum(rate({app="a"}[1m])) > ${n}`),
  decimal.map((n) => `quantile_over_time(0.${n.replace(".", "")}, {app="a"} | unwrap x [1m])`),
  fc.tuple(fc.integer({ min: 1, max: 100_000 }), durationUnit).map(([n, u]) => `count_over_time({app="a"}[${n}${u}])`),
  text.map((s) => `{app="a"} |= ${JSON.stringify(s)}`),
  text.map((s) => `{app=~${JSON.stringify(s.replace(/[\\*]/g, ""))}}`),
  text.map((s) => `{app="a"} | label_format x=${JSON.stringify(s)}`),
);

/** Two queries from one template with nearby literals: the printer often rounds them to one text. */
const nearPair = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1000, max: 1100 }), fc.integer({ min: 1000, max: 1100 }), fc.boolean())
    .map(([a, b, metric]) =>
      [a, b].map((n) => (metric ? `sum(count_over_time({app="a"} | size > ${n}B [5m]))` : `{app="a"} | size > ${n}B`)),
    ),
  fc
    .tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }))
    .map((p) => p.map((n) => `vector(0.000000${n})`)),
  fc
    .tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }))
    .map((p) => p.map((n) => `sum(rate({app="a"}[1m])) > 0.000000${n}`)),
);

function parsed(q: string) {
  try {
    return parseUncached(q);
  } catch {
    return undefined;
  }
}

describe("astKey", () => {
  it("names the rounding cases of the issue apart", () => {
    const pairs = [
      ['{app="a"} | size > 1549B', '{app="a"} | size > 1500B'],
      ['sum(count_over_time({app="a"} | size > 1549B [5m]))', 'sum(count_over_time({app="a"} | size > 1500B [5m]))'],
      ["vector(0.0000004)", "vector(0.0000003)"],
    ];
    for (const [a, b] of pairs) {
      const ea = parseUncached(a!);
      const eb = parseUncached(b!);
      // The printed forms collide (the reason for this module)...
      expect(printExpr(ea), `${a} / ${b}`).toBe(printExpr(eb));
      // ...the keys do not.
      expect(astKey(ea), `${a} / ${b}`).not.toBe(astKey(eb));
    }
  });

  it("is equal for equal trees and different for different ones (any plain tree)", () => {
    fc.assert(
      fc.property(tree, tree, (a, b) => {
        expect(astKey(a) === astKey(b)).toBe(sameTree(a, b));
        expect(astKey(a)).toBe(astKey(structuredClone(a)));
      }),
      { numRuns: 2000 },
    );
  });

  it("is equal for equal parsed queries and different for different ones", () => {
    fc.assert(
      fc.property(query, query, (qa, qb) => {
        const a = parsed(qa);
        const b = parsed(qb);
        fc.pre(a !== undefined && b !== undefined);
        expect(astKey(a) === astKey(b), `${qa} / ${qb}`).toBe(sameTree(a, b));
        // Parsing the same text twice gives the same key.
        expect(astKey(parseUncached(qa))).toBe(astKey(a));
      }),
      { numRuns: 3000 },
    );
  });

  it("tells apart literals whose printed forms are equal", () => {
    let collisions = 0;
    fc.assert(
      fc.property(nearPair, ([qa, qb]) => {
        const a = parsed(qa!);
        const b = parsed(qb!);
        fc.pre(a !== undefined && b !== undefined && !sameTree(a, b));
        if (printExpr(a) === printExpr(b)) collisions++;
        expect(astKey(a)).not.toBe(astKey(b));
      }),
      { numRuns: 3000 },
    );
    // The generator does reach the printer's rounding (otherwise this test would prove little).
    expect(collisions).toBeGreaterThan(0);
  });

  it("keys every query of the compat corpus, and tells apart those that differ", () => {
    const byKey = new Map<string, unknown>();
    for (const c of cases as unknown as { params: { query?: unknown } }[]) {
      if (typeof c.params.query !== "string") continue;
      const tree = parsed(c.params.query);
      if (tree === undefined) continue;
      const key = astKey(tree);
      const seen = byKey.get(key);
      if (seen !== undefined) expect(sameTree(seen, tree), c.params.query).toBe(true);
      byKey.set(key, tree);
    }
    expect(byKey.size).toBeGreaterThan(50);
  });

  it("keeps node kinds, absent fields and value types apart", () => {
    expect(astKey({ kind: "Literal", value: 1 })).not.toBe(astKey({ kind: "Vector", value: 1 }));
    expect(astKey({ value: 1 })).not.toBe(astKey({ value: "1" }));
    expect(astKey({ value: 1 })).not.toBe(astKey({ value: 1n }));
    expect(astKey({ value: 0 })).not.toBe(astKey({ value: -0 }));
    expect(astKey({ a: undefined, b: 1 })).toBe(astKey({ b: 1 }));
    expect(astKey(["a,b"])).not.toBe(astKey(["a", "b"]));
    expect(() => astKey({ re: /x/ })).toThrow();
    expect(() => astKey({ f: () => 1 })).toThrow();
  });
});

/**
 * The unwrap push-downs' property tests on the compat data: `shapes` wrapped around
 * `selector | json | unwrap field [range]` (with or without `| __error__=""`, an offset, any
 * step), each answered pushed and from whole lines (PUSHDOWN=off), which must agree; the range
 * property must also have pushed at least `minPushed` of its queries, so that it compares the
 * push-down itself and not only its fallback.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { pushedAndLocal } from "./metric-answers";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;

export interface UnwrapProperties {
  selectors: string[];
  shapes: ((inner: string) => string)[];
  range: { numRuns: number; seed: number; minPushed: number };
  instant: { numRuns: number; seed: number };
}

/** Registers the range and instant properties (in the enclosing `describe`). */
export function unwrapProperties({ selectors, shapes, range, instant }: UnwrapProperties): void {
  const selector = fc.constantFrom(...selectors);
  const field = fc.constantFrom("bytes", "status", "latency_ms", "nope");
  const shape = fc.constantFrom(...shapes);
  const errorFilter = fc.constantFrom("", ' | __error__=""');
  const seconds = fc.constantFrom(60, 300, 600, 1800, 3600);

  it("range queries (property)", async () => {
    let pushedCount = 0;
    await fc.assert(
      fc.asyncProperty(
        selector,
        field,
        shape,
        errorFilter,
        seconds,
        seconds,
        fc.integer({ min: 0, max: 4 * 3600 }),
        fc.constantFrom(0, 0, 1800),
        async (sel, f, wrap, errf, rangeSeconds, step, startOffset, offset) => {
          const start = DATA_START + startOffset;
          const end = Math.min(DATA_END, start + step * 60);
          const off = offset ? ` offset ${offset}s` : "";
          const query = wrap(`${sel} | json | unwrap ${f}${errf} [${rangeSeconds}s]${off}`);
          const { pushed } = await pushedAndLocal(query, {
            start: String(start),
            end: String(end),
            step: String(step),
          });
          if (pushed.linesScanned === 0) pushedCount++;
        },
      ),
      { numRuns: range.numRuns, seed: range.seed },
    );
    expect(pushedCount).toBeGreaterThan(range.minPushed);
  });

  it("instant queries (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        selector,
        field,
        shape,
        seconds,
        fc.integer({ min: 600, max: 6 * 3600 }),
        async (sel, f, wrap, r, at) => {
          await pushedAndLocal(wrap(`${sel} | json | unwrap ${f} [${r}s]`), { time: String(DATA_START + at) });
        },
      ),
      { numRuns: instant.numRuns, seed: instant.seed },
    );
  });
}

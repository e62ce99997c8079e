/**
 * Projected samples and their guard: the samples stream while the guard runs; once the guard has
 * found a row, a sub-window reads no further (its request ends) and a sub-window not yet started
 * asks the origin nothing. Equality with local evaluation against the real origin is proved in
 * test/worker/unwrap-pushdown.test.ts; here the origin is a stand-in.
 */
import { describe, expect, it } from "vitest";
import type { OriginClient } from "../../../src/origin/client";
import type { VLRow } from "../../../src/origin/rows";
import { projectedSamples, projectionGuard } from "../../../src/exec/unwrap-projection";
import type { UnwrapProjection } from "../../../src/plan/unwrap-projection";
import type { ExtractedSample } from "../../../src/engine/types";

const projection: UnwrapProjection = {
  rows: "rows",
  guard: "guard",
  valueField: "__unwrap_v",
  groupBy: ["pod"],
  streams: [{ name: "app", op: "=", value: "x" }],
};
const window = { start: 0n, end: 10n };
const stats = () => ({ rowsScanned: 0, bytesScanned: 0, subqueries: 0 });

/**
 * An origin whose guard answers `guardRows` once `answer` resolves, and whose rows come in `batches`;
 * its selected streams have the labels `streamLabels`.
 */
function origin(batches: string[][], guardRows: VLRow[], answer: Promise<void>, streamLabels = ["app", "pod"]) {
  const read: number[] = [];
  const guards: number[] = [];
  const client = {
    values: () => Promise.resolve({ values: streamLabels.map((value) => ({ value, hits: 1 })) }),
    async *queryBatches() {
      guards.push(1);
      await answer;
      yield guardRows;
    },
    async *queryPicked() {
      for (const [i, batch] of batches.entries()) {
        read.push(i);
        yield batch;
      }
    },
  } as unknown as OriginClient;
  return { client, read, guards };
}

const batch = (t: string, v: string, pod: string) => [t, v, pod];

async function drain(samples: AsyncIterable<ExtractedSample[]>): Promise<ExtractedSample[]> {
  const out: ExtractedSample[] = [];
  for await (const b of samples) out.push(...b);
  return out;
}

describe("projectedSamples", () => {
  it("yields every row's sample once the guard found nothing", async () => {
    const { client } = origin(
      [batch("2026-02-01T00:00:01Z", "1.5", "a"), batch("2026-02-01T00:00:02Z", "7", "")],
      [],
      Promise.resolve(),
    );
    const guard = projectionGuard(client, projection, window);
    const s = stats();
    const samples = await drain(projectedSamples(client, projection, window, s, guard));
    expect(samples.map((x) => [x.value, x.labels])).toEqual([
      [1.5, { pod: "a" }],
      [7, {}],
    ]);
    expect(await guard.found).toBe(false);
    expect(guard.refused).toBe(false);
    expect(s).toEqual({ rowsScanned: 2, bytesScanned: 4, subqueries: 1 });
  });

  it("stops reading once the guard found a row, without an error", async () => {
    const { client, read } = origin(
      [batch("2026-02-01T00:00:01Z", "1", "a"), batch("2026-02-01T00:00:02Z", "2", "a")],
      [{ _time: "2026-02-01T00:00:01Z" }],
      Promise.resolve(),
    );
    const guard = projectionGuard(client, projection, window);
    expect(await guard.found).toBe(true);
    expect(guard.refused).toBe(true);
    const s = stats();
    // A sub-window started after the guard answered asks the origin nothing.
    expect(await drain(projectedSamples(client, projection, window, s, guard))).toEqual([]);
    expect(read).toEqual([]);
    expect(s.subqueries).toBe(0);
  });

  it("leaves a sub-window's loop at the batch after the guard's answer", async () => {
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const { client, read } = origin(
      [
        batch("2026-02-01T00:00:01Z", "1", "a"),
        batch("2026-02-01T00:00:02Z", "2", "a"),
        batch("2026-02-01T00:00:03Z", "3", "a"),
      ],
      [{ _time: "2026-02-01T00:00:01Z" }],
      answered,
    );
    const guard = projectionGuard(client, projection, window);
    const samples = projectedSamples(client, projection, window, stats(), guard);
    expect((await samples.next()).value).toHaveLength(1);
    answer();
    await guard.found;
    expect((await samples.next()).done).toBe(true);
    // The second batch was fetched, found void, and the third never asked for.
    expect(read).toEqual([0, 1]);
  });

  it("refuses before any row is read when no selected stream has a grouped label", async () => {
    const { client, read, guards } = origin([batch("2026-02-01T00:00:01Z", "1", "")], [], new Promise(() => {}), [
      "app",
    ]);
    const guard = projectionGuard(client, projection, window);
    const s = stats();
    // Started at once, as the evaluation starts it: it waits for the stream index, then stops.
    expect(await drain(projectedSamples(client, projection, window, s, guard))).toEqual([]);
    expect(await guard.found).toBe(true);
    expect(read).toEqual([]);
    expect(guards).toEqual([]);
  });
});

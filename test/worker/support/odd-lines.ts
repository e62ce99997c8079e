/**
 * Streams of plain lines with a few odd ones placed among them (lines a push-down's guard must
 * match, or whose groups it cannot settle), and the check the tests of rows read back make: the
 * pushed answer equals the Worker's own evaluation of every row (push-down off), and the push-down
 * read exactly the odd lines it should.
 */
import { expect } from "vitest";
import { askMetric, expectSameAnswer, pushCounted } from "./metric-answers";
import type { Env } from "../../../src/config";

/** A line, or a line with its structured metadata. */
export type Line = string | [string, Record<string, string>];

/** Lines per stream, 10 s apart from the data's start. */
export const LINES = 36;

/**
 * Pushes one stream per set (labels `app` and `set`) of LINES lines 10 s apart from `start` (unix
 * seconds): `odd[set][i]` where given, else `plain[set](i)`.
 */
export async function pushOddLines(
  tenant: string,
  app: string,
  start: number,
  plain: Record<string, (i: number) => string>,
  odd: Record<string, Record<number, Line>>,
  vars: Partial<Env> = {},
): Promise<void> {
  const base = BigInt(start) * 1_000_000_000n;
  const streams = Object.entries(plain).map(([set, line]) => ({
    stream: { app, set },
    values: Array.from({ length: LINES }, (_, i) => {
      const ts = String(base + BigInt(i * 10) * 1_000_000_000n);
      const l = odd[set]?.[i] ?? line(i);
      return typeof l === "string" ? [ts, l] : [ts, l[0], l[1]];
    }),
  }));
  await pushCounted(tenant, app, streams, start, vars);
}

/**
 * `query` answered pushed and local: the same answer, some series, and `read` lines read by the
 * push-down; with `every`, the local evaluation read every line.
 */
export async function expectReadBack(
  query: string,
  params: Record<string, string>,
  headers: Record<string, string>,
  read: number,
  { vars = {}, every = false }: { vars?: Partial<Env>; every?: boolean } = {},
): Promise<void> {
  const [pushed, local] = await Promise.all([
    askMetric(query, params, true, headers, false, vars),
    askMetric(query, params, false, headers, false, vars),
  ]);
  expectSameAnswer(pushed, local, query);
  expect(local.series.size, query).toBeGreaterThan(0);
  expect(pushed.linesScanned, query).toBe(read);
  if (every) expect(local.linesScanned, query).toBe(LINES);
}

/**
 * Each range query of `queries` again as an instant query over five minutes at `start` + 300 s,
 * whose window holds lines 1 to 30: the push-down reads the odd ones among them.
 */
export async function expectInstantReadBack(
  queries: readonly (readonly [string, readonly number[]])[],
  start: number,
  headers: Record<string, string>,
): Promise<void> {
  const at = { time: String(start + 300) };
  for (const [query, odd] of queries) {
    const instant = query.replace(/\[(1m|2m)\]/, "[5m]");
    await expectReadBack(instant, at, headers, odd.filter((i) => i >= 1 && i <= 30).length);
  }
}

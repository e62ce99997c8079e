/**
 * What one query_range cost the origin, read from the Worker's own telemetry line (the one an
 * operator sees): origin bytes, rows scanned in the Worker and the duration, with the results
 * cache off and push-down on or off.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { expect, vi } from "vitest";
import { createApp } from "../../../src/app";
import type { Env } from "../../../src/config";
import { GATEWAY } from "./gateway";

export interface Traffic {
  /** Origin requests the query made. */
  requests: number;
  originBytes: number;
  rows: number;
  ms: number;
}

export async function queryTraffic(
  query: string,
  params: Record<string, string>,
  pushdown: boolean,
  vars: Partial<Env> = {},
  headers: Record<string, string> = {},
): Promise<Traffic> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
  const ctx = createExecutionContext();
  try {
    const res = await createApp().fetch(
      new Request(`http://loki.test/loki/api/v1/query_range?${new URLSearchParams({ query, ...params })}`, {
        headers: { ...GATEWAY, ...headers },
      }),
      { ...(env as Env), ...vars, CACHE: "off", PUSHDOWN: pushdown ? "on" : "off" },
      ctx,
    );
    expect(res.status, await res.text()).toBe(200);
    await waitOnExecutionContext(ctx);
  } finally {
    spy.mockRestore();
  }
  const line = lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l))[0];
  return {
    requests: line.origin.requests as number,
    originBytes: line.origin.bytes as number,
    rows: line.scanned.rows as number,
    ms: line.durationMs as number,
  };
}

/**
 * A push-down's traffic against the same query evaluated from rows: pushed, the Worker reads no row
 * and the origin sends under a fifth of the bytes; local, at least `localRows` rows were read (else
 * the comparison proves nothing). Logs both, for the record.
 */
export async function expectBucketsNotLines(
  query: string,
  params: Record<string, string>,
  localRows: { atLeast: number } | { exactly: number } = { atLeast: 10_001 },
  headers: Record<string, string> = {},
): Promise<void> {
  const local = await queryTraffic(query, params, false, {}, headers);
  const pushed = await queryTraffic(query, params, true, {}, headers);
  console.info(
    `${query}: origin bytes ${local.originBytes} -> ${pushed.originBytes}, rows ${local.rows} -> ${pushed.rows}, ${local.ms} -> ${pushed.ms} ms`,
  );
  if ("exactly" in localRows) expect(local.rows, query).toBe(localRows.exactly);
  else expect(local.rows, query).toBeGreaterThanOrEqual(localRows.atLeast);
  expect(pushed.rows, query).toBe(0);
  expect(pushed.originBytes * 5, query).toBeLessThan(local.originBytes);
}

/**
 * A log query answered by the Worker (in workerd, against the test VictoriaLogs, results cache
 * off) with push-down on or off, and the comparison of the two: the origin filters sent for log
 * queries must only ever remove rows the Worker's own stages drop.
 */
import { expect } from "vitest";
import { queryRange } from "./request";

export interface LogAnswer {
  status: number;
  /** Each entry as `labels line time`, sorted: the answer's content, whatever the stream order. */
  entries: string[];
  /** The entries' lines alone, sorted. */
  lines: string[];
  linesScanned: number;
  body: string;
}

export async function askLogs(
  query: string,
  params: Record<string, string>,
  pushdown: boolean,
  headers = {},
): Promise<LogAnswer> {
  const res = await queryRange(
    { query, ...params },
    { headers, env: { PUSHDOWN: pushdown ? "on" : "off", CACHE: "off" } },
  );
  const entries: string[] = [];
  const lines: string[] = [];
  if (res.status === 200 && res.json.data.resultType === "streams") {
    for (const s of res.json.data.result) {
      const labels = JSON.stringify(Object.entries(s.stream).sort());
      for (const [t, line] of s.values) {
        entries.push(`${labels} ${JSON.stringify(line)} ${t}`);
        lines.push(line);
      }
    }
  } else if (res.status === 200) {
    for (const s of res.json.data.result) entries.push(JSON.stringify([s.metric, s.values ?? s.value]));
  }
  return {
    status: res.status,
    entries: entries.sort(),
    lines: lines.sort(),
    linesScanned: res.status === 200 ? res.json.data.stats.summary.totalLinesProcessed : -1,
    body: res.body,
  };
}

/** The query answered with push-down on and off, at once; the two answers must be the same. */
export async function bothLogs(query: string, params: Record<string, string>, headers = {}) {
  const [pushed, local] = await Promise.all([
    askLogs(query, params, true, headers),
    askLogs(query, params, false, headers),
  ]);
  expect(pushed.status, `${query}: ${pushed.body.slice(0, 300)}`).toBe(local.status);
  expect(pushed.entries, query).toEqual(local.entries);
  return { pushed, local };
}

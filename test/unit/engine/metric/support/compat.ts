/**
 * Reads the Loki compatibility corpus kept in the repository (test/fixtures/compat) for golden tests:
 * the cases, the answers real Loki gave, and the dataset as rows. The corpus is part of every clone,
 * so a missing file is a failure (readFileSync throws), never a reason to skip.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import type { LogRow } from "../../../../../src/engine/types";

export const COMPAT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../fixtures/compat");

export interface CompatCase {
  id: string;
  path: string;
  params: Record<string, string | string[]>;
}

export interface Golden {
  status: number;
  json?: { data: { resultType: string; result: unknown } };
  text?: string;
}

export function loadCases(): CompatCase[] {
  return JSON.parse(readFileSync(resolve(COMPAT_DIR, "cases.json"), "utf8")) as CompatCase[];
}

export function loadGolden(id: string): Golden {
  return JSON.parse(readFileSync(resolve(COMPAT_DIR, "golden", `${id}.json`), "utf8")) as Golden;
}

/** One stream of the dataset with its rows sorted by time. */
export interface DatasetStream {
  labels: Record<string, string>;
  rows: LogRow[];
}

let cached: DatasetStream[] | undefined;

export function loadDataset(): DatasetStream[] {
  if (cached) return cached;
  const text = gunzipSync(readFileSync(resolve(COMPAT_DIR, "dataset-seed7.ndjson.gz"))).toString("utf8");
  const byKey = new Map<string, DatasetStream>();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const body = JSON.parse(line) as {
      streams: Array<{ stream: Record<string, string>; values: Array<[string, string, Record<string, string>?]> }>;
    };
    for (const s of body.streams) {
      const key = JSON.stringify(Object.entries(s.stream).sort());
      let stream = byKey.get(key);
      if (!stream) {
        stream = { labels: s.stream, rows: [] };
        byKey.set(key, stream);
      }
      for (const [ts, msg, meta] of s.values) {
        stream.rows.push({ ts: BigInt(ts), line: msg, stream: s.stream, metadata: meta ?? {} });
      }
    }
  }
  cached = [...byKey.values()];
  for (const s of cached) s.rows.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
  return cached;
}

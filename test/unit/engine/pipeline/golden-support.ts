/**
 * Reference harness for the log pipeline against real Loki answers: loads the compat dataset,
 * selects rows as Loki's query would (stream matchers, start <= ts < end), runs the pipeline,
 * applies direction and limit, and renders entries the way the goldens are compared.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import path from "node:path";
import type { Matcher, PipelineStage } from "../../../../src/logql/ast";
import type { Labels, LogEntry, LogRow } from "../../../../src/engine/types";
import { compileLogPipeline } from "../../../../src/engine/pipeline";

const here = path.dirname(fileURLToPath(import.meta.url));
// The corpus is part of every clone: a missing file fails the test (readFileSync throws), never skips it.
export const COMPAT_DIR = path.resolve(here, "../../../fixtures/compat");

export interface CompatCase {
  id: string;
  path: string;
  params: Record<string, string | string[]>;
  headers: Record<string, string>;
  compare: string;
}

export function loadCases(): CompatCase[] {
  return JSON.parse(readFileSync(path.join(COMPAT_DIR, "cases.json"), "utf8")) as CompatCase[];
}

export function loadGolden(id: string): { status: number; json?: any; text?: string } {
  return JSON.parse(readFileSync(path.join(COMPAT_DIR, "golden", `${id}.json`), "utf8"));
}

let rowsCache: LogRow[] | undefined;

export function loadRows(): LogRow[] {
  if (rowsCache) return rowsCache;
  const text = gunzipSync(readFileSync(path.join(COMPAT_DIR, "dataset-seed7.ndjson.gz"))).toString("utf8");
  const rows: LogRow[] = [];
  for (const body of text.split("\n")) {
    if (body.trim() === "") continue;
    const push = JSON.parse(body) as { streams: { stream: Labels; values: [string, string, Labels?][] }[] };
    for (const s of push.streams) {
      for (const v of s.values) rows.push({ ts: BigInt(v[0]), line: v[1], stream: s.stream, metadata: v[2] ?? {} });
    }
  }
  rowsCache = rows;
  return rows;
}

export function matchesSelector(stream: Labels, matchers: Matcher[], regex: (src: string) => RegExp): boolean {
  return matchers.every((m) => {
    const v = stream[m.name] ?? "";
    switch (m.op) {
      case "=":
        return v === m.value;
      case "!=":
        return v !== m.value;
      case "=~":
        return regex(m.value).test(v);
      case "!~":
        return !regex(m.value).test(v);
    }
  });
}

function sortedJson(l: Labels): string {
  return JSON.stringify(
    Object.keys(l)
      .sort()
      .map((k) => [k, l[k]]),
  );
}

/** One comparable string per entry: ts, line, full labels, and the categorized element if asked. */
export function renderOurs(e: LogEntry, categorize: boolean): string {
  if (!categorize)
    return JSON.stringify([e.ts.toString(), e.line, sortedJson({ ...e.stream, ...e.metadata, ...e.parsed })]);
  const extra: Record<string, string> = {};
  if (Object.keys(e.metadata).length > 0) extra.structuredMetadata = sortedJson(e.metadata);
  if (Object.keys(e.parsed).length > 0) extra.parsed = sortedJson(e.parsed);
  return JSON.stringify([e.ts.toString(), e.line, sortedJson(e.stream), extra]);
}

export function renderGolden(golden: any, categorize: boolean): string[] {
  const out: string[] = [];
  for (const s of golden.json.data.result as { stream: Labels; values: any[] }[]) {
    for (const v of s.values) {
      if (!categorize) {
        out.push(JSON.stringify([v[0], v[1], sortedJson(s.stream)]));
        continue;
      }
      const third = (v[2] ?? {}) as { structuredMetadata?: Labels; parsed?: Labels };
      const extra: Record<string, string> = {};
      if (third.structuredMetadata && Object.keys(third.structuredMetadata).length > 0)
        extra.structuredMetadata = sortedJson(third.structuredMetadata);
      if (third.parsed && Object.keys(third.parsed).length > 0) extra.parsed = sortedJson(third.parsed);
      out.push(JSON.stringify([v[0], v[1], sortedJson(s.stream), extra]));
    }
  }
  return out.sort();
}

export interface RunSpec {
  matchers: Matcher[];
  pipeline: PipelineStage[];
  startNs: bigint;
  endNs: bigint;
  limit: number;
  direction: "forward" | "backward";
  categorize: boolean;
}

export function runLogQuery(spec: RunSpec, regex: (src: string) => RegExp): string[] {
  const p = compileLogPipeline(spec.pipeline);
  const selected: LogEntry[] = [];
  for (const row of loadRows()) {
    if (row.ts < spec.startNs || row.ts >= spec.endNs) continue;
    if (!matchesSelector(row.stream, spec.matchers, regex)) continue;
    const e = p.process(row);
    if (e) selected.push(e);
  }
  selected.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
  if (spec.direction === "backward") selected.reverse();
  return selected
    .slice(0, spec.limit)
    .map((e) => renderOurs(e, spec.categorize))
    .sort();
}

export function toNs(param: string): bigint {
  if (/^\d+$/.test(param)) return param.length > 12 ? BigInt(param) : BigInt(param) * 1_000_000_000n;
  return BigInt(Date.parse(param)) * 1_000_000n;
}

/**
 * Loki's tail frames for one batch: the v1 shape (/loki/api/v1/tail) with `dropped_entries` as
 * `{"timestamp":"<ns>","labels":{...}}`, and the legacy shape (/api/prom/tail): streams as
 * `{"labels":"{a=\"b\"}","entries":[{"ts":"<RFC3339Nano>","line":"..."}]}` and dropped entries as
 * `{"Timestamp":"<RFC3339Nano>","Labels":"{...}"}`, `dropped_entries` always present (null if none).
 */
import type { Labels, LogEntry, TailBatch } from "../engine/types";
import { formatRFC3339Nano } from "../origin/timefmt";
import { sortedLabelsJson } from "./labels";
import { tailFrameJson } from "./stream-writer";

export function tailFrameV1(batch: TailBatch, categorize: boolean): string {
  const dropped =
    batch.dropped.length === 0
      ? undefined
      : `[${batch.dropped.map((d) => `{"timestamp":"${d.ts}","labels":${sortedLabelsJson(d.stream)}}`).join(",")}]`;
  return tailFrameJson(batch.entries, categorize, dropped);
}

export function tailFrameLegacy(batch: TailBatch): string {
  const streams = new Map<string, LogEntry[]>();
  for (const e of batch.entries) {
    const key = labelsString({ ...e.stream, ...e.metadata, ...e.parsed });
    let list = streams.get(key);
    if (!list) streams.set(key, (list = []));
    list.push(e);
  }
  const streamsJson = Array.from(
    streams,
    ([labels, entries]) =>
      `{"labels":${JSON.stringify(labels)},"entries":[${entries
        .map((e) => `{"ts":"${goRFC3339Nano(e.ts)}","line":${JSON.stringify(e.line)}}`)
        .join(",")}]}`,
  ).join(",");
  const dropped =
    batch.dropped.length === 0
      ? "null"
      : `[${batch.dropped
          .map((d) => `{"Timestamp":"${goRFC3339Nano(d.ts)}","Labels":${JSON.stringify(labelsString(d.stream))}}`)
          .join(",")}]`;
  return `{"streams":[${streamsJson}],"dropped_entries":${dropped}}`;
}

/** A label set as Loki's legacy API prints it: `{a="1", b="2"}`, names sorted. */
export function labelsString(labels: Labels): string {
  const names = Object.keys(labels).sort();
  return `{${names.map((n) => `${n}=${JSON.stringify(labels[n])}`).join(", ")}}`;
}

/** Go's RFC3339Nano: the fraction's trailing zeros (and a bare dot) cut. */
function goRFC3339Nano(ns: bigint): string {
  return formatRFC3339Nano(ns).replace(/\.?0+Z$/, "Z");
}

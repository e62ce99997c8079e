/**
 * The Logs Drilldown discovery endpoints.
 *
 * detected_fields and detected_field/{name}/values: the query's newest `line_limit` lines come
 * through the log-query executor (VictoriaLogs selects, filters, sorts and cuts what it can; the
 * Worker runs the rest of the pipeline), then the Worker detects fields on those lines with Loki's
 * parsers (engine/detected/fields.ts). Detection needs Loki's json and logfmt parsers and label
 * model, which VictoriaLogs does not have, so it cannot be pushed down; it only ever sees at most
 * `line_limit` lines (≤ max_entries_limit_per_query). Those lines are held as a log query's are, so
 * the request takes its turn in the same memory admission (exec/admission.ts) while it holds them.
 *
 * detected_labels: VictoriaLogs' stream index lists the stream labels in the range and the
 * distinct values of each (`stream_field_names`, `stream_field_values`, as /labels and
 * /label/{name}/values do, with the same cacheable bucketed windows); the Worker keeps the labels
 * Loki's relevance rule keeps (engine/detected/labels.ts) and reports the exact value count.
 */
import type { LogSelectorExpr, Matcher } from "../logql/ast";
import type { OriginClient } from "../origin/client";
import type { TimeWindow } from "../core/time-window";
import type { CachedOrigin } from "../cache/cached-origin";
import { DetectedFieldsCollector, DetectedFieldValuesCollector, type DetectedField } from "../engine/detected/fields";
import { type DetectedLabel, keepDetectedLabel } from "../engine/detected/labels";
import { executeLogQuery } from "./logs";
import { logQueryAdmission, logQueryReservation, type QueryMemory } from "./admission";
import { labelNames, labelValues } from "./meta";
import { mapBounded } from "./merge";

export interface DetectionOptions {
  window: TimeWindow;
  /** How many of the newest lines to examine. */
  lineLimit: number;
  splitInterval: bigint;
  maxConcurrency: number;
  signal?: AbortSignal;
}

export async function detectedFields(
  client: CachedOrigin,
  expr: LogSelectorExpr,
  fieldLimit: number,
  o: DetectionOptions,
): Promise<DetectedField[]> {
  return withAdmission(expr, o, async (memory) => {
    const collector = new DetectedFieldsCollector(fieldLimit);
    for (const entry of await newestEntries(client, expr, o, memory)) collector.add(entry);
    return collector.result();
  });
}

export async function detectedFieldValues(
  client: CachedOrigin,
  expr: LogSelectorExpr,
  name: string,
  valueLimit: number,
  o: DetectionOptions,
): Promise<string[]> {
  return withAdmission(expr, o, async (memory) => {
    const collector = new DetectedFieldValuesCollector(name, valueLimit);
    for (const entry of await newestEntries(client, expr, o, memory)) {
      if (collector.full) break;
      collector.add(entry);
    }
    return collector.result();
  });
}

/** `work` once the isolate has room for the lines it reads, returning the room after it. */
async function withAdmission<T>(
  expr: LogSelectorExpr,
  o: DetectionOptions,
  work: (memory: QueryMemory) => Promise<T>,
): Promise<T> {
  const memory = await logQueryAdmission.admit(logQueryReservation(expr, o.lineLimit), o.signal);
  try {
    return await work(memory);
  } finally {
    memory.release();
  }
}

/** Loki runs the query backward with `line_limit` as its limit: the newest lines, newest first. */
async function newestEntries(client: CachedOrigin, expr: LogSelectorExpr, o: DetectionOptions, memory: QueryMemory) {
  const { entries } = await executeLogQuery(client, expr, {
    window: o.window,
    limit: o.lineLimit,
    direction: "backward",
    splitInterval: o.splitInterval,
    maxConcurrency: o.maxConcurrency,
    signal: o.signal,
    memory,
  });
  return entries;
}

/**
 * Stream labels worth drilling into, with their number of distinct values in the window, most
 * values first, then by name (Loki's order is Go's map order, i.e. unspecified).
 */
export async function detectedLabels(
  client: OriginClient,
  window: TimeWindow,
  matchers: Matcher[] | undefined,
  maxConcurrency: number,
): Promise<DetectedLabel[]> {
  return rankDetectedLabels(await detectedLabelValues(client, window, matchers, maxConcurrency));
}

/** The labels detected_labels reports, each with its distinct values (what its cardinality counts). */
export async function detectedLabelValues(
  client: OriginClient,
  window: TimeWindow,
  matchers: Matcher[] | undefined,
  maxConcurrency: number,
): Promise<Map<string, readonly string[]>> {
  // Internal names are dropped before their values are fetched: they can never be reported.
  const names = (await labelNames(client, window, matchers)).filter((n) => !n.startsWith("__"));
  const values = await mapBounded(names, maxConcurrency, (name) => labelValues(client, name, window, matchers));
  const out = new Map<string, readonly string[]>();
  names.forEach((label, i) => {
    if (keepDetectedLabel(label, values[i]!)) out.set(label, values[i]!);
  });
  return out;
}

/** Most distinct values first, then by name. */
export function rankDetectedLabels(values: ReadonlyMap<string, { readonly length: number }>): DetectedLabel[] {
  const out = [...values].map(([label, v]) => ({ label, cardinality: v.length }));
  return out.sort((a, b) => b.cardinality - a.cardinality || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

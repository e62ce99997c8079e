/**
 * Samples for range aggregations: the log pipeline, then the value — 1 per entry, the line's
 * UTF-8 size, or an unwrapped label converted as Loki converts it (what the function `reads`, in
 * RANGE_FUNCTIONS).
 */
import type { LogRangeExpr, RangeAggregationOp, UnwrapConversion } from "../../logql/ast";
import { rangeFunction } from "../../logql/functions";
import type { ExtractedSample, Labels, LogRow } from "../types";
import { parseBytes } from "../../core/go/bytes";
import { durationSeconds, parseDuration, parseDurationNs } from "../../core/go/duration";
import type { ParseResult } from "../../core/go/result";
import { parseFloat } from "../../core/go/strconv";
import { compileLabelFilter } from "./labelfilter";
import type { LabelsBuilder } from "./labels";
import { EXTRACT_ALL, type ParserHints } from "./parser-hints";
import { StageRunner } from "./pipeline";

export const SAMPLE_EXTRACTION_ERR = "SampleExtractionErr";

export interface SampleExtractor {
  /**
   * The sample for this row, or null when the row yields none. Labels are the entry's full set;
   * when they contain `__error__`, Loki reports them ungrouped (it skips by/without grouping for
   * samples that carry an error).
   */
  process(row: LogRow): ExtractedSample | null;
}

/** Bytes of the line in UTF-8, without encoding it. */
export function utf8ByteLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2;
        i++;
        continue;
      }
      n += 2;
    } else n += 2;
  }
  return n;
}

/** An unwrapped value as Loki converts it (also the push-down's conversion of what the origin aggregated). */
export function unwrapConverter(conversion: UnwrapConversion): (v: string) => ParseResult {
  switch (conversion) {
    case "":
      return parseFloat;
    case "bytes":
      return parseBytes;
    case "duration":
    case "duration_seconds":
      // Loki converts with time.ParseDuration and Duration.Seconds(). Past 2^53 ns (about 104
      // days) a double no longer holds the nanoseconds, whose fraction of a second Go adds apart.
      return (v) => {
        const d = parseDurationNs(v);
        if (!d.ok || Number.isSafeInteger(d.value)) return d.ok ? { ok: true, value: durationSeconds(d.value) } : d;
        const exact = parseDuration(v);
        return exact.ok ? { ok: true, value: durationSeconds(exact.value) } : exact;
      };
  }
}

/** Every label but `except`, stream-category additions included (Loki's ungrouped-without view). */
function labelsWithout(b: LabelsBuilder, except: string): Labels {
  const out: Labels = {};
  const [streamAdd, metaAdd, parsedAdd] = b.add;
  for (const name in b.base) {
    if (name === except || b.deleted.has(name) || metaAdd.has(name) || parsedAdd.has(name)) continue;
    out[name] = streamAdd.get(name) ?? b.base[name]!;
  }
  for (const m of b.add) for (const [name, value] of m) if (name !== except) out[name] = value;
  return out;
}

/**
 * The labels `labelsWithout(b, except)` would give, restricted to `names`: for a range
 * aggregation grouped `by (names)`, the only ones its series are made of (evaluate.ts groups them
 * so), built without the whole set.
 */
function labelsOnly(b: LabelsBuilder, names: readonly string[], except: string): Labels {
  const out: Labels = {};
  const [streamAdd, metaAdd, parsedAdd] = b.add;
  for (const name of names) {
    if (name === except) continue;
    const added = parsedAdd.get(name) ?? metaAdd.get(name) ?? streamAdd.get(name);
    if (added !== undefined) out[name] = added;
    else if (Object.hasOwn(b.base, name) && !b.deleted.has(name)) out[name] = b.base[name]!;
  }
  return out;
}

/**
 * `keep`: the range aggregation's `by` labels, when it has them (only unwrapped aggregations may).
 * Samples then carry only those (error samples still carry every label, so the error surfaces).
 * `hints`: Loki's parser hints for the query (parser-hints.ts).
 */
export function compileSampleExtractor(
  range: LogRangeExpr,
  op: RangeAggregationOp,
  keep?: readonly string[],
  hints: ParserHints = EXTRACT_ALL,
): SampleExtractor {
  const runner = new StageRunner(range.selector.pipeline, hints);
  const b = runner.builder;
  const unwrap = range.unwrap;
  if (unwrap === undefined) {
    const bytes = rangeFunction(op).reads === "bytes";
    return {
      process(row) {
        const line = runner.run(row);
        if (line === null) return null;
        return { ts: row.ts, value: bytes ? utf8ByteLength(line) : 1, labels: b.toMap() };
      },
    };
  }
  const convert = unwrapConverter(unwrap.conversion);
  const post = unwrap.postFilters.map(compileLabelFilter);
  const name = unwrap.label;
  return {
    process(row) {
      const line = runner.run(row);
      if (line === null) return null;
      const raw = b.get(name);
      // Loki skips entries without the label (or with an empty value) rather than failing them.
      if (raw === undefined || raw === "") return null;
      const parsed = convert(raw);
      let value = 0;
      if (parsed.ok) value = parsed.value;
      else {
        b.err = SAMPLE_EXTRACTION_ERR;
        b.errDetails = parsed.error;
      }
      for (const pass of post) if (!pass(b)) return null;
      const labels = b.hasErr() ? b.toMap() : keep ? labelsOnly(b, keep, name) : labelsWithout(b, name);
      return { ts: row.ts, value, labels };
    },
  };
}

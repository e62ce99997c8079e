/**
 * A deliberately small stand-in for the real pipeline, for the golden test only: string line
 * filters, `| json` / `| logfmt` without parameters (flattened keys, `_extracted` on collisions with
 * stream labels), and `| unwrap x` with duration()/bytes() conversions. Samples whose unwrap label
 * is missing or unparsable are dropped. Anything else makes it decline (returns undefined).
 */
import type { RangeAggregationExpr } from "../../../../../src/logql/ast";
import type { ExtractedSample, Labels, LogRow } from "../../../../../src/engine/types";

type Parse = (line: string) => Labels | undefined;

function flattenJson(value: unknown, prefix: string, out: Labels): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flattenJson(v, prefix ? `${prefix}_${k}` : k, out);
  } else if (prefix && !Array.isArray(value)) {
    out[prefix] = value === null ? "" : String(value);
  }
}

const parseJson: Parse = (line) => {
  try {
    const out: Labels = {};
    flattenJson(JSON.parse(line), "", out);
    return out;
  } catch {
    return undefined;
  }
};

const parseLogfmt: Parse = (line) => {
  const out: Labels = {};
  for (const m of line.matchAll(/(\w+)=(?:"((?:[^"\\]|\\.)*)"|(\S*))/g)) out[m[1]!] = m[2] ?? m[3] ?? "";
  return out;
};

const UNITS: Array<[string, number]> = [
  ["ns", 1e-9],
  ["us", 1e-6],
  ["µs", 1e-6],
  ["ms", 1e-3],
  ["s", 1],
  ["m", 60],
  ["h", 3600],
];

function durationSeconds(text: string): number | undefined {
  let total = 0;
  let rest = text;
  if (!rest) return undefined;
  while (rest) {
    const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/.exec(rest);
    if (!m) return undefined;
    total += Number(m[1]) * UNITS.find(([u]) => u === m[2])![1];
    rest = rest.slice(m[0].length);
  }
  return total;
}

const BYTE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

function bytesValue(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(text);
  if (!m) return undefined;
  const unit = BYTE_UNITS[(m[2] || "b").toLowerCase()];
  return unit === undefined ? undefined : Number(m[1]) * unit;
}

export function miniExtractor(expr: RangeAggregationExpr): ((row: LogRow) => ExtractedSample | undefined) | undefined {
  const parsers: Parse[] = [];
  const filters: Array<(line: string) => boolean> = [];
  for (const stage of expr.range.selector.pipeline) {
    if (stage.kind === "JsonParser" && stage.params.length === 0) parsers.push(parseJson);
    else if (stage.kind === "LogfmtParser" && stage.params.length === 0 && !stage.strict) parsers.push(parseLogfmt);
    else if (
      stage.kind === "LineFilter" &&
      stage.op === "|=" &&
      parsers.length === 0 &&
      stage.values.length === 1 &&
      stage.values[0]!.type === "string"
    ) {
      const needle = stage.values[0]!.value;
      filters.push((line) => line.includes(needle));
    } else return undefined;
  }
  const unwrap = expr.range.unwrap;
  if (
    unwrap?.postFilters.some((f) => !(f.type === "string" && f.name === "__error__" && f.op === "=" && f.value === ""))
  )
    return undefined;
  const bytes = expr.op === "bytes_over_time" || expr.op === "bytes_rate";
  return (row) => {
    if (!filters.every((f) => f(row.line))) return undefined;
    const labels: Labels = { ...row.stream, ...row.metadata };
    for (const parse of parsers) {
      const parsed = parse(row.line);
      if (!parsed) return undefined; // a parse error would surface as __error__; the golden cases avoid it
      for (const [k, v] of Object.entries(parsed)) labels[row.stream[k] !== undefined ? `${k}_extracted` : k] = v;
    }
    let value = bytes ? new TextEncoder().encode(row.line).length : 1;
    if (unwrap) {
      const text = labels[unwrap.label];
      if (text === undefined || text === "") return undefined;
      const v =
        unwrap.conversion === "duration" || unwrap.conversion === "duration_seconds"
          ? durationSeconds(text)
          : unwrap.conversion === "bytes"
            ? bytesValue(text)
            : /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text)
              ? Number(text)
              : undefined;
      if (v === undefined) return undefined;
      value = v;
    }
    return { ts: row.ts, value, labels };
  };
}

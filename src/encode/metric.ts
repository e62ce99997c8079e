/**
 * Metric results → Loki's matrix / vector / scalar JSON.
 * Times: matrix and vector points in Unix seconds (millisecond precision), scalar in milliseconds
 * (Loki's query-frontend quirk, which Grafana expects). Values as Go's `FormatFloat(v, 'f', -1, 64)`.
 */
import type { MetricResult } from "../engine/types";
import { sortedLabelsJson } from "./labels";

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  const s = String(v);
  if (!s.includes("e")) return s;
  return expandExponent(s);
}

/** `1.5e+21` → `1500000000000000000000`, `1e-7` → `0.0000001` (shortest digits, no exponent). */
function expandExponent(s: string): string {
  const neg = s.startsWith("-");
  const body = neg ? s.slice(1) : s;
  const [mant, expStr] = body.split("e") as [string, string];
  const exp = Number(expStr);
  const [intPart, fracPart = ""] = mant.split(".") as [string, string?];
  const digits = intPart + fracPart;
  const point = intPart.length + exp;
  let out: string;
  if (point <= 0) out = "0." + "0".repeat(-point) + digits;
  else if (point >= digits.length) out = digits + "0".repeat(point - digits.length);
  else out = digits.slice(0, point) + "." + digits.slice(point);
  return neg ? "-" + out : out;
}

/** Nanoseconds → Unix seconds with at most millisecond precision, as a JSON number. */
export function formatSeconds(ns: bigint): string {
  const ms = ns / 1_000_000n;
  const secs = ms / 1000n;
  const rem = ms % 1000n;
  if (rem === 0n) return secs.toString();
  return `${secs}.${rem.toString().padStart(3, "0").replace(/0+$/, "")}`;
}

export function encodeMetricResult(r: MetricResult): { resultType: string; result: string } {
  switch (r.type) {
    case "matrix": {
      const parts = r.series.map(
        (s) =>
          `{"metric":${sortedLabelsJson(s.labels)},"values":[${s.points
            .map((p) => `[${formatSeconds(p.t)},"${formatValue(p.v)}"]`)
            .join(",")}]}`,
      );
      return { resultType: "matrix", result: `[${parts.join(",")}]` };
    }
    case "vector": {
      const t = formatSeconds(r.t);
      const parts = r.samples.map(
        (s) =>
          `{"metric":${sortedLabelsJson(s.labels)},"value":[${s.t === undefined ? t : formatSeconds(s.t)},"${formatValue(s.v)}"]}`,
      );
      return { resultType: "vector", result: `[${parts.join(",")}]` };
    }
    case "scalar":
      return { resultType: "scalar", result: `[${r.t / 1_000_000n},"${formatValue(r.v)}"]` };
  }
}

export function metricResponseBody(r: MetricResult, stats: string): string {
  const { resultType, result } = encodeMetricResult(r);
  // Loki writes its warnings between the status and the data, only when there are some.
  const warnings = r.warnings?.length ? `,"warnings":${JSON.stringify(r.warnings)}` : "";
  return `{"status":"success"${warnings},"data":{"resultType":"${resultType}","result":${result},"stats":${stats}}}`;
}

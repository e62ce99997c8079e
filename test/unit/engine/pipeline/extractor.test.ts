import { describe, expect, it } from "vitest";
import type {
  LabelFilterExpr,
  LogRangeExpr,
  PipelineStage,
  RangeAggregationOp,
  Unwrap,
} from "../../../../src/logql/ast";
import type { LogRow } from "../../../../src/engine/types";
import { compileSampleExtractor, utf8ByteLength } from "../../../../src/engine/pipeline";

const stream = { app: "w" };
const row = (line: string): LogRow => ({ ts: 5n, line, stream, metadata: { tenant: "t" } });
const logfmt: PipelineStage = { kind: "LogfmtParser", strict: false, keepEmpty: false, params: [] };

function range(pipeline: PipelineStage[], unwrap?: Unwrap): LogRangeExpr {
  return {
    kind: "LogRange",
    selector: { kind: "LogSelector", matchers: [], pipeline },
    unwrap,
    range: 60e9,
    offset: 0,
    rangeText: "1m",
  };
}
const extract = (op: RangeAggregationOp, r: LogRangeExpr, line: string) =>
  compileSampleExtractor(r, op).process(row(line));

describe("sample extraction", () => {
  it("counts 1 per entry with the full label set", () => {
    expect(extract("count_over_time", range([logfmt]), "a=1")).toEqual({
      ts: 5n,
      value: 1,
      labels: { app: "w", tenant: "t", a: "1" },
    });
  });
  it("bytes are UTF-8 bytes of the final line", () => {
    expect(utf8ByteLength("a\u00e9\u65e5\u{1F600}")).toBe(1 + 2 + 3 + 4);
    expect(extract("bytes_over_time", range([]), "\u65e5\u672c")!.value).toBe(6);
  });
  it("unwraps as a float and removes the unwrapped label", () => {
    const s = extract("sum_over_time", range([logfmt], { label: "n", conversion: "", postFilters: [] }), "n=2.5 k=v");
    expect(s).toEqual({ ts: 5n, value: 2.5, labels: { app: "w", tenant: "t", k: "v" } });
  });
  it("converts durations to seconds and bytes to bytes", () => {
    const d = extract(
      "avg_over_time",
      range([logfmt], { label: "d", conversion: "duration", postFilters: [] }),
      "d=1m30s",
    );
    expect(d!.value).toBe(90);
    const b = extract("max_over_time", range([logfmt], { label: "s", conversion: "bytes", postFilters: [] }), "s=2KiB");
    expect(b!.value).toBe(2048);
  });
  it("skips entries without the label or with an empty value", () => {
    const r = range([logfmt], { label: "n", conversion: "", postFilters: [] });
    expect(extract("sum_over_time", r, "k=v")).toBeNull();
    expect(
      extract(
        "sum_over_time",
        range([{ ...logfmt, keepEmpty: true } as PipelineStage], { label: "n", conversion: "", postFilters: [] }),
        "n=",
      ),
    ).toBeNull();
  });
  it("marks conversion failures, keeping the label, and lets post filters drop them", () => {
    const r = range([logfmt], { label: "n", conversion: "", postFilters: [] });
    expect(extract("sum_over_time", r, "n=12ms")).toEqual({
      ts: 5n,
      value: 0,
      labels: {
        app: "w",
        tenant: "t",
        n: "12ms",
        __error__: "SampleExtractionErr",
        __error_details__: 'strconv.ParseFloat: parsing "12ms": invalid syntax',
      },
    });
    const noErr: LabelFilterExpr = { type: "string", name: "__error__", op: "=", value: "" };
    expect(
      extract("sum_over_time", range([logfmt], { label: "n", conversion: "", postFilters: [noErr] }), "n=12ms"),
    ).toBeNull();
  });
});

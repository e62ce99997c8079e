/**
 * Data shapes shared by the evaluation engine (log pipeline and metric evaluator), the origin
 * client that feeds it, and the Loki encoders that consume it.
 *
 * Timestamps are nanoseconds since the epoch as `bigint`: Loki reports entry timestamps to the
 * nanosecond and a double cannot hold them exactly.
 */

export type Labels = Record<string, string>;

/** One row as read from the origin, before any LogQL pipeline stage runs. */
export interface LogRow {
  ts: bigint;
  line: string;
  /** `line` as a JSON string literal, when the origin sent it so: encoders copy it as is. */
  rawLine?: string;
  /** Stream labels. */
  stream: Labels;
  /** Structured metadata (VictoriaLogs: the row's non-stream fields other than `_msg`/`_time`). */
  metadata: Labels;
}

/**
 * A row after the pipeline: Loki's label model, split by where each label came from.
 * `stream`, `metadata` and `parsed` are disjoint; their union is the entry's full label set.
 */
export interface LogEntry {
  ts: bigint;
  line: string;
  /** `line` as a JSON string literal, kept only while no stage has changed the line. */
  rawLine?: string;
  stream: Labels;
  metadata: Labels;
  parsed: Labels;
}

/**
 * A sample extracted from a row by a range aggregation's pipeline (count: 1, bytes: length, unwrap:
 * value). Samples of one group may share their `labels` object, which nothing changes afterwards:
 * the evaluator recognises a group by that object (range/evaluate.ts).
 */
export interface ExtractedSample {
  ts: bigint;
  value: number;
  labels: Labels;
}

export type Direction = "forward" | "backward";

/** One point of a matrix series: `t` is the evaluation time in nanoseconds. */
export interface Point {
  t: bigint;
  v: number;
}

export interface Series {
  labels: Labels;
  points: Point[];
}

export interface VectorSample {
  labels: Labels;
  v: number;
  /** The sample's own time, when samples of one vector differ (volume_range buckets); else the vector's. */
  t?: bigint;
}

export type MetricResult = (
  | { type: "matrix"; series: Series[] }
  | { type: "vector"; t: bigint; samples: VectorSample[] }
  | { type: "scalar"; t: bigint; v: number }
) & {
  /** Loki's `warnings` of the answer (a partial answer past the series limit). */
  warnings?: string[];
};

/** An entry a tail could not send, reported to the client as Loki's `dropped_entries`. */
export interface DroppedEntry {
  ts: bigint;
  stream: LogEntry["stream"];
}

/** One tail frame's content; the route encodes it (v1 or legacy shape). */
export interface TailBatch {
  entries: LogEntry[];
  dropped: DroppedEntry[];
}

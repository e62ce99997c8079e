/**
 * Field detection over log entries, as Loki's detected_fields computes it from the newest
 * `line_limit` lines of a query (pkg/querier/queryrange/detected_fields.go):
 *
 *  - Every structured metadata key of an entry is a field with no parser (`parsers: null`).
 *  - Every line is run through Loki's json parser; when that fails, through its (non-strict,
 *    empty-values-dropped) logfmt parser. The labels the successful parser produces are fields,
 *    with that parser in `parsers`, together with the labels the query's own pipeline extracted
 *    (which Loki reports under the same parser). Names collide with the entry's stream labels as in
 *    a query (`app` in the line of a stream labelled `app` becomes `app_extracted`); the error
 *    labels are never fields.
 *  - A json field also reports `jsonPath`, the keys from the root of the object to the value as
 *    they are written in the line (`["user","id"]` for the label `user_id`), because `_` both joins
 *    nested keys and replaces invalid characters, so the label alone cannot be turned back into a
 *    path.
 *  - The type is re-decided on every entry that has the field (Loki does the same), so the entry
 *    examined last decides it. Entries are examined newest first, so that is the oldest line that
 *    has the field.
 *  - At most `limit` distinct fields are collected, in the order they are first met; later new
 *    fields are ignored, existing ones still count values.
 *  - Cardinality is the exact number of distinct values (Loki estimates it with a HyperLogLog
 *    sketch, which is exact in practice at these sizes).
 *
 * Output order: Loki's is Go's map order, i.e. unspecified; ours is by label name.
 */
import type { Labels, LogEntry } from "../types";
import { jsonParserStage } from "../pipeline/json";
import { objectEach } from "../pipeline/jsonscan";
import { Category, ERROR_DETAILS_LABEL, ERROR_LABEL, LabelsBuilder } from "../pipeline/labels";
import { logfmtParserStage } from "../pipeline/logfmt";
import { sanitizeLabelKey } from "../pipeline/sanitize";
import { formatBytes, parseBytes } from "../../core/go/bytes";
import { detectFieldType, type DetectedFieldType } from "./field-type";

export type DetectionParser = "json" | "logfmt";

export interface DetectedField {
  label: string;
  type: DetectedFieldType;
  cardinality: number;
  /** null for structured metadata. */
  parsers: DetectionParser[] | null;
  jsonPath?: string[];
}

const PRESERVE_ERROR_LABEL = "__preserve_error__";

function isErrorLabel(name: string): boolean {
  return name === ERROR_LABEL || name === ERROR_DETAILS_LABEL || name === PRESERVE_ERROR_LABEL;
}

/** What one line yields: the parser that read it, each field's values, json paths. */
export interface EntryFields {
  parser: DetectionParser;
  values: Map<string, string[]>;
  paths?: Map<string, string[]>;
}

/** Runs Loki's detection parsers on lines; one instance serves many entries. */
export class LineFieldDetector {
  private readonly builder = new LabelsBuilder();
  private readonly json = jsonParserStage();
  private readonly logfmt = logfmtParserStage(false, false);

  /** The fields of an entry: labels its query pipeline extracted, then what detection finds. */
  entryFields(entry: LogEntry): EntryFields {
    const values = new Map<string, string[]>();
    const add = (name: string, value: string): void => {
      if (isErrorLabel(name)) return;
      const list = values.get(name);
      if (list === undefined) values.set(name, [value]);
      else if (!list.includes(value)) list.push(value);
    };
    for (const name in entry.parsed) add(name, entry.parsed[name]!);
    const found = this.detect(entry.line, entry.stream);
    for (const [name, value] of found.labels) add(name, value);
    return { parser: found.parser, values, paths: found.paths };
  }

  /** json if the line is a JSON object Loki's json parser reads without error, else logfmt. */
  detect(
    line: string,
    stream: Labels,
  ): { parser: DetectionParser; labels: Map<string, string>; paths?: Map<string, string[]> } {
    const b = this.builder;
    b.reset(stream);
    this.json(0n, line, b);
    if (!b.hasErr()) {
      return { parser: "json", labels: new Map(b.add[Category.Parsed]), paths: jsonLabelPaths(line, b) };
    }
    b.reset(stream);
    this.logfmt(0n, line, b);
    return { parser: "logfmt", labels: new Map(b.add[Category.Parsed]) };
  }
}

/**
 * Label → keys from the root, for every scalar the json parser turns into a label. The label
 * names are built exactly as the json stage builds them (sanitised keys joined with `_`, the
 * stream-collision suffix on the leaf), so the two maps share their keys.
 */
function jsonLabelPaths(line: string, b: LabelsBuilder): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  const walk = (prefix: string, path: string[], start: number, end: number): string | undefined =>
    objectEach(line, start, end, (key, value) => {
      const name = prefix === "" ? sanitizeLabelKey(key) : prefix + "_" + sanitizeLabelKey(key);
      if (value.type === "object") return walk(name, [...path, key], value.start, value.end);
      if (value.type === "string" || value.type === "number" || value.type === "boolean") {
        // The parser keeps a label's first value within the line, and so its first path.
        const label = b.parsedName(name);
        if (!paths.has(label)) paths.set(label, [...path, key]);
      }
      return undefined;
    });
  walk("", [], 0, line.length);
  return paths;
}

interface FieldState {
  type: DetectedFieldType;
  values: Set<string>;
  parsers: DetectionParser[];
  jsonPath?: string[];
}

/** Collects detected fields from entries given newest first. */
export class DetectedFieldsCollector {
  private readonly fields = new Map<string, FieldState>();
  private readonly detector = new LineFieldDetector();

  constructor(private readonly limit: number) {}

  add(entry: LogEntry): void {
    for (const name in entry.metadata) {
      const value = entry.metadata[name]!;
      const f = this.field(name, []);
      if (f === undefined) continue;
      f.type = detectFieldType(value);
      f.values.add(value);
    }
    const { parser, values, paths } = this.detector.entryFields(entry);
    for (const [name, list] of values) {
      const f = this.field(name, [parser]);
      if (f === undefined) continue;
      if (!f.parsers.includes(parser)) f.parsers.push(parser);
      if (f.jsonPath === undefined) {
        const path = paths?.get(name);
        if (path !== undefined) f.jsonPath = path;
      }
      f.type = detectFieldType(list[0]!);
      for (const v of list) f.values.add(v);
    }
  }

  result(): DetectedField[] {
    const out: DetectedField[] = [];
    for (const [label, f] of this.fields) {
      const field: DetectedField = {
        label,
        type: f.type,
        cardinality: f.values.size,
        parsers: f.parsers.length > 0 ? f.parsers : null,
      };
      if (f.jsonPath !== undefined) field.jsonPath = f.jsonPath;
      out.push(field);
    }
    return out.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  }

  private field(name: string, parsers: DetectionParser[]): FieldState | undefined {
    let f = this.fields.get(name);
    if (f === undefined && this.fields.size < this.limit) {
      f = { type: "string", values: new Set(), parsers: [...parsers] };
      this.fields.set(name, f);
    }
    return f;
  }
}

/**
 * The distinct values of one field, from entries given newest first, in the order first met
 * (Loki's order is Go's map order). Like Loki, it stops taking entries once `limit` values are
 * known, and rewrites parsed byte sizes written with a unit (`1.5KiB`, `10mb`) the way a LogQL
 * byte filter prints them (`1.5kB`, `10MB`), so a value can be pasted into a query as it is.
 */
export class DetectedFieldValuesCollector {
  private readonly values = new Set<string>();
  private readonly detector = new LineFieldDetector();

  constructor(
    private readonly name: string,
    private readonly limit: number,
  ) {}

  get full(): boolean {
    return this.values.size >= this.limit;
  }

  add(entry: LogEntry): void {
    if (this.full) return;
    if (Object.hasOwn(entry.metadata, this.name)) this.values.add(entry.metadata[this.name]!);
    const parsed = this.detector.entryFields(entry).values.get(this.name);
    if (parsed !== undefined) for (const v of parsed) this.values.add(normalizeByteSize(v));
  }

  result(): string[] {
    return [...this.values];
  }
}

// Loki's allowedBytesUnits: a value counts as a byte size only when it ends in one of these.
const BYTE_SUFFIXES = [
  "b",
  "kib",
  "kb",
  "mib",
  "mb",
  "gib",
  "gb",
  "tib",
  "tb",
  "pib",
  "pb",
  "eib",
  "eb",
  "ki",
  "k",
  "mi",
  "m",
  "gi",
  "g",
  "ti",
  "t",
  "pi",
  "p",
  "ei",
  "e",
];

/** A byte size with a unit, printed as go-humanize's Bytes prints it without the space; else as is. */
export function normalizeByteSize(v: string): string {
  const lower = v.toLowerCase();
  if (!BYTE_SUFFIXES.some((u) => lower.endsWith(u))) return v;
  const parsed = parseBytes(v);
  return parsed.ok ? formatBytes(parsed.value).replace(" ", "") : v;
}

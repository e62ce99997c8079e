/**
 * The fields Loki's distributor adds at ingest, derived at query time: logs in VictoriaLogs never
 * went through that distributor, but Grafana's logs volume (`sum by (level, detected_level)`),
 * Logs Drilldown's level panel and its service selection rely on them.
 *
 * - `service_name` (stream label), when the stream has none: the first non-empty label of the
 *   discovery list (`DISCOVER_SERVICE_NAME`, Loki's default list), else `unknown_service`.
 * - `detected_level` (structured metadata), unless the entry already has one (then only
 *   normalised): from the first level label of the stream, else of the structured metadata, else
 *   the OpenTelemetry `severity_number`, else the line's level field when the line is JSON (two
 *   levels deep) or logfmt, else the first level word in the line, else `unknown`.
 */
import type { Labels, LogRow } from "./types";
import { objectEach } from "./pipeline/jsonscan";
import { LogfmtDecoder } from "./pipeline/logfmt";
import { transientLine } from "./literal-row";

export interface DerivedFieldRules {
  /** Labels tried in order for `service_name`; empty turns the derivation off. */
  serviceNameLabels: readonly string[];
  discoverLogLevels: boolean;
}

export const SERVICE_NAME = "service_name";
export const UNKNOWN_SERVICE = "unknown_service";
export const DETECTED_LEVEL = "detected_level";
/** The level of a row none of Loki's rules gives one. */
export const UNKNOWN_LEVEL = "unknown";
/** The OpenTelemetry severity number a level may be read from. */
export const SEVERITY_NUMBER = "severity_number";

/** Loki's `discover_service_name` default. */
export const DEFAULT_SERVICE_NAME_LABELS = [
  "service",
  "app",
  "application",
  "app_name",
  "name",
  "app_kubernetes_io_name",
  "container",
  "container_name",
  "k8s_container_name",
  "component",
  "workload",
  "job",
  "k8s_job_name",
];

/** Loki's `log_level_fields` default: the label and field names a level is read from, in order. */
export const LEVEL_FIELDS: readonly string[] = [
  "level",
  "LEVEL",
  "Level",
  "log.level",
  "severity",
  "SEVERITY",
  "Severity",
  "SeverityText",
  "lvl",
  "LVL",
  "Lvl",
  "severity_text",
  "Severity_Text",
  "SEVERITY_TEXT",
];
const LEVEL_FIELD_SET = new Set(LEVEL_FIELDS);
/** Loki's `log_level_from_json_max_depth` default: top-level keys and one nested object. */
const JSON_LEVEL_MAX_DEPTH = 2;

/** The names the Worker derives under `rules`: the origin holds no such field to filter or group by. */
export function derivedNames(rules: DerivedFieldRules | undefined): ReadonlySet<string> {
  const names = new Set<string>();
  if (rules?.discoverLogLevels) names.add(DETECTED_LEVEL);
  if (rules && rules.serviceNameLabels.length > 0) names.add(SERVICE_NAME);
  return names;
}

/** The value a stream gets for `service_name`, or undefined when it keeps its own (or none is derived). */
export function derivedServiceName(stream: Labels, labels: readonly string[]): string | undefined {
  if (labels.length === 0 || stream[SERVICE_NAME]) return undefined;
  for (const name of labels) {
    const v = stream[name];
    if (v) return v;
  }
  return UNKNOWN_SERVICE;
}

/** A stream's labels as Loki would hold them: with the `service_name` its distributor adds. */
export function withServiceName(stream: Labels, labels: readonly string[]): Labels {
  const service = derivedServiceName(stream, labels);
  return service === undefined ? stream : { ...stream, [SERVICE_NAME]: service };
}

/**
 * Extended stream label sets by rule list and stream: stream label sets are shared by every
 * response of the isolate (origin/rows.ts), so each is extended once per configuration, not once
 * per response. Both keys are immutable objects, so nothing here can go stale.
 */
const extendedStreams = new WeakMap<readonly string[], WeakMap<Labels, Labels>>();

/**
 * Adds the derived fields to rows as they come from the origin. Stream label sets are shared
 * between rows of a stream, so the extended set is made once per stream.
 */
export class FieldDeriver {
  private readonly streams: WeakMap<Labels, Labels>;

  constructor(private readonly rules: DerivedFieldRules) {
    let streams = extendedStreams.get(rules.serviceNameLabels);
    if (!streams) extendedStreams.set(rules.serviceNameLabels, (streams = new WeakMap()));
    this.streams = streams;
  }

  get active(): boolean {
    return this.rules.serviceNameLabels.length > 0 || this.rules.discoverLogLevels;
  }

  /** `levels: false` leaves `detected_level` for later ({@link addDetectedLevel}). */
  derive(row: LogRow, levels = true): LogRow {
    if (this.rules.serviceNameLabels.length > 0) row.stream = this.streamOf(row.stream);
    if (levels && this.rules.discoverLogLevels) addDetectedLevel(row);
    return row;
  }

  private streamOf(stream: Labels): Labels {
    let out = this.streams.get(stream);
    if (!out) {
      out = withServiceName(stream, this.rules.serviceNameLabels);
      this.streams.set(stream, out);
    }
    return out;
  }
}

/**
 * Sets `detected_level` in the metadata of a row (or of an entry whose line, stream and metadata
 * are still the row's). Each row's metadata object is its own (origin/rows.ts): set in place.
 */
export function addDetectedLevel(row: LevelSource): void {
  const existing = row.metadata[DETECTED_LEVEL];
  const level = detectLevelWith(row.stream, row.metadata, () => levelOfRowLine(row));
  if (level !== existing) row.metadata[DETECTED_LEVEL] = level;
}

/**
 * Gives `entry`, made from `row` by the pipeline, the `detected_level` the row would have carried
 * into it: computed from the row as read (its line, stream labels and metadata, whatever the stages
 * did to the entry's). Only for pipelines in which no stage reads, removes or sets it and no parser
 * may extract a key of that name (plan/derived-use.ts `levelsCanWait`): one that did would have
 * found the level already there and named its key `detected_level_extracted`.
 */
export function addDetectedLevelFromRow(entry: { metadata: Labels; parsed: Labels }, row: LevelSource): void {
  if (Object.hasOwn(entry.parsed, DETECTED_LEVEL)) return;
  const level = detectLevelWith(row.stream, row.metadata, () => levelOfRowLine(row));
  // Metadata named like a stream label enters the entry with a suffix (pipeline/labels.ts).
  const name = Object.hasOwn(row.stream, DETECTED_LEVEL) ? `${DETECTED_LEVEL}_extracted` : DETECTED_LEVEL;
  entry.metadata[name] = level;
}

/** What a row's level is derived from: its labels, and its line (and the line's JSON literal, if sent as one). */
interface LevelSource {
  stream: Labels;
  metadata: Labels;
  line: string;
  rawLine?: string;
}

/**
 * The line's part of a row's level: from the line's JSON literal as the origin sent it when that
 * decides it, else from the line (decoded for this alone when it is still a literal).
 */
function levelOfRowLine(row: LevelSource): string {
  return (row.rawLine !== undefined ? levelOfLiteralHead(row.rawLine) : undefined) ?? levelFromLine(transientLine(row));
}

/**
 * The level of a JSON line read from its JSON string literal, when the line opens with a level key
 * holding a plain string that names a known level (`{"level":"info",…`, as most JSON logs open):
 * Loki's rules take the first level key's string value, so the rest of the line, which would have
 * to be decoded, does not matter. Undefined for any other line (it is then decoded and read whole).
 */
export function levelOfLiteralHead(literal: string): string | undefined {
  // `"{\"…}"`: the line's first and last characters are braces (as Loki tells JSON), and a key opens it.
  if (!literal.startsWith('"{\\"') || literal.charCodeAt(literal.length - 2) !== 0x7d) return undefined;
  // Outside escapes a literal's characters are the line's own: the first backslash after the
  // key's opening quote is its closing quote when the key holds no escape.
  const keyEnd = literal.indexOf("\\", 4);
  if (keyEnd === -1 || !literal.startsWith('\\":\\"', keyEnd) || !LEVEL_FIELD_SET.has(literal.slice(4, keyEnd))) {
    return undefined;
  }
  const valueStart = keyEnd + 5;
  const valueEnd = literal.indexOf("\\", valueStart);
  if (valueEnd === -1 || literal.charCodeAt(valueEnd + 1) !== 0x22) return undefined;
  return knownLevel(literal.slice(valueStart, valueEnd));
}

/** The entry's level by Loki's rules: its own `detected_level` normalised, else derived. */
export function detectLevel(stream: Labels, metadata: Labels, line: string): string {
  return detectLevelWith(stream, metadata, () => levelFromLine(line));
}

/**
 * Loki's rules with the line's part given as `fromLine`: a row's labels and metadata decide first,
 * and the line is read only when they say nothing. The push-down (plan/level-pushdown.ts) gives
 * the line's part from what VictoriaLogs extracted of it, through {@link levelOfLineParts}.
 */
export function detectLevelWith(stream: Labels, metadata: Labels, fromLine: () => string): string {
  const existing = metadata[DETECTED_LEVEL];
  if (existing !== undefined) return normalizeLevel(existing);
  const fromLabel = streamLevelField(stream) ?? firstLevelField(metadata);
  if (fromLabel !== undefined) return normalizeLevel(fromLabel);
  const severity = metadata[SEVERITY_NUMBER];
  if (severity) return levelOfSeverityNumber(severity);
  return fromLine();
}

/** Rank of each level field name in LEVEL_FIELDS: the first non-empty one by rank wins. */
const LEVEL_FIELD_RANK = new Map(LEVEL_FIELDS.map((name, i) => [name, i]));
/** Stream label sets are shared objects (origin/rows.ts): their level field is looked up once. */
const streamLevelFields = new WeakMap<Labels, string | null>();

function streamLevelField(stream: Labels): string | undefined {
  let known = streamLevelFields.get(stream);
  if (known === undefined) streamLevelFields.set(stream, (known = firstLevelField(stream) ?? null));
  return known ?? undefined;
}

function firstLevelField(labels: Labels): string | undefined {
  // A row carries a handful of labels and fourteen names are tried: walking the labels is cheaper
  // than fourteen lookups that mostly miss.
  let best: string | undefined;
  let bestRank = LEVEL_FIELDS.length;
  for (const name in labels) {
    const rank = LEVEL_FIELD_RANK.get(name);
    if (rank !== undefined && rank < bestRank && labels[name]) {
      best = labels[name];
      bestRank = rank;
    }
  }
  return best;
}

/** A known level spelling (any case) as Loki's level name; anything else unchanged. */
export function normalizeLevel(level: string): string {
  return knownLevel(level) ?? level;
}

/** Each level Loki names, with the spellings (any case) it reads as that level. */
export const LEVEL_SPELLINGS: ReadonlyMap<string, readonly string[]> = new Map([
  ["trace", ["trace", "trc"]],
  ["debug", ["debug", "dbg"]],
  ["info", ["info", "inf", "information"]],
  ["warn", ["warn", "wrn", "warning"]],
  ["error", ["error", "err"]],
  ["critical", ["critical"]],
  ["fatal", ["fatal"]],
]);
const LEVEL_OF_SPELLING = new Map([...LEVEL_SPELLINGS].flatMap(([level, all]) => all.map((s) => [s, level] as const)));

function knownLevel(v: string): string | undefined {
  return LEVEL_OF_SPELLING.get(v.toLowerCase());
}

/** OpenTelemetry severity numbers: 1–4 trace, 5–8 debug, 9–12 info, 13–16 warn, 17–20 error, 21–24 fatal. */
function levelOfSeverityNumber(text: string): string {
  if (!/^[+-]?\d+$/.test(text)) return "info";
  const n = Number(text);
  if (n === 0) return UNKNOWN_LEVEL;
  if (n <= 4) return "trace";
  if (n <= 8) return "debug";
  if (n <= 12) return "info";
  if (n <= 16) return "warn";
  if (n <= 20) return "error";
  if (n <= 24) return "fatal";
  return UNKNOWN_LEVEL;
}

function levelFromLine(line: string): string {
  const words = () => levelFromWords(line);
  if (isJsonObjectLine(line)) return levelOfLineParts(levelFromJson(line), words);
  if (line.includes("=")) return levelOfLineParts(levelFromLogfmt(line), words);
  return words();
}

/**
 * The level of a JSON or logfmt line from the value its level key holds (undefined: none), and
 * the line's first level word (`words`), read only when that value is no known level.
 */
export function levelOfLineParts(value: string | undefined, words: () => string): string {
  return (value !== undefined ? knownLevel(value) : undefined) ?? words();
}

/** Loki calls a line JSON when its first and last non-space characters are braces. */
function isJsonObjectLine(line: string): boolean {
  const first = line.trimStart();
  const last = line.trimEnd();
  return first.startsWith("{") && last.endsWith("}");
}

/** The first string value under a level key, depth first in key order, at most two objects deep. */
function levelFromJson(line: string): string | undefined {
  let found: string | undefined;
  const FOUND = "found";
  const visit = (start: number, end: number, depth: number): string | undefined => {
    if (depth >= JSON_LEVEL_MAX_DEPTH) return undefined;
    return objectEach(line, start, end, (key, value) => {
      if (value.type === "string" && LEVEL_FIELD_SET.has(key)) {
        found = line.slice(value.start, value.end);
        return FOUND;
      }
      // A nested object that ends the walk (found, or malformed) ends it for its parent too.
      if (value.type === "object") return visit(value.start, value.end, depth + 1);
      return undefined;
    });
  };
  visit(0, line.length, 0);
  return found;
}

/** The value of the earliest-listed level key anywhere in a logfmt line (keys compared ignoring case). */
function levelFromLogfmt(line: string): string | undefined {
  const d = new LogfmtDecoder();
  d.reset(line);
  let best = LEVEL_FIELDS.length;
  let result: string | undefined;
  while (!d.eol() && d.scan()) {
    const key = d.key;
    if (key === undefined) continue;
    for (let x = 0; x < best; x++) {
      if (key.toLowerCase() === LEVEL_FIELDS[x]!.toLowerCase()) {
        result = d.value;
        best = x;
        if (x === 0) return result;
        break;
      }
    }
  }
  return result;
}

/** Level words in Loki's order of preference; the earliest match in the line wins. */
export const LEVEL_WORDS: readonly [string, string][] = [
  ["trace", "trace"],
  ["debug", "debug"],
  ["fatal", "fatal"],
  ["critical", "critical"],
  ["error", "error"],
  ["err", "error"],
  ["warning", "warn"],
  ["warn", "warn"],
  ["info", "info"],
];
/** The characters that may stand before and after a level word. */
export const LEVEL_WORD_LEFT = " \t\n[({\"'=|";
export const LEVEL_WORD_RIGHT = " \t\n[]{}():,!\"'=|";
const LEFT_BOUNDARY = new Set([...LEVEL_WORD_LEFT]);
const RIGHT_BOUNDARY = new Set([...LEVEL_WORD_RIGHT]);

/** The level a line's first level word (as found by {@link levelFromWords}, any case) names. */
export function levelOfWord(word: string): string {
  const lower = word.toLowerCase();
  for (const [w, level] of LEVEL_WORDS) if (w === lower) return level;
  return UNKNOWN_LEVEL;
}

function levelFromWords(line: string): string {
  const lower = line.toLowerCase();
  let at = lower.length;
  let guess = UNKNOWN_LEVEL;
  for (const [word, level] of LEVEL_WORDS) {
    const pos = boundedIndex(lower, word);
    if (pos === -1 || pos >= at) continue;
    at = pos;
    guess = level;
    if (at === 0) break;
  }
  return guess;
}

function boundedIndex(s: string, word: string): number {
  for (let from = 0; ;) {
    const pos = s.indexOf(word, from);
    if (pos === -1) return -1;
    const before = pos === 0 ? undefined : s[pos - 1];
    const after = s[pos + word.length];
    if ((before === undefined || LEFT_BOUNDARY.has(before)) && (after === undefined || RIGHT_BOUNDARY.has(after)))
      return pos;
    from = pos + 1;
  }
}

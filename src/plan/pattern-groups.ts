/**
 * LogsQL that has VictoriaLogs group the lines of a run of pattern chunks, so that groups cross the
 * network instead of lines (exec/patterns.ts mines them), in one request for the whole run.
 *
 * A group is the lines that read the same after `collapse_nums` and with every remaining ASCII
 * digit `0` and runs of up to eight zeros one `0` (`replace` pipes: fixed scans, no regex). So the
 * lines of a group differ in numbers (and, through `collapse_nums`, in words that read as hex
 * numbers: `cafe`, `dead`), split into the same tokens in the same places, and hold the same level
 * words. A line that starts with `{` is mined by its JSON message alone
 * (engine/patterns/tokenize.ts): it reads as its message and level members (`unpack_json`) instead.
 *
 * Per group, one row for the whole run of chunks (a group's lines are sent once, not once per
 * chunk): its lines, the step bucket of each of its lines (`values`, the index counted in steps
 * from the run's start; the Worker counts them per bucket and per chunk), its lexicographically
 * smallest and largest line (the largest left out when it is the smallest), and the time of its
 * first line (mining order). One `stats` pass: grouping by bucket and template, then by template
 * again, costs VictoriaLogs several times the grouping itself. Lines that lie between
 * the smallest and the largest share every character the two share at the start, so the two lines
 * show which tokens vary up to there; they are the group's only lines when it has at most two
 * distinct ones. At most MAX_GROUPS groups per chunk of the run, the most lines first.
 *
 * Bucket indexes come from `math`, which computes in float64 (a time in nanoseconds is off by up
 * to 256 ns): a line within BUCKET_EDGE_NS of a bucket's edge is sent as its exact time instead of
 * an index, and the Worker buckets it.
 *
 * Levels: the groups are also keyed by `levelFields`, the row fields a line's level is read from
 * (`detected_level`, and with level discovery the fields Loki's level rules read), each as its
 * value whether it is a stream label or structured metadata. Grouping by the fields themselves
 * costs the origin less than formatting them into one key, and empty ones are not sent.
 */
import { fieldName, quote } from "./logsql";
import { JSON_MESSAGE_FIELDS } from "../engine/patterns/tokenize";
import { LEVEL_FIELDS } from "../engine/derived-fields";

/**
 * Groups per chunk at most: a run's groups are at most this many times its chunks (the most lines
 * first); the lines of the rest are counted, not mined.
 */
export const MAX_GROUPS = 1000;
/**
 * Lines per chunk grouped at most (unless the chunks of a request hold few enough lines together,
 * exec/patterns.ts): past this, the run's lines are grouped from a random sample of one line in N
 * (`sample N`), so the origin's work per request stays bounded.
 */
export const MAX_LINES_PER_CHUNK = 2_000;

/** The fields of the answer rows. */
export const GROUP_FIELD = {
  template: "__pt",
  lines: "__pn",
  lowest: "__plo",
  highest: "__phi",
  first: "__pf",
  bucket: "__pi",
  phase: "__ph",
} as const;

const F = GROUP_FIELD;

/** Past float64's error on a time in nanoseconds (a few units of 256 ns), with room to spare. */
export const BUCKET_EDGE_NS = 1_000_000n;

const JSON_PREFIX = "__pj_";
const STARTS_JSON = `_msg:~${quote("^[{]")}`;

function templatePipes(): string {
  const members = [...new Set([...JSON_MESSAGE_FIELDS, ...LEVEL_FIELDS])];
  // Tab-separated: a member's value holding a tab could pair with another's, which only merges groups
  // whose lines are then mined from their samples.
  const json = "{" + members.map((m) => `<${JSON_PREFIX}${m}>`).join("\t");
  // Unpacking a line that is not JSON stops at its first character: only the format is conditional.
  let out =
    `copy _msg as ${F.template} | ` +
    `unpack_json from _msg fields (${members.map(fieldName).join(", ")}) ` +
    `result_prefix ${quote(JSON_PREFIX)} | ` +
    `format if (${STARTS_JSON}) ${quote(json)} as ${F.template} | ` +
    `collapse_nums at ${F.template}`;
  for (let d = 1; d <= 9; d++) out += ` | replace ("${d}", "0") at ${F.template}`;
  // Three halvings take a run of up to eight zeros to one.
  for (let i = 0; i < 3; i++) out += ` | replace ("00", "0") at ${F.template}`;
  return out;
}

const TEMPLATE_PIPES = templatePipes();

export interface GroupRun {
  /** The selector's LogsQL. */
  filter: string;
  stepMs: number;
  /** Steps per chunk. */
  chunkSteps: number;
  /** Chunks in the run. */
  chunks: number;
  /** The start of the run's first chunk, in ns: a multiple of the step. */
  startNs: bigint;
  levelFields: readonly string[];
  /** Group one line in this many (1: every line). */
  sample: number;
  /** Group at most this many lines (the first the origin reads): no limit when undefined. */
  lineLimit?: number | undefined;
}

/** The selector's lines per chunk of `chunkMs` (epoch-aligned, as chunks are). */
export function chunkLinesQuery(filter: string, chunkMs: number): string {
  return `${filter} | stats by (_time:${chunkMs}ms) count() ${F.lines}`;
}

/** The groups of a run of chunks (the client adds the run's time filter). */
export function patternGroupsQuery(run: GroupRun): string {
  const keys = [F.template, ...run.levelFields.map(fieldName)].join(", ");
  const stepNs = BigInt(run.stepMs) * 1_000_000n;
  const since = `(_time - ${run.startNs})`;
  const edge = BUCKET_EDGE_NS < stepNs / 2n ? BUCKET_EDGE_NS : stepNs / 2n;
  return (
    `${run.filter} | ${run.lineLimit !== undefined ? `limit ${run.lineLimit} | ` : ""}` +
    `${run.sample > 1 ? `sample ${run.sample} | ` : ""}${TEMPLATE_PIPES} | ` +
    `math ${since} % ${stepNs} as ${F.phase}, floor(${since} / ${stepNs}) as ${F.bucket} | ` +
    `format if (${F.phase}:<${edge} or ${F.phase}:>${stepNs - edge}) "<_time>" as ${F.bucket} | ` +
    `stats by (${keys}) count() ${F.lines}, values(${F.bucket}) ${F.bucket}, ` +
    `min(_msg) ${F.lowest}, max(_msg) ${F.highest}, min(_time) ${F.first} | ` +
    `sort by (${F.lines} desc) limit ${MAX_GROUPS * run.chunks} | ` +
    // What the Worker does not read is not sent: the key (the lines stand for it), a largest line
    // equal to the smallest (a group of one distinct line).
    `format if (${F.highest}:eq_field(${F.lowest})) "" as ${F.highest} | ` +
    `delete ${F.template}`
  );
}

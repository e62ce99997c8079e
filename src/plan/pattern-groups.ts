/**
 * LogsQL that has VictoriaLogs group a chunk's lines for pattern mining, so that groups cross the
 * network instead of lines (exec/patterns.ts mines them).
 *
 * A group is the lines that read the same once every ASCII digit is `0` and runs of up to eight
 * zeros are one `0` (`replace` pipes: a fixed scan, no regex): lines of a group differ only in their
 * digits, so they split into the same tokens in the same places, the tokens that differ all hold a
 * digit, and the level words they hold are the same. A line that starts with `{` is mined by its
 * JSON message alone (engine/patterns/tokenize.ts): it reads as its message members and level
 * members instead (`unpack_json`), digits made `0` likewise. Per group, in one request (`union`):
 * - its lines and up to SAMPLE_LINES of its distinct lines (`uniq_values … limit`), with the time
 *   of its first line (mining order);
 * - its lines per step bucket, packed into one row (`values` of `<bucket start>=<count>`);
 * - the chunk's line count, for the lines of groups past MAX_GROUPS.
 * Both group lists are sorted the same way (most lines first, then by key) and cut at MAX_GROUPS, so
 * they name the same groups.
 *
 * Levels: the groups are also keyed by `levelFields`, the row fields a line's level is read from
 * (`detected_level`, and with level discovery the fields Loki's level rules read), each as its
 * value whether it is a stream label or structured metadata.
 */
import { fieldName, quote } from "./logsql";
import { JSON_MESSAGE_FIELDS } from "../engine/patterns/tokenize";
import { LEVEL_FIELDS } from "../engine/derived-fields";

/** Distinct lines sent per group at most: a group with fewer is mined from all of its lines. */
export const SAMPLE_LINES = 8;
/** Groups per chunk at most (the most lines first); the lines of the rest are counted, not mined. */
export const MAX_GROUPS = 500;

/** The fields of the answer rows. */
export const GROUP_FIELD = {
  template: "__pt",
  lines: "__pn",
  sample: "__ps",
  first: "__pf",
  count: "__pc",
  buckets: "__pb",
  total: "__ptotal",
} as const;

const F = GROUP_FIELD;

const JSON_PREFIX = "__pj_";
const STARTS_JSON = `_msg:~${quote("^[{]")}`;

function templatePipes(): string {
  const members = [...new Set([...JSON_MESSAGE_FIELDS, ...LEVEL_FIELDS])];
  // Tab-separated: a member's value holding a tab could pair with another's, which only merges groups
  // whose lines are then mined from their samples.
  const json = "{" + members.map((m) => `<${JSON_PREFIX}${m}>`).join("\t");
  let out =
    `copy _msg as ${F.template} | ` +
    `unpack_json if (${STARTS_JSON}) from _msg fields (${members.map(fieldName).join(", ")}) ` +
    `result_prefix ${quote(JSON_PREFIX)} | ` +
    `format if (${STARTS_JSON}) ${quote(json)} as ${F.template}`;
  for (let d = 1; d <= 9; d++) out += ` | replace ("${d}", "0") at ${F.template}`;
  // Three halvings take a run of up to eight zeros to one.
  for (let i = 0; i < 3; i++) out += ` | replace ("00", "0") at ${F.template}`;
  return out;
}

const TEMPLATE_PIPES = templatePipes();

/**
 * The chunk's groups: `filter` is the selector's LogsQL, `timeFilter` the chunk's exact time filter
 * (the main query gets it from the client; the `union` parts need it spelled out), `stepMs` the
 * bucket width.
 */
export function patternGroupsQuery(
  filter: string,
  timeFilter: string,
  stepMs: number,
  levelFields: readonly string[],
): string {
  const keys = [F.template, ...levelFields].map(fieldName).join(", ");
  const order = `sort by (${F.lines} desc, ${keys}) | limit ${MAX_GROUPS}`;
  const samples =
    `${filter} | ${TEMPLATE_PIPES} | stats by (${keys}) count() ${F.lines}, ` +
    `uniq_values(_msg) limit ${SAMPLE_LINES} ${F.sample}, min(_time) ${F.first} | ${order}`;
  const buckets =
    `${timeFilter} ${filter} | ${TEMPLATE_PIPES} | stats by (_time:${stepMs}ms, ${keys}) count() ${F.count} | ` +
    `format "<_time>=<${F.count}>" as ${F.buckets} | ` +
    `stats by (${keys}) sum(${F.count}) ${F.lines}, values(${F.buckets}) ${F.buckets} | ${order}`;
  const total = `${timeFilter} ${filter} | stats count() ${F.total}`;
  return `${samples} | union (${buckets}) | union (${total})`;
}

/**
 * Counting metrics grouped by `detected_level` (Grafana's logs volume, Logs Drilldown's level panel),
 * computed by VictoriaLogs as counts per (bucket, the raw inputs of Loki's level rules), the rules
 * then applied once per group by the Worker (src/exec/level-pushdown.ts): groups cross the network,
 * not rows.
 *
 * Shape: `sum by (labels, detected_level) (count_over_time | rate | bytes_over_time | bytes_rate
 * (selector | line filters | drop … | detected_level="…" … [range]))`, level discovery on, grouped
 * by `detected_level` or filtering on it (string filters naming it alone). Every other stage runs in
 * the origin (planLogQuery), so a row's labels are its fields and the rows counted are Loki's; the
 * `drop`s name neither `detected_level` nor a grouped label, so they change no count; for line
 * counts `decolorize` and `line_format` (with templates that cannot fail) change only the line,
 * and the level is the stored line's (Loki derives it when the entry is written); `keep`s of names
 * change no count either (see below). Or the stages besides the level filters are a parser chain
 * with label filters, drops and the stages that change nothing counted (`keep`, `label_format` not
 * writing `detected_level`, and those line stages) that the parser push-down counts exactly
 * (parsedCounting), `| logfmt name="key", …` with filters and drops (logfmtParamsCounting, under
 * the query's own parser hints), or a `| regexp` / `| pattern` with filters and drops that the
 * extraction push-down counts (extractedCounting; not grouped by a capture Loki may set to "",
 * which would be a group of its own): the labels are then Loki's parsed values (a label the parser
 * sets to "" grouped apart, SET_EMPTY), the rows counted those its filters keep, and its guard
 * decides as there. A line filter right after `line_format "{{ .name }}"` reads the label's value:
 * it is counted as the label filter it amounts to (formattedLineFilters).
 *
 * A `keep` not listing `detected_level` deletes it (Loki's keep deletes every label it does not
 * list, structured metadata included), and every grouped label it does not list: no series holds
 * them, so the counts are grouped by the kept labels alone and no input of the level is read
 * (removedByKeep; a level filter with it, or a `label_format` writing a removed label, declines).
 * `| unpack` changes no label but on packed lines, which are guard rows, as are, unless a later
 * `drop __error__` removes its errors, the lines it may reject (unpackedRows).
 *
 * Exactness. engine/derived-fields.ts `detectLevelWith` reads, for a row: `detected_level`, the
 * fourteen level fields and `severity_number` of its stream labels and structured metadata, and only
 * when they are all empty, its line. The origin groups by each of these fields, so every row of a
 * group has the same ones. Whether a field is a stream label or metadata matters only when a row has
 * two level fields, or a `severity_number` / `detected_level` that may be a stream label: the origin
 * also groups by `__dl_s`, the first of those names found in `_stream`, and a group that has one and
 * such a mix is declined. Otherwise the group's fields, read as metadata of a stream with no level
 * label, give what each row's own labels give. The line is reduced to:
 * - `__dl_h` / `__dl_t`: `{` when the line's first character after JavaScript whitespace (what
 *   `trimStart` removes) is one, `}` when its last one before such whitespace is: Loki's test of a
 *   JSON line, exactly.
 * - `__dl_j`: for a JSON line, the first string member under a level key in the order of Loki's
 *   depth-first walk (top-level members, each object among them entered, one level deep), when
 *   every member the walk passes before it is well-formed: a string with JSON's escapes and no
 *   control character, a JSON number, true, false, null, an array of such scalars, or an object
 *   (entered, its own objects only of scalars, stepped over). Anything else before it leaves it
 *   empty. `__dl_jf` says the whole line is one object of such members, or that no level key in it
 *   is followed by a string: either way an empty `__dl_j` means the walk finds no level member at
 *   all. A JSON line with neither: declined. Plain lines are read by small regexes first; the
 *   larger ones read only the lines these leave.
 * - `__dl_l`: for a logfmt line, the first pair whose key is `level` in any case (Loki's
 *   earliest-listed key, which ends its scan; a bare `level` is such a pair, with an empty value),
 *   when every token before it is a bare key or a pair
 *   with a plain or quoted escape-free value, as Loki's decoder splits them; `__dl_eq` says whether
 *   the line, without such a pair, has a `=` and a token naming a level key in any case (such a
 *   line is declined: its pair may be one the regex does not read; without one, Loki's logfmt
 *   reading finds no level and the first level word decides).
 * - `__dl_w`: the first level word (computed only for rows that may need it, see WORD_MAY_DECIDE),
 *   by a regex that finds the leftmost bounded word in the line lower-cased (LOWERED): at most one
 *   word of LEVEL_WORDS is bounded at a position (`err`/`error`, `warn`/`warning` exclude each other
 *   by the right boundary), so the leftmost match is the earliest word Loki's search finds.
 * A group's level is then `levelOfLineParts` / `levelOfWord` over these, the same functions a row's
 * line goes through. The rows of declined groups are read back (readBack: the same pipes, then a
 * filter on the group's values) and counted by the Worker from their lines (exec/level-pushdown.ts).
 */
import type { LabelFilterExpr, PipelineStage, SampleExpr } from "../logql/ast";
import { infallibleTemplate } from "./infallible-template";
import {
  COUNTING_FIELDS,
  emptyGroupField,
  inputsInPlace,
  guardedCounting,
  logfmtParamsCounting,
  parsedCounting,
  parsedKeyMention,
  parsedValueField,
  pushableName,
  readsSetEmpty,
  SET_EMPTY,
  writesLabel,
  type LabelTemplate,
  type ParsedCounting,
} from "./parser-pushdown";
import { extractionGrouping, parserHints, type ParserHints } from "../engine/pipeline/parser-hints";
import { rangeFunction } from "../logql/functions";
import { captureNames } from "./derived-use";
import { extractedCounting } from "./extract-pushdown";
import { escapeRegex, fieldName, isSpecialField, opensWith, quote } from "./logsql";
import { planLogQuery } from "./logquery";
import { formattedLineFilters } from "./formatted-lines";
import { countedPart, type ReadBack } from "./guarded-rows";
import {
  DETECTED_LEVEL,
  LEVEL_FIELDS,
  LEVEL_WORDS,
  LEVEL_WORD_LEFT,
  LEVEL_WORD_RIGHT,
  SEVERITY_NUMBER,
  derivedNames,
  type DerivedFieldRules,
} from "../engine/derived-fields";
import { bucketsOf, type BucketGrid, type MetricGrid } from "./metric-pushdown";

export interface LevelBucketPlan extends BucketGrid {
  /** The Loki labels of the answer other than `detected_level` (fields of the row). */
  labels: string[];
  /** The origin's fields holding `labels`' values, when not the labels' own (behind a parser). */
  labelFields?: string[];
  /**
   * Each stats row also counts (`__bad`) rows the origin may read otherwise than Loki (any: local),
   * and (`__c`) the rows the parsed filters keep.
   */
  guarded?: boolean;
  /**
   * How the Worker reads back rows whose counts the groups cannot give (the guard's, and those of
   * groups whose inputs do not settle the level), to count them itself and add them in
   * (guarded-rows.ts).
   */
  readBack: LevelReadBack;
  /** The group value standing for a label Loki set to "" (a series label of its own), if any. */
  setEmpty?: string;
  /** Whether `detected_level` is one of the answer's labels. */
  byLevel: boolean;
  /** Label filters on `detected_level` alone, applied to each group's level, in order. */
  levelFilters: LabelFilterExpr[];
  /**
   * Labels `label_format` templates set (or a line `line_format` made, plan/formatted-lines.ts),
   * grouped by what they read (`labels` holds those in their place): the Worker renders each
   * group's, applies `templateFilters` to them, and keeps the answer's labels, `seriesLabels`.
   */
  templates?: LabelTemplate[];
  templateFilters?: LabelFilterExpr[];
  seriesLabels?: string[];
  value: "count" | "bytes";
  perSeconds: number;
}

/** The rows of a level push-down as the Worker reads some of them back (LevelBucketPlan.readBack). */
export interface LevelReadBack extends ReadBack {
  /**
   * Whether the rows of an unsettled group can be read back by its fields' values: not behind
   * `regexp` / `pattern`, whose rows are read back through other pipes (restoring the fields the
   * extraction overwrote), which need not give a group the same values.
   */
  groups: boolean;
}

/** The origin's fields for the reduced inputs (see the module comment). */
export const INPUT = {
  stream: "__dl_s",
  head: "__dl_h",
  tail: "__dl_t",
  json: "__dl_j",
  flat: "__dl_jf",
  logfmt: "__dl_l",
  equals: "__dl_eq",
  word: "__dl_w",
} as const;

/** JavaScript's `\s`: what `trimStart` and `trimEnd` remove. */
const JS_SPACE = String.raw`\t\n\x{0b}\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`;
const JSON_WS = String.raw`[ \t\n\r]*`;
const JSON_PLAIN_STRING = String.raw`"[^"\\\x00-\x1f]*"`;
const JSON_NUMBER = String.raw`-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`;
const LEVEL_KEYS = LEVEL_FIELDS.map(escapeRegex).join("|");
/** A string member value as Loki's walk skips it: JSON's own escapes only, no control character. */
const JSON_STRING = String.raw`"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"`;
const JSON_SCALAR = `(?:${JSON_STRING}|${JSON_NUMBER}|true|false|null)`;
/** A member as `,`-separated lists hold it: key and value, with JSON's whitespace around. */
const jsonMember = (value: string) => `${JSON_WS}${JSON_PLAIN_STRING}${JSON_WS}:${JSON_WS}${value}${JSON_WS}`;
const jsonList = (item: string) => `(?:${item}(?:,${item})*|${JSON_WS})`;
/** Values the walk steps over without reading: arrays (never entered) and objects below its depth. */
const JSON_SCALAR_ARRAY = `\\[${jsonList(`${JSON_WS}${JSON_SCALAR}${JSON_WS}`)}\\]`;
const JSON_FLAT_OBJECT = `\\{${jsonList(jsonMember(JSON_SCALAR))}\\}`;
/** A member of a nested object (the walk's last depth): its objects are stepped over. */
const JSON_INNER_MEMBER = jsonMember(`(?:${JSON_SCALAR}|${JSON_SCALAR_ARRAY}|${JSON_FLAT_OBJECT})`);
/** A top-level member, a nested object's members each such an inner one. */
const JSON_TOP_MEMBER = jsonMember(`(?:${JSON_SCALAR}|${JSON_SCALAR_ARRAY}|\\{${jsonList(JSON_INNER_MEMBER)}\\})`);
const JSON_LEVEL_MEMBER = `${JSON_WS}"(?:${LEVEL_KEYS})"${JSON_WS}:${JSON_WS}(?P<${INPUT.json}>${JSON_STRING})`;
/**
 * The first string member under a level key in the walk's order (depth first, one nested object
 * deep): the members before it at the top level are stepped over (lazily: each is first tried as
 * the level member, then as the object holding it), and so are those before it in its object.
 * A level key's string is always taken where the walk reaches it, never stepped over.
 */
const JSON_LEVEL_NESTED =
  `^${JSON_WS}\\{(?:${JSON_TOP_MEMBER},)*?` +
  `(?:${JSON_WS}${JSON_PLAIN_STRING}${JSON_WS}:${JSON_WS}\\{(?:${JSON_INNER_MEMBER},)*?)?${JSON_LEVEL_MEMBER}`;
/** A whole JSON object line whose members the walk reads or steps over without error. */
const JSON_FLAT_NESTED = `^${JSON_WS}(?P<${INPUT.flat}>\\{)${jsonList(JSON_TOP_MEMBER)}\\}${JSON_WS}$`;
/**
 * Substrings one of which every level key (LEVEL_FIELDS) holds as written: `eve` (level, severity),
 * `vl` (lvl), and their upper case. A line holding none names no level key.
 */
export const LEVEL_KEY_CORES = ["eve", "EVE", "vl", "VL"] as const;
/**
 * Lines where Loki's walk can find no level member: no key spelled as a level key is followed by a
 * string (the walk takes only strings), unless a key is spelled with `\u` escapes of its letters,
 * `.` or `_` (escapes of other characters, as Python's encoder writes every non-ASCII one, spell
 * no level key). On such a JSON line the walk finds none, however the line nests and whatever else
 * it holds (pino and bunyan write numeric levels). One literal-led regex per key: VictoriaLogs
 * finds the key by substring search, where one regex of all the keys would cost its slowest engine
 * on every line. Those regexes run only on lines holding one of LEVEL_KEY_CORES: four substring
 * searches instead of fourteen on the JSON lines that name no level at all (access logs; Envoy's,
 * 86,400 lines: 154 → 39 ms).
 */
const NO_LEVEL_STRING = [
  `-((${LEVEL_KEY_CORES.map((core) => `_msg:~${quote(escapeRegex(core))}`).join(" or ")})`,
  `(${LEVEL_FIELDS.map((key) => `_msg:~${quote(`"${escapeRegex(key)}"${JSON_WS}:${JSON_WS}"`)}`).join(" or ")}))`,
  `-_msg:~${quote(String.raw`\\u00(?:[4-7][0-9a-fA-F]|2[eE])`)}`,
].join(" ");
/**
 * Lines where Loki's logfmt reading can find no level pair: no level key's name, in any case, among
 * the line's tokens. A key Loki reads ends at a space or `=`, both of which end a VictoriaLogs token,
 * and equals a level key ignoring case only when spelled in ASCII letters, `.` and `_`: it is a
 * token of the line (`log.level` the token `level`). Such a line's level is its first level word.
 */
const LOGFMT_LEVEL_KEY_TOKEN = `(${[...new Set(LEVEL_FIELDS.map((f) => f.split(".").at(-1)!.toLowerCase()))]
  .map((t) => `i(${t})`)
  .join(" or ")})`;
/**
 * JSON_LEVEL_NESTED for the lines most JSON logs write: plain members (no escape, no object, no
 * array) before the level member. Small enough for Go's faster regex engines, it costs the origin a
 * fraction of the nested ones, which then read only the lines it leaves unsettled. A line of plain
 * members throughout needs no test of its own (JSON_FLAT_NESTED's): its rows reach the regexes
 * only where NO_LEVEL_STRING found a level key followed by a string, which in such a line is a
 * level member, and then this one matches.
 */
const JSON_PLAIN_MEMBER = jsonMember(`(?:${JSON_PLAIN_STRING}|${JSON_NUMBER}|true|false|null)`);
const JSON_LEVEL_PLAIN =
  `^${JSON_WS}\\{(?:${JSON_PLAIN_MEMBER},)*?` +
  `${JSON_WS}"(?:${LEVEL_KEYS})"${JSON_WS}:${JSON_WS}(?P<${INPUT.json}>${JSON_PLAIN_STRING})`;
/**
 * JSON_LEVEL_NESTED for lines whose members before the level member are plain or objects of plain
 * members, the level member perhaps in one of them (ECS's `{"@timestamp": …, "log": {"level": …}}`).
 * Where it matches, it passed over what JSON_LEVEL_NESTED passes over, in the same order of tries
 * (an object it cannot step over it cannot have entered either): the same member.
 */
const JSON_PLAIN_OBJECT = `\\{${jsonList(JSON_PLAIN_MEMBER)}\\}`;
const JSON_LEVEL_PLAIN_NESTED =
  `^${JSON_WS}\\{(?:${jsonMember(`(?:${JSON_PLAIN_STRING}|${JSON_NUMBER}|true|false|null|${JSON_PLAIN_OBJECT})`)},)*?` +
  `(?:${JSON_WS}${JSON_PLAIN_STRING}${JSON_WS}:${JSON_WS}\\{(?:${JSON_PLAIN_MEMBER},)*?)?` +
  `${JSON_WS}"(?:${LEVEL_KEYS})"${JSON_WS}:${JSON_WS}(?P<${INPUT.json}>${JSON_PLAIN_STRING})`;
/**
 * JSON_LEVEL_NESTED for lines whose members before the level member are scalars, strings with
 * escapes among them (Go's encoder writes `&`, `<` and `>` as `\u0026`, `\u003c`, `\u003e`, as in
 * Traefik's access log's query strings; Python's every non-ASCII character): the plain regexes
 * leave such a line, and the nested ones cost the origin several times as much per line. Where it
 * matches, it stepped over scalars alone, as JSON_LEVEL_NESTED does at each of them (its try to
 * enter an object fails on a scalar first): the same member.
 */
const JSON_LEVEL_SCALARS = `^${JSON_WS}\\{(?:${jsonMember(JSON_SCALAR)},)*?${JSON_LEVEL_MEMBER}`;
/**
 * A line opening with a plain `level` member, as loggers that write the level first do (zap; logrus,
 * whose keys are sorted): that member is the walk's first, the one JSON_LEVEL_PLAIN would take. Found
 * by a prefix test and a small regex, it spares such a line NO_LEVEL_STRING's tests and the larger
 * regexes, which cost the origin more than a microsecond a line even where the level comes first.
 */
const LEADING_LEVEL_OPENING = `{"level":"`;
const JSON_LEADING_LEVEL = `^\\{"level":(?P<${INPUT.json}>${JSON_PLAIN_STRING})`;
const LF_SPACE = String.raw`[\x00-\x20]`;
const LF_KEY = String.raw`[^\x00-\x20"=\x{fffd}]+`;
const LF_VALUE = String.raw`(?:"[^"\\]*"|[^\x00-\x20"=]*)`;
const LOGFMT_LEVEL =
  `^(?:${LF_SPACE}*(?:${LF_KEY}|${LF_KEY}=${LF_VALUE})(?:${LF_SPACE}+|$))*?` +
  `${LF_SPACE}*(?P<${INPUT.logfmt}>(?i:level)(?:=${LF_VALUE})?)(?:${LF_SPACE}|$)`;
const classOf = (chars: string) => [...chars].map((c) => (/[\\\][^-]/.test(c) ? `\\${c}` : c)).join("");
const WORDS = LEVEL_WORDS.map(([w]) => w)
  .sort((a, b) => b.length - a.length)
  .join("|");
const LEVEL_WORD_LOWER =
  `(?:^|[${classOf(LEVEL_WORD_LEFT)}])(?P<${INPUT.word}>${WORDS})` + `(?:$|[${classOf(LEVEL_WORD_RIGHT)}])`;
const LEVEL_WORD = `(?i)${LEVEL_WORD_LOWER}`;
const STREAM_LEVEL = `[{,](?P<${INPUT.stream}>${[...LEVEL_FIELDS, SEVERITY_NUMBER, DETECTED_LEVEL].map(escapeRegex).join("|")})=`;

/** Loki's level spellings (`knownLevel`), any case: a level member or pair so spelled decides. */
const KNOWN_LEVEL = "(?i:trace|trc|debug|dbg|info|inf|information|warn|wrn|warning|error|err|critical|fatal)";

/** Lines Loki reads as JSON (`isJsonObjectLine`): only their JSON inputs are read, only others' logfmt ones. */
const JSON_LINE = `${INPUT.head}:="{" ${INPUT.tail}:="}"`;

/**
 * Rows whose level may come from the first level word, the costliest reduction: no label input,
 * and no JSON level member nor (on a line that is not JSON) logfmt level pair spelled like a known
 * level. Elsewhere `__dl_w` is either not read (exec/level-pushdown.ts) or rightly empty (deleted
 * first).
 */
const WORD_MAY_DECIDE = [
  ...[DETECTED_LEVEL, ...LEVEL_FIELDS, SEVERITY_NUMBER].map((name) => `${fieldName(name)}:""`),
  `-(${JSON_LINE} ${INPUT.json}:~${quote(`^"${KNOWN_LEVEL}"$`)})`,
  `-(-(${JSON_LINE}) ${INPUT.logfmt}:~${quote(`^(?i:level)="?${KNOWN_LEVEL}"?$`)})`,
].join(" ");

/**
 * A word Loki finds lies between its boundary characters, all of which end a VictoriaLogs token,
 * so a line it finds one in holds that word as a token: the token search gates the regex. `field`
 * given, the field holds the line lower-cased and the search is of that case only, and the word
 * must also be followed by a right boundary somewhere: a literal-led regex, a substring search.
 * Without it a line whose level words all fail the right boundary (a JSON line escaped into
 * another, `\"info\"`, as Docker writes them) runs the bounded-word regex over its whole length,
 * which costs the origin microseconds a line (Go's regexp has no literal to seek on there).
 */
const anyLevelWord = (field?: string) =>
  `(${LEVEL_WORDS.map(([w]) =>
    field ? `(${field}:${w} ${field}:~${quote(`${w}(?:$|[${classOf(LEVEL_WORD_RIGHT)}])`)})` : `i(${w})`,
  ).join(" or ")})`;

/**
 * The line lower-cased by VictoriaLogs (`lc:`, Go's per-rune lower case), for the word search: the
 * regex of one case and the case-sensitive token tests cost the origin a fraction of case-folding
 * ones. Go and JavaScript (Loki's search here lower-cases with `toLowerCase`) make the same ASCII
 * of every character but U+0130, which Go makes `i` and JavaScript `i` and U+0307: lines holding it
 * are searched as they are, case-folded, as JavaScript's `i` then never ends nor continues a word.
 * Deleted once read, so it is never a field of a row.
 */
const LOWERED = "__dl_lc";
const DOTTED_CAPITAL_I = `_msg:~${quote(String.raw`\x{130}`)}`;

/**
 * `format if (filter) "c" as field`: `c` where the line matches, else nothing (deleted first). For a
 * flag, a filter costs the origin a fraction of `extract_regexp`, which finds submatches with a
 * regex on every line: a literal-led or anchored filter is a substring search or a prefix test.
 */
const flag = (field: string, regex: string, value: string) =>
  `format if (_msg:~${quote(regex)}) ${quote(value)} as ${field}`;

/** The pipes that give each row its reduced inputs. */
export const LEVEL_INPUT_PIPES = [
  // The inputs computed only for some rows: a row's own fields of these names must not pass for them.
  `delete ${[INPUT.flat, INPUT.word, INPUT.head, INPUT.tail, INPUT.json, INPUT.logfmt, INPUT.equals, LOWERED].join(", ")}`,
  `extract_regexp ${quote(STREAM_LEVEL)} from _stream`,
  `format if ${opensWith("_msg", "{", JS_SPACE)} "{" as ${INPUT.head}`,
  flag(INPUT.tail, `\\}[${JS_SPACE}]*$`, "}"),
  // Lines opening with their level member (JSON_LEADING_LEVEL): the tests below skip them.
  `extract_regexp if (${JSON_LINE} _msg:=${quote(LEADING_LEVEL_OPENING)}*) ${quote(JSON_LEADING_LEVEL)} from _msg`,
  // A JSON line with no level key followed by a string has no level member, however it nests: its
  // rows skip the regexes below, which read the whole of a line that has none.
  `format if (${JSON_LINE} ${INPUT.json}:"" ${NO_LEVEL_STRING}) "{" as ${INPUT.flat}`,
  // Each line only through the reading Loki gives it (exec/level-pushdown.ts `lineLevel`): the
  // regexes cost the origin less, and the inputs not read stay empty, so there are fewer groups.
  `extract_regexp if (${JSON_LINE} ${INPUT.json}:"" ${INPUT.flat}:"") ${quote(JSON_LEVEL_PLAIN)} from _msg`,
  // Lines with an object of plain members before their level member, or holding it.
  `extract_regexp if (${JSON_LINE} ${INPUT.json}:"" ${INPUT.flat}:"") ${quote(JSON_LEVEL_PLAIN_NESTED)} from _msg`,
  // Lines with an escaped string among the scalars before their level member (or in it).
  `extract_regexp if (${JSON_LINE} ${INPUT.json}:"" ${INPUT.flat}:"") ${quote(JSON_LEVEL_SCALARS)} from _msg`,
  // Lines with a deeper object or an array before their level member (or in them): the larger
  // regexes cost the origin several microseconds a line, paid by these lines alone.
  `extract_regexp if (${JSON_LINE} ${INPUT.json}:"" ${INPUT.flat}:"") ${quote(JSON_LEVEL_NESTED)} from _msg`,
  `extract_regexp if (${JSON_LINE} ${INPUT.json}:"" ${INPUT.flat}:"") ${quote(JSON_FLAT_NESTED)} from _msg`,
  // Lines not spelling `level` in one of its usual cases skip the regex, which reads the whole of
  // a line without a level pair (substring tests cost the origin a fraction of it). A pair spelled
  // otherwise (`lEvEl=`) is not found: its line has a `=` and no pair, so its rows are read back.
  `extract_regexp if (-(${JSON_LINE}) (${["level", "LEVEL", "Level"].map((s) => `_msg:~${quote(s)}`).join(" or ")})) ${quote(LOGFMT_LEVEL)} from _msg`,
  // A `=` matters only on a line that may hold a level pair the regex did not read.
  `format if (-(${JSON_LINE}) ${INPUT.logfmt}:"" _msg:~"=" ${LOGFMT_LEVEL_KEY_TOKEN}) "=" as ${INPUT.equals}`,
  `format if (${WORD_MAY_DECIDE} -${DOTTED_CAPITAL_I}) "<lc:_msg>" as ${LOWERED}`,
  `extract_regexp if (${LOWERED}:* ${anyLevelWord(LOWERED)}) ${quote(LEVEL_WORD_LOWER)} from ${LOWERED}`,
  `extract_regexp if (${DOTTED_CAPITAL_I} ${WORD_MAY_DECIDE} ${anyLevelWord()}) ${quote(LEVEL_WORD)} from _msg`,
  `delete ${LOWERED}`,
].join(" | ");

/** The row fields Loki's level rules read, each grouped by. */
export const LEVEL_LABEL_INPUTS: readonly string[] = [DETECTED_LEVEL, ...LEVEL_FIELDS, SEVERITY_NUMBER];

export function planLevelPushdown(
  expr: SampleExpr,
  grid: MetricGrid,
  derived?: DerivedFieldRules,
): LevelBucketPlan | undefined {
  if (!derived?.discoverLogLevels) return undefined;
  if (expr.kind !== "VectorAggregation" || expr.op !== "sum" || expr.grouping?.without) return undefined;
  const inner = expr.expr;
  if (inner.kind !== "RangeAggregation" || inner.grouping || inner.range.unwrap) return undefined;
  const lines = rangeFunction(inner.op).origin.lines;
  if (!lines) return undefined;
  const groupBy = expr.grouping?.labels ?? [];
  const derivedNow = derivedNames(derived);
  // Parsers always run in the Worker's part of the plan: the query's own stages tell.
  const parses = inner.range.selector.pipeline.some(isParser);
  // With a parser, label filters must not become the origin's prefilters: its guard must see every row.
  const plan = planLogQuery(inner.range.selector, { derived, ...(parses && { prefilter: false }) });
  const levelFilters: LabelFilterExpr[] = [];
  const rest: PipelineStage[] = [];
  for (const stage of plan.local) {
    if (stage.kind === "LabelFilter" && filtersLevelOnly(stage.filter)) levelFilters.push(stage.filter);
    else if (stage.kind === "Drop" && !dropsNoneOf(stage, [...groupBy, DETECTED_LEVEL])) return undefined;
    else rest.push(stage);
  }
  // Without detected_level in the answer or a filter on it, the count is pushed whole elsewhere.
  if (!groupBy.includes(DETECTED_LEVEL) && levelFilters.length === 0) return undefined;
  const removed = removedByKeep(rest, groupBy);
  if (!removed) return undefined;
  // A level filter after a `keep` that removed the level would read it missing.
  if (removed.has(DETECTED_LEVEL) && levelFilters.length > 0) return undefined;
  const byLevel = groupBy.includes(DETECTED_LEVEL) && !removed.has(DETECTED_LEVEL);
  const readsLevel = byLevel || levelFilters.length > 0;
  const labels = [...new Set(groupBy.filter((name) => name !== DETECTED_LEVEL && !removed.has(name)))];
  // `service_name` is a stream's, derived from its labels: grouping by it stays local.
  if (labels.some((name) => isSpecialField(name) || derivedNow.has(name) || name.startsWith("__dl_"))) {
    return undefined;
  }
  const hints = parserHints(inner, extractionGrouping(inner, expr));
  const parsedRows = parses ? parsedLevelRows(rest, labels, derived, lines.total, hints) : undefined;
  const parsed = parsedRows?.counting;
  const unpacked = parses ? undefined : unpackedRows(rest);
  if (unpacked === null) return undefined;
  const unparsed = (stage: PipelineStage) =>
    dropsNoneOf(stage, [...groupBy, DETECTED_LEVEL]) ||
    keepsNamesOnly(stage) ||
    (lines.total === "count" && changesLineOnly(stage));
  if (parses ? !parsed : !(unpacked?.stages ?? rest).every(unparsed)) return undefined;
  // The rows counted and the guard: a parser's, or the rows `| unpack` could give labels.
  const counting = parsed ?? unpacked?.counting;

  const buckets = bucketsOf(inner.range, grid);
  if (!buckets) return undefined;

  const setEmpty = new Set(parsed?.setEmpty ?? []);
  // Grouped by what the templates read in place of what they set; the Worker renders and filters
  // each group (ParsedCounting.templates, templateFilters).
  const templates = parsed?.templates ?? [];
  const rendered = templates.length > 0 || parsed?.templateFilters !== undefined;
  const grouped = inputsInPlace(labels, templates);
  const labelFields = parsed
    ? grouped.map((name) => (setEmpty.has(name) ? emptyGroupField(name) : parsedValueField(name)))
    : labels;
  // With the level removed by a `keep`, the groups are the labels' alone: no input of the level is read.
  const levelFields = readsLevel ? [...LEVEL_LABEL_INPUTS, ...Object.values(INPUT)] : [];
  const fields = [...new Set([...labelFields, ...levelFields])];
  const value = lines.total;
  const flagged = counting && guardedCounting(counting);
  const kept = flagged ? ` if (${flagged.kept})` : "";
  const stats = [value === "count" ? `count()${kept} as __v` : `sum(__n)${kept} as __v`];
  // Groups whose rows the parsed filters all refused are told apart by their count (a sum is NaN).
  if (flagged) stats.push(`count() if (${flagged.guard}) as __bad`, `count()${kept} as __c`);
  // The rows of a group, for reading them back: a byte count's group tells them too.
  else if (value === "bytes") stats.push("count() as __c");
  // Behind a parser, only the rows its filters keep and its guard rows reach the level inputs and the groups.
  const counted = counting && flagged ? [...counting.pipes, ...flagged.pipes] : [];
  const tail = [...(readsLevel ? [LEVEL_INPUT_PIPES] : []), ...(value === "bytes" ? ["len(_msg) as __n"] : [])];
  const rows = `${plan.logsql}${buckets.inWindows}`;
  const by = [buckets.timeGrouping, ...fields.map(fieldName)].join(", ");
  // Read back, behind regexp / pattern, through the pipes that also restore what the extraction overwrote.
  const restoring = parsedRows?.restoring;
  const back = restoring
    ? [...restoring.pipes, ...guardedCounting({ ...restoring.counting, bad: restoring.bad }).pipes]
    : counted;
  const scratch = `delete ${[...Object.values(INPUT), ...(value === "bytes" ? ["__n"] : [])].join(", ")}`;
  const added = restoring ? restoring.cleanup : counting ? [`delete ${COUNTING_FIELDS.join(", ")}`] : [];
  return {
    logsql: [rows, ...counted, ...tail, `stats by (${by}) ${stats.join(", ")}`].join(" | "),
    ...buckets.grid,
    groupBy: fields,
    // Each of the answer's series is one value of `labels` and a level: restricted to some values
    // of `labels`, the origin still counts every row of their series. A level filter could leave
    // such a value with no series at all, so the answer would hold fewer than it may: not restricted.
    // Behind a parser, the groups would also need its guard: not restricted either.
    ...(labels.length > 0 &&
      levelFilters.length === 0 &&
      !counting && { groups: { rows: `${plan.logsql}${buckets.inWindows}`, fields: labels } }),
    labels: grouped,
    ...(parsed && { labelFields }),
    ...(rendered && { templates, templateFilters: parsed?.templateFilters ?? [], seriesLabels: labels }),
    ...(counting && { guarded: true }),
    readBack: {
      rows: [rows, ...back, ...tail].join(" | "),
      cleanup: [scratch, ...added],
      expr: countedPart(expr, inner, plan.local),
      groups: !restoring,
    },
    ...(parsed && readsSetEmpty(parsed) && { setEmpty: SET_EMPTY }),
    byLevel,
    levelFilters,
    value,
    perSeconds: lines.perSecond ? Number(buckets.range) / 1e9 : 0,
  };
}

function isParser(stage: PipelineStage): boolean {
  return (
    stage.kind === "JsonParser" ||
    stage.kind === "LogfmtParser" ||
    stage.kind === "RegexpParser" ||
    stage.kind === "PatternParser"
  );
}

/**
 * The parser push-down's counting (plan/parser-pushdown.ts) for the stages after the line filters
 * but the level filters, which commute with them: they read only `detected_level`, which a parser
 * leaves as it is (Loki names a line's key of that name `detected_level_extracted`, the level
 * being structured metadata). Lines holding such a key still join the guard: the Worker reads them.
 * `| logfmt name="key", …` sets only the labels it names, none of which may be `detected_level`
 * (not a name the origin carries), so its own guard suffices.
 */
function parsedLevelRows(
  stages: readonly PipelineStage[],
  labels: readonly string[],
  derived: DerivedFieldRules,
  total: "count" | "bytes",
  hints: ParserHints,
): { counting: ParsedCounting; restoring?: Restoring } | undefined {
  if (stages.some((stage) => writesLabel(stage, DETECTED_LEVEL))) return undefined;
  const first = stages[0];
  const usable = pushableName(derived);
  if (first?.kind === "RegexpParser" || first?.kind === "PatternParser") {
    // A capture named `detected_level` is Loki's `detected_level_extracted`, which nothing here
    // reads; declined all the same, as the Worker's reading of such a row is what the guard keeps.
    if (captureNames(first).includes(DETECTED_LEVEL)) return undefined;
    const extracted = extractedCounting(stages, labels, usable);
    // A grouped capture Loki may set to "" is a group of its own, which the level's groups do not keep.
    if (!extracted || extracted.setEmpty) return undefined;
    // Rows read back: the fields the extraction overwrote are restored (extract-pushdown.ts).
    const back = extractedCounting(stages, labels, usable, [], true)!;
    const cleanup = [...back.restored, `delete ${back.added.join(", ")}`];
    return { counting: extracted, restoring: { counting: extracted, pipes: back.pipes, bad: back.bad, cleanup } };
  }
  if (first?.kind === "LogfmtParser" && first.params.length > 0) {
    const counting = logfmtParamsCounting(stages, labels, usable, hints);
    return counting && { counting };
  }
  // `line_format` and `decolorize` change the line whose bytes the byte counts add up; the level
  // is read from the line as stored, before any stage (Loki derives it when the entry is written).
  const reshaping = total === "bytes" ? "labels" : "line";
  const counted = reshaping === "line" ? formattedLineFilters(stages) : stages;
  if (!counted) return undefined;
  const options = { reshaping, emptyGroups: true, templates: true, markEmpty: true } as const;
  const counting = parsedCounting(counted, labels, usable, options);
  const mention = parsedKeyMention(counted, DETECTED_LEVEL);
  if (!counting || mention === undefined) return undefined;
  return { counting: { ...counting, bad: `${counting.bad} or ${mention}` } };
}

/** How rows behind `regexp` / `pattern` are read back: pipes computing the same values and guard, and those restoring the row's own fields. */
interface Restoring {
  counting: ParsedCounting;
  pipes: string[];
  bad: string;
  cleanup: string[];
}

/**
 * Lines on which `| unpack` may set a label: Loki's unpack sets labels only from an object with a
 * string member `_entry` (Promtail's `pack`), whose key a line can only spell as `_entry` or with
 * a `\u` escape.
 */
const PACKED_LINE = `_msg:~${quote(String.raw`_entry|\\u`)}`;

/**
 * Lines on which Loki's unpack surely succeeds: an object from the first character on (it rejects
 * any other line, leading whitespace included) whose members, under keys without escapes, are
 * plain values, arrays of them, or objects of those (two levels, what applications log): valid
 * JSON, which its scanner reads to the closing brace, skipping the nested values and the values'
 * escapes. Lines it may reject are among the others.
 */
const PLAIN_OBJECT = (() => {
  // Values may hold JSON's escapes but `\u` (PACKED_LINE): the scanner skips them unread.
  const string = String.raw`"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt])*"`;
  const plain = `(?:${string}|${JSON_NUMBER}|true|false|null)`;
  // Items and their separators spelled so that each character decides the way on: Go's regexp
  // matches such a regex about 2.5 times faster than the same lines spelled with choices.
  const list = (item: string) => `${JSON_WS}(?:${item}${JSON_WS}(?:,${JSON_WS}${item}${JSON_WS})*)?`;
  const array = `\\[${list(plain)}\\]`;
  const member = (value: string) => `${JSON_PLAIN_STRING}${JSON_WS}:${JSON_WS}(?:${value})`;
  const inner = `\\{${list(member(`${plain}|${array}`))}\\}`;
  return `^\\{${list(member(`${plain}|${array}|${inner}`))}\\}${JSON_WS}$`;
})();

/**
 * `| unpack` (once): the stages without it, and the guard of the rows on which it could change
 * what is counted; undefined without an unpack, null with two. Loki's unpack sets no label on a
 * line without a string member `_entry` (PACKED_LINE): there it at most marks an error, which a
 * later `drop` of `__error__` removes (its details are no grouped label). Without that `drop`,
 * the error would fail the query: every line that is not a PLAIN_OBJECT is a guard row too.
 */
function unpackedRows(
  stages: readonly PipelineStage[],
): { stages: PipelineStage[]; counting: ParsedCounting } | null | undefined {
  const at = stages.findIndex((stage) => stage.kind === "UnpackParser");
  if (at < 0) return undefined;
  const after = stages.slice(at + 1);
  if (after.some((stage) => stage.kind === "UnpackParser")) return null;
  const dropsError = after.some(
    (stage) => stage.kind === "Drop" && stage.items.some((item) => item.name === "__error__" && !item.matcher),
  );
  const bad = dropsError ? PACKED_LINE : `${PACKED_LINE} or -_msg:~${quote(PLAIN_OBJECT)}`;
  return { stages: [...stages.slice(0, at), ...after], counting: { pipes: [], counted: "", bad } };
}

/**
 * The grouped labels (`detected_level` included) some `keep` of names removes: Loki's `keep`
 * deletes every label it does not list (stream labels and structured metadata too, only the error
 * labels stay), so no series holds them and grouping by them groups by nothing. Undefined where
 * that may not hold: a `keep` with value matchers, or a `label_format` that may write a removed
 * label again (the parsers come before any `keep` in the stages pushed down).
 */
function removedByKeep(stages: readonly PipelineStage[], groupBy: readonly string[]): Set<string> | undefined {
  const removed = new Set<string>();
  for (const stage of stages) {
    if (stage.kind !== "Keep") continue;
    if (stage.items.some((item) => item.matcher)) return undefined;
    for (const name of groupBy) if (!stage.items.some((item) => item.name === name)) removed.add(name);
  }
  const rewritten = stages.some((stage) => stage.kind === "LabelFormat" && stage.ops.some((op) => removed.has(op.dst)));
  return rewritten ? undefined : removed;
}

/** `| keep` of names: it removes labels (removedByKeep) and leaves every row and line as it is. */
function keepsNamesOnly(stage: PipelineStage): boolean {
  return stage.kind === "Keep" && stage.items.every((item) => !item.matcher);
}

/**
 * Stages that change only the line, which a line count does not read: the level is the stored
 * line's. A template that can fail would mark rows with an error instead.
 */
function changesLineOnly(stage: PipelineStage): boolean {
  return stage.kind === "Decolorize" || (stage.kind === "LineFormat" && infallibleTemplate(stage.template));
}

/**
 * A string filter on `detected_level` (Drilldown's `| detected_level="error"`), or several joined
 * by `and`/`or`: it reads nothing but the level, so it is decided per group.
 */
function filtersLevelOnly(f: LabelFilterExpr): boolean {
  switch (f.type) {
    case "string":
      return f.name === DETECTED_LEVEL;
    case "binary":
      return filtersLevelOnly(f.left) && filtersLevelOnly(f.right);
    case "paren":
      return filtersLevelOnly(f.expr);
    default:
      return false;
  }
}

/** `| drop` of labels not grouped by (Grafana's `| drop __error__`) leaves every count as it is. */
function dropsNoneOf(stage: PipelineStage, groupBy: readonly string[]): boolean {
  return stage.kind === "Drop" && stage.items.every((item) => !item.matcher && !groupBy.includes(item.name));
}

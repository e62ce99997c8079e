/**
 * Counting metrics over `| regexp "…"` and `| pattern "…"` that VictoriaLogs computes exactly,
 * and the LogsQL that does it: the same shapes, filters, value pipes and same-request guard as the
 * `| json` / `| logfmt` push-down (plan/parser-pushdown.ts, whose ParserBucketPlan this returns
 * and whose runner answers it), with VictoriaLogs' `extract_regexp` as the parser.
 *
 * Pushed: `sum [by (labels)] (count_over_time | rate | bytes_over_time | bytes_rate (selector
 * |line filters | regexp "…" | stages [range] [offset]))`, or `| pattern "…"`, where the stages
 * are label filters (string, integer numeric, duration, bytes, `ip()` over IPv4 addresses, which
 * keep rows carrying an error but here find none besides the guarded ones; `and` / `or` /
 * parentheses), `drop`s of labels nothing reads, and `__error__=""` (neither parser sets an error).
 *
 * `| regexp`: Loki runs Go's RE2 FindSubmatch on the line, and VictoriaLogs' `extract_regexp`
 * runs Go's FindStringSubmatchIndex with the same pattern on the same line: the same groups take
 * part, with the same text. Where they part: on no match VictoriaLogs empties every group's
 * field, and a group that took no part is empty too, where Loki sets the label to "" on a match
 * and leaves it alone otherwise. That differs (a) where the row has a field of that name that is
 * not a stream label (structured metadata: like a stream label it keeps its value and the parsed
 * one goes to `…_extracted`, which the base-first value reproduces; such rows are guarded all the
 * same, and the Worker reads them that way), (b) under a numeric, duration or bytes filter, where Loki's "" is
 * an error and VictoriaLogs' missing value just fails, and (c) in a grouping, where Loki's series
 * keeps a label set to "" apart from rows without it. (a) is guarded (any row with such a field).
 * For (b) and (c) the pattern is wrapped so that the origin also knows where it matched
 * (regexpExtraction): (b) is guarded, and (c) groups under SET_EMPTY, which the answer reads as
 * "" (the pattern alone runs first, and the wrapped one only where every group came out empty).
 * Group names must be ones the origin can hold as fields (pushableName): the extraction writes
 * them as fields, after the row's own values are copied.
 *
 * `| pattern`: Loki's matcher (the first literal must start the line, each capture runs to the
 * first occurrence of the literal after it, the last to the end of the line; when a literal is
 * missing that capture takes the rest and the later ones are not set) is rewritten as an RE2
 * regex that finds the same text: `\A L0 (?:(?P<c1>.*?) L1 R2 | (?P<c1r>.*))`, where R2 is the same
 * for the next capture. R2 always matches (its last branch takes any rest), so the lazy `.*?`
 * stops at L1's first occurrence and is never pushed further by what follows; when L1 is missing
 * the first branch fails and the second takes the rest, as Loki does. A capture's value is its two
 * groups' text joined (only one takes part). Captures after the last one relevant to the query
 * cannot change it, so the regex ends there. Loki leaves a capture unset where the line ended
 * early or did not match, VictoriaLogs empties it: the same differences as `| regexp`, (a)
 * guarded alike, (b) and (c) told by capturing the literal before the capture (`(?P<m>L)`): it is
 * non-empty exactly where Loki set the capture. Literals holding U+FFFD (which Go's regexp also
 * matches on invalid UTF-8, where Loki's byte search does not) keep the pattern local. Go's
 * regexp with submatches costs the origin several times its own `extract`, so where a pattern
 * allows it `extract` reads the lines it provably reads as Loki does, and the regex only the
 * others (fastPattern).
 *
 * Both: a field named `__error__` (metadata Loki reads as an error), control characters in a value
 * a regex filter reads (Loki's `.` stops at a newline), a grouped value that is SET_EMPTY, and for
 * typed filters values not of a shape both sides read as the same number (parser-pushdown.ts) are
 * guarded as for the other parsers.
 */
import type { LabelFilterExpr, PatternParserStage, PipelineStage, RegexpParserStage, SampleExpr } from "../logql/ast";
import { goRegexGroupNames } from "../logql/regex";
import { escapeRegex, quote } from "./logsql";
import { bucketsOf, type MetricGrid } from "./metric-pushdown";
import {
  countingShape,
  filterLogsQL,
  guardedCounting,
  type ParsedCounting,
  type ParserBucketPlan,
  parsedValueField,
  pushableName,
  regexFiltered,
} from "./parser-pushdown";
import { compilePattern } from "../engine/pipeline/pattern";
import { isNoErrorFilter } from "./unwrap-pushdown";
import type { DerivedFieldRules } from "../engine/derived-fields";
import { guardedRows } from "./guarded-rows";
import { typedValueFields, typedValuePipes, valueGuardTerms, type TypedLabels, type TypedValues } from "./typed-values";

const ERROR = "__error__";
/** The row's own value of a relevant label, copied before the extraction may overwrite it. */
const base = (name: string) => `__b_${name}`;
/** A pattern capture's text when its literal was found, and when it took the rest of the line. */
const found = (name: string) => `__xf_${name}`;
const rest = (name: string) => `__xr_${name}`;
/** The literal before the capture at node `k` of a pattern, captured: set where Loki reached it. */
const reached = (k: number) => `__xm_${k}`;
/** A grouped label's group: Loki's value, or SET_EMPTY where Loki set it to "". */
const group = (name: string) => `__g_${name}`;
/**
 * Stands for "set to the empty string" among a group's values: a grouped value that is this
 * character itself is a guard row.
 */
export const SET_EMPTY = "\u0001";

export function planExtractPushdown(
  expr: SampleExpr,
  grid: MetricGrid,
  derived?: DerivedFieldRules,
): ParserBucketPlan | undefined {
  const shape = countingShape(expr, derived);
  if (!shape) return undefined;
  const { inner, lines, groupBy, usable, plan } = shape;
  const extracted = extractedCounting(plan.local, groupBy, usable);
  const buckets = bucketsOf(inner.range, grid);
  if (!extracted || !buckets) return undefined;
  const { pipes, counted, bad, grouped } = extracted;
  // The guard's rows go to the Worker with their stored fields: `extract_regexp` overwrites those
  // named like a group of the user's regexp, so the same values are computed restoring them.
  const restoring = extractedCounting(plan.local, groupBy, usable, [], true);

  const bytes = lines.total === "bytes";
  if (bytes) pipes.push("len(_msg) as __n");
  const by = [buckets.timeGrouping, ...grouped].join(", ");
  const rows = `${plan.logsql}${buckets.inWindows}${pipes.map((p) => ` | ${p}`).join("")}`;
  const { pipes: counting, kept, guard } = guardedCounting(extracted);
  const stats = [`count() if (${kept}) as __c`];
  if (bytes) stats.push(`sum(__n) if (${kept}) as __v`);
  stats.push(`count() if (${guard}) as __bad`);
  return {
    logsql: [rows, ...counting, `stats by (${by}) ${stats.join(", ")}`].join(" | "),
    ...buckets.grid,
    groupBy: grouped,
    groups: { rows, fields: grouped, ...(counted !== "" && { counted }), bad },
    labels: groupBy,
    setEmpty: SET_EMPTY,
    value: bytes ? "bytes" : "count",
    perSeconds: lines.perSecond ? Number(buckets.range) / 1e9 : 0,
    ...(restoring && {
      guarded: guardedRows(
        shape.part,
        inner,
        plan.local,
        `${plan.logsql}${buckets.inWindows}${restoring.pipes.map((p) => ` | ${p}`).join("")}`,
        restoring.bad,
        [...restoring.restored, `delete ${restoring.added.join(", ")}`],
      ),
    }),
  };
}

/** The counting of `stages` (a `regexp` or `pattern` parser, then filters and `drop`s), as parsedCounting's. */
export interface ExtractedCounting extends ParsedCounting {
  /** The origin's field for each grouped label: its value, or its group where Loki may set it to "". */
  grouped: string[];
  /** Every field the pipes add (ExtractedValues.added). */
  added: string[];
  /** With `restore`, the pipes giving the row back the stored fields the extraction overwrote. */
  restored: string[];
}

/**
 * The pipes, kept rows and guard that count through `| regexp` or `| pattern` and the label
 * filters and `drop`s after it (the module comment), for the labels `groupBy`, those filtered and
 * `read` (whose values the caller reads: an unwrapped label, empty where Loki's is unset or "");
 * with `restore`, as extractedValues restores.
 */
export function extractedCounting(
  stages: readonly PipelineStage[],
  groupBy: readonly string[],
  usable: (name: string) => boolean,
  read: readonly string[] = [],
  restore = false,
): ExtractedCounting | undefined {
  const [parser, ...after] = stages;
  if (parser?.kind !== "RegexpParser" && parser?.kind !== "PatternParser") return undefined;
  const filtered = filtersAfter(after);
  if (!filtered) return undefined;

  if (read.some((n) => !usable(n))) return undefined;
  const typed: TypedLabels = new Map();
  const names = new Set<string>([...groupBy, ...read]);
  const conditions: string[] = [];
  for (const f of filtered.filters) {
    // Neither parser sets an error: ip() filters keep a row by its value alone.
    const condition = filterLogsQL(f, typed, names, usable, true);
    if (condition === undefined) return undefined;
    if (condition !== "") conditions.push(condition);
  }
  if ([...names].some((n) => filtered.dropped.has(n))) return undefined;
  const relevant = [...names];

  const values = extractedValues(parser, relevant, typed, groupBy, restore, regexFiltered(filtered.filters));
  if (!values) return undefined;
  const { pipes, grouped, added, restored } = values;
  // A grouped capture Loki may set to "": grouped under its own value (SET_EMPTY).
  const setEmpty = groupBy.filter((n, i) => grouped[i] !== parsedValueField(n));
  return {
    pipes,
    counted: conditions.join(" "),
    bad: values.bad,
    grouped,
    added,
    restored,
    ...(setEmpty.length > 0 && { setEmpty }),
  };
}

/** What extractedValues gives a row. */
export interface ExtractedValues {
  /** Pipes giving each relevant label Loki's value (parsedValueField) and each grouped label its group. */
  pipes: string[];
  /** The filter matching every row where the origin's values could differ from Loki's (module comment). */
  bad: string;
  /** The origin's field holding each grouped label's group. */
  grouped: string[];
  /** Every field the pipes add to a row. */
  added: string[];
  /** With `restore`: the pipes putting back the row's own fields, once nothing reads the groups. */
  restored: string[];
}

/**
 * The values `| regexp` / `| pattern` give the `relevant` labels (those grouped by or filtered on;
 * `typed` the filtered ones whose values must have a shape), and the guard. With `restore`, the
 * row's own fields come out as they went in: `extract_regexp` writes every group of the user's
 * pattern as a field, which a row sent to the Worker must not carry (`restored`).
 */
export function extractedValues(
  parser: RegexpParserStage | PatternParserStage,
  relevant: readonly string[],
  typed: ReadonlyMap<string, TypedValues>,
  groupBy: readonly string[],
  restore: boolean,
  /** The labels a regex filter reads: the only ones whose control characters the guard tests. */
  regexed: ReadonlySet<string>,
): ExtractedValues | undefined {
  // Where Loki set a label to "" and where it left it unset differ for typed filters and groups.
  const needSet = new Set(relevant.filter((n) => typed.has(n) || groupBy.includes(n)));
  const extraction =
    parser.kind === "RegexpParser"
      ? regexpExtraction(parser.regex, relevant, needSet)
      : patternExtraction(parser.pattern, relevant, needSet);
  if (!extraction) return undefined;

  const pipes: string[] = [];
  const restored: string[] = [];
  const added: string[] = [...extraction.fields];
  const parsedNames = relevant.filter((n) => extraction.parsed.has(n));
  // VictoriaLogs (v1.121) takes a field a pipe writes as that pipe's output and no longer reads
  // the stored one for later pipes: the row's own values of the fields `extract_regexp` writes
  // (the user's regexp's groups; a pattern's captures go to fields of their own) are copied first.
  const regexp = parser.kind === "RegexpParser";
  const written = restore && regexp ? goRegexGroupNames(parser.regex) : [];
  const saved = new Set(regexp ? [...parsedNames, ...written] : []);
  /** The field holding the row's own value of label `n` once the extraction ran. */
  const own = (n: string) => (saved.has(n) ? base(n) : n);
  if (parsedNames.length > 0) {
    for (const n of saved) pipes.push(`format ${quote(`<${n}>`)} as ${base(n)}`);
    added.push(...[...saved].map(base));
    const first = extraction.first;
    if (first === undefined) pipes.push(`extract_regexp ${quote(extraction.regex)}`);
    else pipes.push(first.pipe, `extract_regexp if (${first.unread}) ${quote(extraction.regex)}`);
    // Run after every pipe reading the groups; an empty value is no field for VictoriaLogs, so a
    // field the row did not have is gone again.
    for (const n of written) restored.push(`format ${quote(`<${base(n)}>`)} as ${quote(n)}`);
  }
  for (const n of relevant) {
    const v = parsedValueField(n);
    const parsed = extraction.parsed.get(n);
    pipes.push(`format ${quote(`<${own(n)}>`)} as ${v}`);
    if (parsed !== undefined) pipes.push(`format if (${v}:"") ${quote(parsed)} as ${v}`);
    added.push(v);
  }
  pipes.push(...typedValuePipes(typed));
  added.push(...typedValueFields(typed));
  const grouped = groupBy.map((n) => (extraction.setWhere.has(n) ? group(n) : parsedValueField(n)));
  for (const n of groupBy) {
    const set = extraction.setWhere.get(n);
    if (set === undefined) continue;
    pipes.push(`format ${quote(`<${parsedValueField(n)}>`)} as ${group(n)}`);
    pipes.push(`format if (${group(n)}:"" ${set}) ${quote(SET_EMPTY)} as ${group(n)}`);
    added.push(group(n));
  }
  const bad = [`${ERROR}:*`, ...extraction.bad];
  for (const n of relevant) {
    const v = parsedValueField(n);
    if (extraction.parsed.has(n)) {
      // Structured metadata of the name: the Worker reads such rows (Loki keeps the metadata's value).
      bad.push(`(${quote(own(n))}:* not {${n}=~".+"})`);
      const set = extraction.setWhere.get(n);
      // Loki set the label, to "": a typed filter's error where VictoriaLogs sees no value.
      if (typed.has(n) && set !== undefined) bad.push(`(${v}:"" ${set})`);
    }
    // A control character in a value matters only to a regex filter (Loki's `.` stops at a
    // newline); a grouped value that is SET_EMPTY itself would be read back as "".
    bad.push(...valueGuardTerms(v, typed.get(n), regexed.has(n)));
    if (groupBy.includes(n)) bad.push(`${v}:=${quote(SET_EMPTY)}`);
  }
  return { pipes, bad: bad.join(" or "), grouped, added, restored };
}

export interface Extraction {
  /** The `extract_regexp` pattern. */
  regex: string;
  /**
   * A cheaper pipe that reads most lines first, and the filter of the lines it leaves to `regex`
   * (run on those only, with `extract_regexp if`).
   */
  first?: { pipe: string; unread: string };
  /** The relevant labels it sets, each with the `format` template of its parsed value. */
  parsed: Map<string, string>;
  /** For a label of `needSet`, a filter matching the rows where Loki's parser set it (possibly to ""). */
  setWhere: Map<string, string>;
  /** Guard terms of the extraction itself. */
  bad: string[];
  /** The fields of its own the extraction writes (besides the user's regexp groups). */
  fields: string[];
}

/**
 * `| regexp`: the user's pattern (Go's syntax on both sides), its groups written as fields of their
 * own names. Where a label's "set or not" matters, the pattern is wrapped so that it also tells
 * whether it matched: `\A(?:.*?(?P<p>.))??(?P<a>R)(?P<z>.)?` finds R at the same place with the same
 * groups (the lazy prefix tries every start from the left, as Go's unanchored search does, and
 * the optional last character always follows), and on a non-empty line it matched exactly where
 * one of `p` (the character before the match), `a` (the match) and `z` (the one after) is
 * non-empty. Empty lines, where an empty match cannot be told from none, are guarded. Undefined
 * when a group name is not one the origin can hold.
 */
export function regexpExtraction(
  regex: string,
  relevant: readonly string[],
  needSet: ReadonlySet<string>,
): Extraction | undefined {
  if (!regex.isWellFormed()) return undefined;
  const groups = goRegexGroupNames(regex);
  if (!groups.every(pushableName())) return undefined;
  const parsed = new Map<string, string>();
  const setWhere = new Map<string, string>();
  // A group with a value says the pattern matched; where all are empty, the wrapped pattern tells.
  // Quoted: a group may be named as a LogsQL keyword (`or`, `not`).
  const told = [...groups.map((g) => `${quote(g)}:*`), `${MATCH_BEFORE}:*`, `${MATCH}:*`, `${MATCH_AFTER}:*`];
  for (const n of relevant) {
    if (!groups.includes(n)) continue;
    parsed.set(n, `<${n}>`);
    if (needSet.has(n)) setWhere.set(n, `(${told.join(" or ")})`);
  }
  if (setWhere.size === 0) return { regex, parsed, setWhere, bad: [], fields: [] };
  const wrapped = String.raw`\A(?:(?s:.*?)(?P<${MATCH_BEFORE}>(?s:.)))??(?P<${MATCH}>${regex})(?P<${MATCH_AFTER}>(?s:.))?`;
  // The pattern alone keeps Go's literal-prefix search, three times faster than the wrapped one.
  const first = {
    pipe: `extract_regexp ${quote(regex)}`,
    unread: `(${groups.map((g) => `${quote(g)}:""`).join(" ")})`,
  };
  const fields = [MATCH_BEFORE, MATCH, MATCH_AFTER];
  return { regex: wrapped, parsed, setWhere, bad: ["-_msg:*"], first, fields };
}

const MATCH_BEFORE = "__xp";
const MATCH = "__xa";
const MATCH_AFTER = "__xz";

/**
 * `| pattern`: the RE2 regex finding what Loki's matcher finds (see the module comment), with the
 * literal before each capture of `needSet` captured: Loki set that capture where it is non-empty.
 */
export function patternExtraction(
  pattern: string,
  relevant: readonly string[],
  needSet: ReadonlySet<string>,
): Extraction | undefined {
  if (!pattern.isWellFormed()) return undefined;
  const nodes = compilePattern(pattern, true).nodes;
  if (nodes.some((node) => "literal" in node && node.literal.includes("\uFFFD"))) return undefined;
  const parsed = new Map<string, string>();
  const setWhere = new Map<string, string>();
  const markers = new Set<number>();
  let last = -1;
  nodes.forEach((node, k) => {
    if (!("capture" in node) || !relevant.includes(node.capture)) return;
    parsed.set(node.capture, `<${found(node.capture)}><${rest(node.capture)}>`);
    last = k;
    if (!needSet.has(node.capture)) return;
    // Loki reads nothing of an empty line.
    if (k === 0) setWhere.set(node.capture, "_msg:*");
    else {
      markers.add(k - 1);
      setWhere.set(node.capture, `${reached(k - 1)}:*`);
    }
  });
  if (last < 0) return { regex: "", parsed, setWhere, bad: [], fields: [] };
  const literal = (k: number) => {
    const text = escapeRegex((nodes[k] as { literal: string }).literal);
    return markers.has(k) ? `(?P<${reached(k)}>${text})` : text;
  };
  // Each capture wraps the ones after it, up to the last relevant one.
  const captureAt = (k: number): string => {
    const name = (nodes[k] as { capture: string }).capture;
    const named = parsed.has(name);
    if (nodes[k + 1] === undefined) return named ? `(?P<${found(name)}>(?s:.*))` : "";
    const tail = k + 2 <= last ? captureAt(k + 2) : "";
    const head = named ? `(?P<${found(name)}>(?s:.*?))` : "(?s:.*?)";
    const otherwise = named ? `(?P<${rest(name)}>(?s:.*))` : "";
    return `(?:${head}${literal(k + 1)}${tail}|${otherwise})`;
  };
  const regex = "literal" in nodes[0]! ? `\\A${literal(0)}${captureAt(1)}` : `\\A${captureAt(0)}`;
  const fast = fastPattern(nodes, parsed, last);
  if (fast !== undefined) {
    // Where VictoriaLogs' extract read the line, Loki set every capture up to the last one read.
    for (const [name, where] of setWhere) {
      if (where !== "_msg:*") setWhere.set(name, `(${fast.complete}:* or ${where})`);
    }
  }
  const first = fast && { pipe: `extract ${quote(fast.pattern)}`, unread: `${fast.complete}:""` };
  const fields = [...[...parsed.keys()].flatMap((n) => [found(n), rest(n)]), ...[...markers].map(reached)];
  if (fast?.complete === COMPLETE) fields.push(COMPLETE);
  return { regex, parsed, setWhere, bad: [], fields, ...(first && { first }) };
}

/** The end of VictoriaLogs' extract pattern when the pattern's last capture read ends with a literal. */
const COMPLETE = "__xe";

/**
 * VictoriaLogs' `extract` reads a pattern as Loki does, each capture up to the first occurrence
 * of the literal after it (Go's strings.Index, Loki's bytes.Index), with three differences: it
 * searches the first literal anywhere in the line (Loki: only at its start), unquotes a capture
 * that starts with a quoted string (`<plain:…>` turns that off), and stops at a missing literal
 * with that capture and the later ones empty (Loki: that capture takes the rest). So for a pattern
 * that starts with a capture, whose literals hold no `&` (VictoriaLogs unescapes HTML entities in
 * them) nor `<` (the start of a field to it), the extract pattern up to the last capture read,
 * followed by its literal and `<plain:__xe>` (the rest of the line), reads every capture exactly
 * where `__xe` is non-empty: the extract then found every literal up to there. Where the last
 * capture read ends the pattern, its own value is the proof (the extract reached it). The regex
 * reads the other lines.
 */
function fastPattern(
  nodes: ReturnType<typeof compilePattern>["nodes"],
  parsed: ReadonlyMap<string, string>,
  last: number,
): { pattern: string; complete: string } | undefined {
  if ("literal" in nodes[0]!) return undefined;
  let pattern = "";
  for (let k = 0; k <= last + 1 && k < nodes.length; k++) {
    const node = nodes[k]!;
    if ("literal" in node) {
      if (/[&<]/.test(node.literal)) return undefined;
      pattern += node.literal;
    } else pattern += parsed.has(node.capture) ? `<plain:${found(node.capture)}>` : "<plain:>";
  }
  const lastName = (nodes[last] as { capture: string }).capture;
  if (last + 1 >= nodes.length) return { pattern, complete: found(lastName) };
  return { pattern: `${pattern}<plain:${COMPLETE}>`, complete: COMPLETE };
}

interface FilterStages {
  filters: LabelFilterExpr[];
  /** Labels some `drop` removes. */
  dropped: Set<string>;
}

/** The label filters after the parser, when the stages are only filters and `drop`s without matchers. */
function filtersAfter(stages: readonly PipelineStage[]): FilterStages | undefined {
  const filters: LabelFilterExpr[] = [];
  const dropped = new Set<string>();
  for (const stage of stages) {
    if (stage.kind === "Drop") {
      if (stage.items.some((item) => item.matcher)) return undefined;
      for (const item of stage.items) dropped.add(item.name);
    } else if (stage.kind === "LabelFilter") {
      const f = stage.filter;
      // Neither parser sets an error, and a row with an `__error__` field is guarded: a no-op.
      if (isNoErrorFilter(f)) continue;
      filters.push(f);
    } else return undefined;
  }
  return { filters, dropped };
}

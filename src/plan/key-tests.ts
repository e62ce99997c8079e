/**
 * Tests of a line for the keys a parser may read as a label, the terms the push-downs' guards are
 * made of (plan/parser-pushdown.ts, plan/unwrap-pushdown.ts, plan/parsed-filter.ts): where a line
 * may name a key Loki reads as label `name`, name it twice, or name it through nested objects
 * VictoriaLogs flattens otherwise. Each is a superset of the lines it stands for (a superset only
 * sends more rows to the Worker), led by a literal wherever one can lead: VictoriaLogs finds a
 * regex's leading literal by substring search, and runs the rest only where it is found.
 */
import { KELVIN } from "./lenient-lines";
import { escapeRegex, quote } from "./logsql";
import { levelBoundaries } from "./key-spellings";

/** Prefix of the fields a guard computes: a `delete` of it removes them all. */
export const GUARD = "__guard_";

/**
 * Whether a line may name a key twice, without a regex: every spelling of a key Loki reads as
 * `name` holds each part of the name (between its `_`s) literally, so a line with two such keys
 * holds the longest part twice. Pipes after the unpack count it — the line's length, less its
 * length once every occurrence is removed — and the guard tests the difference (a superset: the
 * part may also occur in values or other keys). One pass of substring replacement costs the origin
 * a tenth of what `(?s)key.*key` does (that regex reads the rest of the line after each mention:
 * 1.4 µs a line for `job` on a logfmt line of 130 bytes, where the count costs some 0.15 µs); parts
 * shorter than MIN_COUNTED (`id`, `ip`), which many lines hold twice anyway, keep the regex alone.
 */
export class RepeatCounters {
  private readonly steps: string[] = [];
  private count = 0;

  /** The counter's index for each literal: a literal asked for again reuses its counter. */
  private readonly index = new Map<string, number>();

  /** The filter matching lines that hold `literal` at least twice. */
  term(literal: string): string {
    const known = this.index.get(literal);
    if (known !== undefined) return `${GUARD}d${known}:>${literal.length}`;
    const k = this.count++;
    this.index.set(literal, k);
    const copy = `${GUARD}m${k}`;
    const removed = `${GUARD}d${k}`;
    this.steps.push(
      `copy _msg as ${copy}`,
      `replace (${quote(literal)}, "") at ${copy}`,
      `len(${copy}) as ${copy}`,
      `math (${GUARD}len - ${copy}) as ${removed}`,
    );
    return `${removed}:>${literal.length}`;
  }

  /** The fields the counters' pipes add to a row. */
  fields(): string[] {
    if (this.count === 0) return [];
    const out = [`${GUARD}len`];
    for (let k = 0; k < this.count; k++) out.push(`${GUARD}m${k}`, `${GUARD}d${k}`);
    return out;
  }

  /** The pipes that compute the counters' fields (empty when none was asked for). */
  pipes(): string {
    return this.steps.length === 0 ? "" : [` | len(_msg) as ${GUARD}len`, ...this.steps].join(" | ");
  }
}

const MIN_COUNTED = 3;

/**
 * The end of a JSON object key Loki may read as label `name`, and its colon: any character or
 * escape sequence where the name has `_` (Loki writes `_` for each invalid one), then padding that
 * Loki trims (spaces, or escaped whitespace such as `\t`). The key's
 * start is left open — a superset, which only sends more queries back to local evaluation — so the
 * regex starts with a literal, which the origin's regex engine finds by substring search (a
 * leading character class made the guard cost 40× the aggregation itself).
 *
 * Where the name has `_`, the character is any at all (`(?s:.)`), quotes and backslashes included:
 * a superset again. The exact class, `[^"\\]`, costs VictoriaLogs (v1.121) about 12 ms to prepare
 * for every query that holds it (in its regex simplification, before any row is read): more than
 * scanning the rows of a six-hour dashboard panel costs it.
 */
export function looseKey(name: string): string {
  return `${looseName(name)}${LOOSE_KEY_END}`;
}

/** looseKey's name: a character, or an escape sequence (`\t` unescapes to one), for each `_`. */
function looseName(name: string): string {
  return name
    .split("_")
    .map(escapeRegex)
    .join(String.raw`(?:(?s:.)|\\.)`);
}

/** looseKey's end: padding Loki trims, the closing quote and the colon. */
const LOOSE_KEY_END = String.raw`(?:[^"\\\w]|\\.)*"\s*:`;

/**
 * Lines that may hold a logfmt key Loki reads as `name`: logfmtKey without its leading class, a
 * superset. Led by a literal, it costs VictoriaLogs a substring search where logfmtKey costs a
 * scan of every line (it doubled the origin's CPU on a field panel).
 */
export function logfmtKeyIn(name: string): string {
  return `_msg:~${quote(`${led(wildcardName(name))}${KEY_TAIL}`)}`;
}

/**
 * Lines where a logfmt key Loki may read as one of `names` has a tab, line break, vertical tab or
 * form feed between it and its `=` (`level\t=info`): VictoriaLogs' reader ends a key only at `=`
 * or a space and trims the rest (Go's TrimSpace), so it reads `level`; Loki's ends the key at the
 * tab and reads no value there (Unicode spaces alone both trim, beside a tab they do not). Only on
 * lines holding such a character, found by a byte search, which costs the origin a third of
 * testing the keys on every line.
 */
export function logfmtPaddedKeys(names: readonly string[]): string {
  const keys = names.map((n) => `_msg:~${quote(`${led(wildcardName(n))}${TRIMMED}+=`)}`);
  return `(_msg:~${quote(PADDING)} (${keys.join(" or ")}))`;
}

/** The whitespace Go's TrimSpace removes from a key and Loki's logfmt reader ends one at. */
const PADDING = String.raw`[\t\n\x0B\f\r]`;
/** Everything Go's TrimSpace removes but the space (which ends a key on both sides). */
const TRIMMED = String.raw`[\t\n\x0B\f\r\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]`;

/**
 * A logfmt key Loki may read as `name`: it starts the line or follows a byte ≤ 0x20 (or a quoted
 * value's closing quote), has any character where the name has `_`, then characters Loki's
 * trimming may remove, then `=`. A key without `=` (or with nothing after it) is never one: Loki's
 * `| logfmt` (without `--keep-empty`, which is not pushed) sets no label for an empty value, as
 * VictoriaLogs sets no field, so neither side has the label there. Not requiring the `=` would
 * also take every JSON line's `"name":` for a key, and send every row of `| json | logfmt` with a
 * typed filter to the Worker.
 */
export function logfmtKey(name: string): string {
  return `${logfmtBareKey(name)}${KEY_TAIL}`;
}

/**
 * A logfmt key Loki's expression parser (`| logfmt name="key"`) may read, with or without `=`: it
 * sets its labels from empty values too, so a bare key counts there.
 */
export function logfmtBareKey(name: string): string {
  return `${LOGFMT_KEY_START}${wildcardName(name)}`;
}

/** What starts a logfmt key: the line's start, a byte ≤ 0x20 or a quoted value's closing quote. */
const LOGFMT_KEY_START = `(?:^|[\\x00-\\x20"])`;

/** The rest of a logfmt key and its `=` (without KELVIN, which the guard matches whole). */
const KEY_TAIL = `[^\\x00-\\x20="${KELVIN}]*=`;

/** `name` as a regex with any one character where it has `_` (Loki's sanitising writes `_` for it). */
function wildcardName(name: string): string {
  return name.split("_").map(escapeRegex).join("(?s:.)");
}

/**
 * Lines where a match of `later` follows one of `first` (key regexes that may open with what
 * precedes a key: LOGFMT_KEY_START, JSON_KEY_START). The exact regex is tried only on the lines
 * where the keys without their openings are found in that order: that regex opens with the key's
 * own text, which Go's regexp looks for before trying the rest, so the lines without them are
 * passed over at a fraction of the cost (about a quarter on the benchmark's logfmt lines).
 */
export function inOrder(first: string, later: string): string {
  const open = `(?s)${withoutKeyStart(first)}.*${withoutKeyStart(later)}`;
  return `(_msg:~${quote(open)} _msg:~${quote(`(?s)${first}.*${later}`)})`;
}

/**
 * Lines holding a match of `key` (a key regex, see inOrder), tried only on the lines holding it
 * without its opening: the regex that opens with the key's own text passes over the others at a
 * fraction of the cost (on JSON lines, which name `level` without a logfmt pair, about a fifth).
 */
export function keyMention(key: string): string {
  const open = withoutKeyStart(key);
  return open === key ? `_msg:~${quote(key)}` : `(_msg:~${quote(open)} _msg:~${quote(key)})`;
}

/** A key regex without its opening (logfmtBareKey's, JSON_KEY_START). */
function withoutKeyStart(key: string): string {
  for (const start of [LOGFMT_KEY_START, JSON_KEY_START])
    if (key.startsWith(start)) return led(key.slice(start.length));
  return led(key);
}

/**
 * A key regex searched for anywhere in a line, without the any-character a name led by `_` opens
 * with (GELF's `_facility`, `_l`): a superset, led by the literal after it, which the origin finds
 * by substring search where a leading wildcard costs a scan of every line.
 */
function led(key: string): string {
  for (const any of [String.raw`(?:(?s:.)|\\.)`, "(?s:.)"]) if (key.startsWith(any)) return key.slice(any.length);
  return key;
}

/**
 * Lines that may name a key twice: the key regex twice. For a name with a part of MIN_COUNTED
 * characters or more, the regex runs only on lines holding that part twice (counted, see
 * RepeatCounters), which most lines do not: the count alone would also catch the part in values or
 * other keys (`"msg": "user …"` beside `"user_id"`) and keep such queries local.
 */
export function twiceIn(name: string, key: string, repeats: RepeatCounters): string {
  const longest = name.split("_").reduce((a, b) => (b.length > a.length ? b : a));
  const regex = inOrder(key, key);
  return longest.length >= MIN_COUNTED ? `(${repeats.term(longest)} ${regex})` : regex;
}

/**
 * The start of a JSON key Loki may read as `name`: the opening quote, then padding Go's TrimSpace
 * removes (raw or escaped). Only the repetition test needs it: a key merely ending in the name
 * (`"msg"` for `g`) would otherwise count as a second one on every line.
 */
const JSON_KEY_START = String.raw`"(?:[^\x21-\x7e"\\]|\\.)*`;

/**
 * JSON lines that may hold a key Loki reads as label `name` (looseKey), and, for `| json`
 * (`levels`), the same through nested objects: the key of each level, each but the last opening
 * an object, in the line's order. With `valued`, only where the key's value is not a plain `null`.
 */
export function jsonMentioned(name: string, levels: boolean, valued = false): string {
  const tail = valued ? NOT_NULL : "";
  const terms = [`_msg:~${quote(led(looseKey(name)) + tail)}`];
  const parts = name.split("_");
  const bounds = levels ? (levelBoundaries(name) ?? []) : [];
  for (let cut = 1; cut < 1 << bounds.length; cut++) {
    const ends = [...bounds.filter((_, k) => cut & (1 << k)), parts.length];
    const keys = ends.map((end, k) => looseKey(parts.slice(k === 0 ? 0 : ends[k - 1], end).join("_")));
    terms.push(`_msg:~${quote(`(?s)${led(keys.join(String.raw`\s*\{.*`))}${tail}`)}`);
  }
  return terms.length === 1 ? terms[0]! : `(${terms.join(" or ")})`;
}

/**
 * After a key's colon: a value other than `null` followed by JSON's whitespace and a delimiter
 * (anything else, an unfinished `nul` included, is taken for a value). Negated classes leave out
 * U+212A, as in json-escapes.ts.
 */
const NOT_NULL = String.raw`[\t\n\r ]*(?:$|[^n\t\n\r \x{212A}]|n(?:$|[^u\x{212A}]|u(?:$|[^l\x{212A}]|l(?:$|[^l\x{212A}]|l[\t\n\r ]*(?:$|[^,}\]\t\n\r \x{212A}])))))`;

/**
 * JSON lines where Loki's label `name` may be read from more than one key, or another than
 * VictoriaLogs reads: the key twice; a key that names it through nested objects beside another
 * (an object under a prefix of the name, and the name's last part twice as the end of a key); for
 * names not read through nested objects (levelBoundaries), any object under a prefix.
 */
export function jsonAmbiguous(name: string, repeats: RepeatCounters): string {
  const parts = name.split("_");
  const twice = twiceIn(name, JSON_KEY_START + looseKey(name), repeats);
  const bounds = levelBoundaries(name);
  const objectsAt = bounds && bounds.length > 0 ? bounds : parts.slice(1).map((_, i) => i + 1);
  const objects = objectsAt.map((i) => `_msg:~${quote(looseKey(parts.slice(0, i).join("_")) + String.raw`\s*\{`)}`);
  if (objects.length === 0) return twice;
  if (!bounds || bounds.length === 0) return [twice, ...objects].join(" or ");
  // Every spelling's last key is, whole, the name from some part on (`pod_name`, `name` for
  // `kubernetes_pod_name`): a line with two spellings holds two such keys. Keys merely ending so
  // (`namespace_name`, which every Kubernetes object beside `pod_name` holds) are not; the keys'
  // last part twice is the gate, led by a literal. Not counted (RepeatCounters): a counter copies
  // every line, and the objects gate both regexes.
  const last = looseKey(parts[parts.length - 1]!);
  const ends = parts.map((_, i) => looseName(parts.slice(i).join("_")));
  const end = `${JSON_KEY_START}(?:${ends.join("|")})${LOOSE_KEY_END}`;
  const twoEnds = `_msg:~${quote(`(?s)${last}.*${last}`)} _msg:~${quote(`(?s)${end}.*${end}`)}`;
  return `${twice} or ((${objects.join(" or ")}) ${twoEnds})`;
}

/** A JSON key spelled exactly `key` and its colon (escapes in keys are guarded on their own). */
const jsonKey = (key: string) => String.raw`"${escapeRegex(key)}"\s*:`;

/**
 * Lines that may hold a value at `path` as Loki follows it: each key, each but the last opening
 * an object, in the line's order. A superset (the keys may sit anywhere), led by a literal.
 */
export function pathIn(path: readonly string[]): string {
  const steps = path.map((k, i) => (i < path.length - 1 ? String.raw`${jsonKey(k)}\s*\{` : jsonKey(k)));
  return `_msg:~${quote(`(?s)${steps.join(".*")}`)}`;
}

/**
 * JSON lines where VictoriaLogs' field for a nested path (its keys joined with `.`) may not hold
 * the value Loki reads by following the first matching key at each level:
 * - a key of the path twice where it matters: the first anywhere, a later one after the opening
 *   of an object under the key before it (within the object Loki follows, the first may be `null`
 *   or not an object, and VictoriaLogs keeps every match);
 * - another path flattening to the same name: any key holding a `.` would, and to join into
 *   `a.b.c` it must hold `a.b` or `b.c`.
 * Each repetition regex runs only on lines holding the quoted key twice (counted).
 */
export function pathAmbiguous(path: readonly string[], repeats: RepeatCounters): string {
  const terms = path.map((k, i) => {
    const opened = i === 0 ? "" : String.raw`${jsonKey(path[i - 1]!)}\s*\{.*`;
    return `(${repeats.term(`"${k}"`)} _msg:~${quote(`(?s)${opened}${jsonKey(k)}.*${jsonKey(k)}`)})`;
  });
  for (let i = 1; i < path.length; i++) terms.push(`_msg:~${quote(escapeRegex(`${path[i - 1]}.${path[i]}`))}`);
  return terms.join(" or ");
}

/**
 * The keys VictoriaLogs may hold a value under that Loki reads as one label: Loki sanitises a key
 * (a character outside [A-Za-z0-9_] becomes `_`) and names nested JSON objects' keys joined with
 * `_`, VictoriaLogs keeps keys as written and joins nested ones with `.`. The parser and unwrap
 * push-downs unpack every spelling listed here and keep the first set; a line with any other
 * spelling, or two, is their guard's.
 */

/** Most parts (`_`-separated) of a name read from nested objects too: each `_` may be a level. */
const MAX_LEVEL_PARTS = 4;

/**
 * Where Loki's `| json` may have crossed into a nested object to name `name` (`{"a": {"b": 1}}`
 * gives `a_b`): the indexes of the parts after which a level may end, each `_` followed by a part
 * not starting with a digit (Loki writes `a__1` for `{"a": {"1": …}}`). Undefined for names of
 * more parts than MAX_LEVEL_PARTS or with an empty part: lines with an object under a prefix of
 * such a name stay guarded.
 */
export function levelBoundaries(name: string): number[] | undefined {
  const parts = name.split("_");
  if (parts.length > MAX_LEVEL_PARTS || parts.some((p) => p === "")) return undefined;
  return parts.flatMap((p, i) => (i > 0 && !/^[0-9]/.test(p) ? [i] : []));
}

/**
 * The fields VictoriaLogs' `unpack_json` may hold Loki's `| json` label `name` in: the name itself,
 * then each way of making some of its level boundaries `.` (`a_b` is also `a.b`, from
 * `{"a": {"b": 1}}` or `{"a.b": 1}`, both of which Loki names `a_b`), then each of those with every
 * `_` left a `-` (HTTP headers' spelling: Loki names `{"user-agent": …}` `user_agent`, and
 * `{"req": {"content-length": 1}}` `req_content_length`), and the name with some of them `-`
 * (mixedDashes); for a name led by one `_`, the name and the name led by `@` instead (Serilog's
 * `@l` is Loki's `_l`). A line with any other spelling Loki reads as the label, or with two of
 * them, stays guarded (jsonMentioned, twiceIn).
 */
export function flattenedFields(name: string): string[] {
  // A leading `_` is also `@` (Serilog's and Logstash's `@l`, `@mt`, `@timestamp`).
  if (/^_[^_]/.test(name)) return [name, `@${name.slice(1)}`];
  const dotted = dottedFields(name);
  if (!respellable(name)) return dotted;
  const dashed = dotted.map((f) => f.replaceAll("_", "-")).filter((f, i) => f !== dotted[i]);
  return [...new Set([...dotted, ...dashed, ...mixedDashes(name)])];
}

/**
 * The name with some of its `_`s `-` (not all, nor none: flattenedFields has those), up to
 * MAX_LEVEL_PARTS parts: Traefik's access log names a request header `request_User-Agent`, which
 * Loki reads as `request_User_Agent`.
 */
function mixedDashes(name: string): string[] {
  const parts = name.split("_");
  if (parts.length > MAX_LEVEL_PARTS) return [];
  return respelled(parts, parts.map((_, i) => i).slice(1), "-").slice(1, -1);
}

/**
 * `parts` joined by `_`, once for each subset of `at` (the parts a separator precedes) where `sep`
 * joins instead: the subsets in the order of their bit masks, from none to all.
 */
function respelled(parts: readonly string[], at: readonly number[], sep: string): string[] {
  const out: string[] = [];
  for (let mask = 0; mask < 1 << at.length; mask++) {
    out.push(
      parts.reduce((field, part, i) => {
        const k = at.indexOf(i);
        return field + (k >= 0 && mask & (1 << k) ? sep : "_") + part;
      }),
    );
  }
  return out;
}

/** A name whose `_`s each join two parts (no empty part): another separator reads back as it. */
const respellable = (name: string) => name.includes("_") && !/^_|__|_$/.test(name);

/**
 * The keys VictoriaLogs' `unpack_logfmt` may hold Loki's `| logfmt` label `name` under: the name,
 * then with every `_` a `.` (OpenTelemetry's `http.method=GET`) and a `-`, which Loki sanitises to
 * `_`. Other spellings, and two of them in a line, stay guarded (keyMention, twiceIn).
 */
export function logfmtFields(name: string): string[] {
  return respellable(name) ? [name, name.replaceAll("_", "."), name.replaceAll("_", "-")] : [name];
}

function dottedFields(name: string): string[] {
  return respelled(name.split("_"), levelBoundaries(name) ?? [], ".");
}

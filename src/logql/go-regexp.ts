/**
 * Go regular expressions with RE2's linear-time guarantee, behind one interface for every place
 * the Worker matches (line and label filters, the `regexp` parser, label_replace, template
 * functions, matcher checks).
 *
 * Go's regexp never backtracks, so a LogQL query cannot make Loki take time exponential (or
 * quadratic) in a line; V8's RegExp can (`(a+)+$` on a long line of `a` stalls the isolate).
 * Patterns whose backtracking work is provably bounded per input character (backtrack-bound.ts)
 * run on V8's engine through the Go-to-JS translator, which is several times faster; every other
 * pattern runs on re2js, a port of RE2 with Go's syntax and leftmost-first semantics, as does
 * anything the translation does not reproduce exactly. The translator validates every pattern
 * first, so errors keep Go's exact wording either way.
 */
import { RE2JS } from "re2js";
import { backtrackingIsBounded } from "./backtrack-bound";
import { GoRegexError, goRegexGroupNumbers, translateGoRegex } from "./regex";
import { BoundedMap } from "../util/bounded-map";

export interface GoMatch {
  /** UTF-16 offsets of the whole match. */
  readonly index: number;
  readonly end: number;
  /** Text of each group, 0 being the whole match; undefined for a group that took no part. */
  readonly groups: readonly (string | undefined)[];
}

export interface GoRegexp {
  /** Which engine runs this pattern: "backtracking" (V8, bounded) or "linear" (re2js). */
  readonly engine: "backtracking" | "linear";
  /** Group number of each named group. */
  readonly groupNumbers: ReadonlyMap<string, number>;
  /** Whether the pattern matches (anchored: the whole of `s`; otherwise anywhere in it). */
  test(s: string): boolean;
  /**
   * The leftmost-first match starting at or after `from` (Go's submatch search). Text before
   * `from` still counts as context for `^` and `\b`. Anchored patterns ignore `from`.
   */
  exec(s: string, from?: number): GoMatch | null;
}

export interface GoRegexpOptions {
  /** Match the whole input, as Prometheus label matchers and Loki label filters do. */
  anchored?: boolean;
  /** Which engine to use; by default the bounded backtracking one when the pattern allows it. */
  engine?: GoRegexp["engine"];
}

/** A compiled pattern (either engine) holds several times its source. */
const cache = new BoundedMap<GoRegexp>(512, 4 * 1024 * 1024, (_re, key) => 16 * key.length);

/** Compiles (or reuses) a Go regexp; throws GoRegexError with Go's message when it is invalid. */
export function compileGoRegexp(src: string, opts?: GoRegexpOptions): GoRegexp {
  const anchored = opts?.anchored === true;
  const key = `${anchored ? "A" : "U"}${opts?.engine?.[0] ?? "-"}${src}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  // Validates with Go's error text, whichever engine runs the pattern.
  const body = translateGoRegex(src);
  const groupNumbers = goRegexGroupNumbers(src);
  const engine = opts?.engine ?? (translationIsExact(src) && backtrackingIsBounded(src) ? "backtracking" : "linear");
  let re: GoRegexp;
  try {
    re =
      engine === "backtracking"
        ? backtracking(anchored ? `^(?:${body})$` : body, anchored, groupNumbers)
        : linear(RE2JS.compile(src), anchored, groupNumbers);
  } catch (e) {
    // The translator checks Go's syntax and limits first; an engine that still refuses the
    // pattern (re2js' own parser, V8's size limit) is reported in Go's words, as a query error.
    const message = e instanceof Error ? e.message : "";
    throw new GoRegexError(
      message.startsWith("error parsing regexp: ") ? message : `error parsing regexp: expression too large: \`${src}\``,
    );
  }
  cache.set(key, re);
  return re;
}

/**
 * False for the one construct the JS translation does not reproduce: case folding (`(?i)`) of
 * non-ASCII characters, Unicode classes or POSIX classes. Go folds by Unicode's simple folding
 * orbits (ß ẞ, σ ς Σ, `(?i)\p{Lu}` taking lowercase letters), which JS's case mapping does not give.
 */
function translationIsExact(src: string): boolean {
  if (!/\(\?[A-Za-z]*i/.test(src)) return true;
  return !/[^\x00-\x7f]|\\[pP]|\[:/.test(src);
}

function backtracking(source: string, anchored: boolean, groupNumbers: ReadonlyMap<string, number>): GoRegexp {
  const test = new RegExp(source, "u");
  // A global copy: `lastIndex` sets where the search starts while the input stays whole.
  const search = new RegExp(source, "gu");
  return {
    engine: "backtracking",
    groupNumbers,
    test: (s) => test.test(s),
    exec(s, from = 0) {
      search.lastIndex = anchored ? 0 : from;
      const m = search.exec(s);
      if (m === null) return null;
      return { index: m.index, end: m.index + m[0].length, groups: [...m] };
    },
  };
}

function linear(re: RE2JS, anchored: boolean, groupNumbers: ReadonlyMap<string, number>): GoRegexp {
  const count = re.groupCount();
  return {
    engine: "linear",
    groupNumbers,
    test: (s) => (anchored ? re.testExact(s) : re.test(s)),
    exec(s, from = 0) {
      // The capture-free DFA answers "no match" several times faster than a submatch search.
      if (from === 0 && !(anchored ? re.testExact(s) : re.test(s))) return null;
      const m = re.matcher(s);
      if (!(anchored ? m.matches() : m.find(from))) return null;
      const groups: (string | undefined)[] = [];
      for (let i = 0; i <= count; i++) groups.push(m.group(i) ?? undefined);
      return { index: m.start(), end: m.end(), groups };
    },
  };
}

/** The text of a named group in a match ("" when the group took no part or does not exist). */
export function namedGroup(re: GoRegexp, m: GoMatch, name: string): string {
  const n = re.groupNumbers.get(name);
  return n === undefined ? "" : (m.groups[n] ?? "");
}

/** UTF-16 units of the character at `i` (2 for a surrogate pair). */
export function charWidth(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
}

/**
 * Go's `ReplaceAll…` iteration: every match replaced by `replacement(match)`, except an empty
 * match directly after the previous match; the search always advances by at least one character.
 */
export function replaceAll(re: GoRegexp, s: string, replacement: (m: GoMatch) => string): string {
  let out = "";
  let lastEnd = 0;
  let searchPos = 0;
  while (searchPos <= s.length) {
    const m = re.exec(s, searchPos);
    if (!m) break;
    out += s.slice(lastEnd, m.index);
    if (m.end > lastEnd || m.index === 0) out += replacement(m);
    lastEnd = m.end;
    const width = searchPos < s.length ? charWidth(s, searchPos) : 1;
    searchPos = searchPos + width > m.end ? searchPos + width : m.end;
  }
  return out + s.slice(lastEnd);
}

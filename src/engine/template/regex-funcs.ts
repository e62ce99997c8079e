/**
 * regexReplaceAll, regexReplaceAllLiteral and count: Go's regexp "All" iteration (an empty match
 * right after a previous match is skipped) and Go's `$1` / `${name}` replacement expansion, which
 * differ from String.prototype.replace.
 */

import { charWidth, compileGoRegexp, type GoMatch, type GoRegexp, namedGroup, replaceAll } from "../../logql/go-regexp";
import { GoRegexError } from "../../logql/regex";
import { FuncError } from "./funcs";
import { BoundedMap } from "../../util/bounded-map";

const errorCache = new BoundedMap<string>(256, 256 * 1024, (message) => 2 * message.length);

/** The compiled pattern; an invalid one is a template error (its message remembered, not re-parsed). */
function compile(pattern: string): GoRegexp {
  const known = errorCache.get(pattern);
  if (known !== undefined) throw new FuncError(known);
  try {
    return compileGoRegexp(pattern);
  } catch (e) {
    if (!(e instanceof GoRegexError)) throw e;
    errorCache.set(pattern, e.message);
    throw new FuncError(e.message);
  }
}

export function countMatches(pattern: string, s: string): number {
  const re = compile(pattern);
  let n = 0;
  let pos = 0;
  let prevEnd = -1;
  while (pos <= s.length) {
    const m = re.exec(s, pos);
    if (!m) break;
    const start = m.index;
    const end = m.end;
    let accept = true;
    if (end === pos) {
      // an empty match directly after the previous match does not count
      if (start === prevEnd) accept = false;
      pos += pos < s.length ? charWidth(s, pos) : 1;
    } else pos = end;
    prevEnd = end;
    if (accept) n++;
  }
  return n;
}

/** Go's Regexp.Expand of a replacement template against one match. */
function expand(template: string, re: GoRegexp, m: GoMatch): string {
  let out = "";
  let rest = template;
  for (;;) {
    const d = rest.indexOf("$");
    if (d < 0) break;
    out += rest.slice(0, d);
    rest = rest.slice(d + 1);
    if (rest[0] === "$") {
      out += "$";
      rest = rest.slice(1);
      continue;
    }
    let name: string;
    if (rest[0] === "{") {
      const close = rest.indexOf("}");
      const inner = close < 0 ? "" : rest.slice(1, close);
      if (close < 0 || inner === "" || !/^[\p{L}\p{Nd}_]+$/u.test(inner)) {
        out += "$";
        continue;
      }
      name = inner;
      rest = rest.slice(close + 1);
    } else {
      const nm = /^[\p{L}\p{Nd}_]+/u.exec(rest);
      if (!nm) {
        out += "$";
        continue;
      }
      name = nm[0];
      rest = rest.slice(name.length);
    }
    if (/^[0-9]+$/.test(name)) {
      const idx = name.length > 8 ? -1 : Number(name);
      if (idx >= 0 && idx < m.groups.length) out += m.groups[idx] ?? "";
    } else {
      out += namedGroup(re, m, name);
    }
  }
  return out + rest;
}

export function regexReplace(pattern: string, s: string, repl: string, expandRepl: boolean): string {
  const re = compile(pattern);
  return replaceAll(re, s, expandRepl ? (m) => expand(repl, re, m) : () => repl);
}

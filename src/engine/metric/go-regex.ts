/**
 * Go's `Regexp.Expand` for label_replace: `$1` / `${name}` expansion with Go's rules for malformed
 * references. Compiling Go regexes is src/logql/go-regexp.ts's job.
 */
import { type GoMatch, type GoRegexp, namedGroup } from "../../logql/go-regexp";

/**
 * Go's `Regexp.ExpandString`: `$name` takes the longest run of word characters (so `$1x` names
 * group "1x", which does not exist and expands to ""), `${name}` is explicit, `$$` is a dollar, and
 * a `$` not followed by a valid reference is kept as is.
 */
export function expandTemplate(template: string, re: GoRegexp, match: GoMatch): string {
  let out = "";
  let i = 0;
  while (i < template.length) {
    const dollar = template.indexOf("$", i);
    if (dollar < 0) {
      out += template.slice(i);
      break;
    }
    out += template.slice(i, dollar);
    const rest = template.slice(dollar + 1);
    if (rest.startsWith("$")) {
      out += "$";
      i = dollar + 2;
      continue;
    }
    const ref = /^\{(\w+)\}/.exec(rest) ?? /^(\w+)/.exec(rest);
    if (!ref) {
      out += "$";
      i = dollar + 1;
      continue;
    }
    out += groupValue(ref[1]!, re, match);
    i = dollar + 1 + ref[0].length;
  }
  return out;
}

function groupValue(name: string, re: GoRegexp, match: GoMatch): string {
  if (/^\d+$/.test(name)) {
    const index = Number(name);
    return index < match.groups.length ? (match.groups[index] ?? "") : "";
  }
  return namedGroup(re, match, name);
}

/**
 * Whether Loki can reduce a label-filter regex to plain string comparisons.
 *
 * Loki prints `| name=~"re"` in its canonical form as name=~`re` when the regex stays a real
 * regex, and with double quotes when its filter simplifier turned it into literal comparisons
 * (`foo`, `a|bc`, `pre.*`, `.*mid.*`, `.+`, `(?i)word`). The simplifier works on Go's parsed
 * and simplified regexp, whose parser factors alternations (`value1|value5` becomes
 * `value[15]`, which is no longer simple), so that factoring is reproduced here.
 */

import { type Node, parseRegexTree } from "./regex-tree";

const isSingleCharOrClass = (n: Node): boolean => (n.k === "lit" && [...n.s].length === 1) || n.k === "class";

function leadingString(n: Node): { s: string; fold: boolean } {
  if (n.k === "lit") return { s: n.s, fold: n.fold };
  if (n.k === "cat" && n.items[0]?.k === "lit") return { s: n.items[0].s, fold: n.items[0].fold };
  return { s: "", fold: false };
}

function removeLeadingString(n: Node, len: number): Node {
  if (n.k === "lit") {
    const rest = [...n.s].slice(len).join("");
    return rest === "" ? { k: "empty" } : { k: "lit", s: rest, fold: n.fold };
  }
  if (n.k === "cat") {
    const first = removeLeadingString(n.items[0]!, len);
    const items = first.k === "empty" ? n.items.slice(1) : [first, ...n.items.slice(1)];
    if (items.length === 0) return { k: "empty" };
    return items.length === 1 ? items[0]! : { k: "cat", items };
  }
  return n;
}

/** Go's alternation factoring: common literal prefixes, single characters into classes. */
function factor(legs: Node[]): Node {
  const out: Node[] = [];
  let start = 0;
  let str: string[] = [];
  let strFold = false;
  for (let i = 0; i <= legs.length; i++) {
    let istr: string[] = [];
    let ifold = false;
    if (i < legs.length) {
      const ls = leadingString(legs[i]!);
      istr = [...ls.s];
      ifold = ls.fold;
      if (ifold === strFold) {
        let same = 0;
        while (same < str.length && same < istr.length && str[same] === istr[same]) same++;
        if (same > 0) {
          str = str.slice(0, same);
          continue;
        }
      }
    }
    if (i - start === 1) {
      out.push(legs[start]!);
    } else if (i - start > 1) {
      const suffixes = legs.slice(start, i).map((l) => removeLeadingString(l, str.length));
      out.push({ k: "cat", items: [{ k: "lit", s: str.join(""), fold: strFold }, collapse(suffixes)] });
    }
    start = i;
    str = istr;
    strFold = ifold;
  }
  // Runs of single characters or classes become one class.
  const merged: Node[] = [];
  for (let i = 0; i < out.length;) {
    let j = i;
    while (j < out.length && isSingleCharOrClass(out[j]!)) j++;
    if (j - i >= 2) {
      merged.push({ k: "class" });
      i = j;
    } else {
      merged.push(out[i]!);
      i++;
    }
  }
  // Runs of empty matches collapse into one.
  const final = merged.filter((n, idx) => !(n.k === "empty" && merged[idx - 1]?.k === "empty"));
  return final.length === 1 ? final[0]! : { k: "alt", legs: final };
}

function collapse(legs: Node[]): Node {
  return legs.length === 1 ? legs[0]! : factor(legs);
}

function normalize(n: Node): Node {
  switch (n.k) {
    case "alt":
      return factor(n.legs.map(normalize));
    case "cat":
      return { k: "cat", items: n.items.map(normalize) };
    case "cap":
      return { k: "cap", sub: normalize(n.sub) };
    case "star":
    case "plus":
    case "quest":
    case "rep":
      return { ...n, sub: normalize(n.sub) };
    default:
      return n;
  }
}

const uncapture = (n: Node): Node => (n.k === "cap" ? uncapture(n.sub) : n);

function simplifiable(n: Node): boolean {
  switch (n.k) {
    case "cap":
      return simplifiable(n.sub);
    case "lit":
    case "empty":
      return true;
    case "alt":
      return n.legs.every((l) => simplifiable(uncapture(l)));
    case "star":
    case "plus":
      return n.sub.k === "any";
    case "cat": {
      const items = n.items.map(uncapture).filter((x) => x.k !== "empty");
      if (items.length > 3) return false;
      let literal = false;
      let alternate = false;
      for (const it of items) {
        if (it.k === "lit") {
          if (literal) return false;
          literal = true;
        } else if (it.k === "alt" && literal) {
          if (alternate) return false;
          alternate = true;
          if (!it.legs.every((l) => uncapture(l).k === "lit")) return false;
        } else if (!(it.k === "star" && it.sub.k === "any")) {
          return false;
        }
      }
      return true;
    }
    default:
      return false;
  }
}

/** True when Loki prints this label-filter regex in backticks (it stays a regex). */
export function labelRegexPrintsRaw(re: string): boolean {
  if (re.includes("`")) return false;
  const tree = parseRegexTree(re);
  return tree === undefined || !simplifiable(normalize(tree));
}

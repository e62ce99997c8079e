/**
 * Whether Loki can reduce a label-filter regex to plain string comparisons.
 *
 * Loki prints `| name=~"re"` in its canonical form as name=~`re` when the regex stays a real
 * regex, and with double quotes when its filter simplifier turned it into literal comparisons
 * (`foo`, `a|bc`, `pre.*`, `.*mid.*`, `.+`, `(?i)word`). The simplifier works on Go's parsed
 * and simplified regexp, whose parser factors alternations (`value1|value5` becomes
 * `value[15]`, which is no longer simple), so that factoring is reproduced here.
 */

type Node =
  | { k: "lit"; s: string; fold: boolean }
  | { k: "class" }
  | { k: "any" } // `.` (never matching newline: no `s` flag in these checks)
  | { k: "anynl" } // `.` under the `s` flag, `\C`-like
  | { k: "star" | "plus" | "quest" | "rep"; sub: Node }
  | { k: "cap"; sub: Node }
  | { k: "cat"; items: Node[] }
  | { k: "alt"; legs: Node[] }
  | { k: "empty" }
  | { k: "assert" };

class Unsupported extends Error {}

class ShapeParser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): Node {
    const n = this.alt({ fold: false, dotNL: false });
    if (this.i < this.s.length) throw new Unsupported();
    return n;
  }

  private alt(flags: { fold: boolean; dotNL: boolean }): Node {
    const legs: Node[] = [this.cat(flags)];
    while (this.s[this.i] === "|") {
      this.i++;
      legs.push(this.cat(flags));
    }
    return legs.length === 1 ? legs[0]! : { k: "alt", legs };
  }

  private cat(flags: { fold: boolean; dotNL: boolean }): Node {
    const items: Node[] = [];
    const f = { ...flags };
    while (this.i < this.s.length && this.s[this.i] !== "|" && this.s[this.i] !== ")") {
      let atom = this.atom(f);
      if (atom === undefined) continue;
      const c = this.s[this.i];
      const rep =
        c === "*"
          ? "star"
          : c === "+"
            ? "plus"
            : c === "?"
              ? "quest"
              : c === "{" && /^\{\d+(,\d*)?\}/.test(this.s.slice(this.i))
                ? "rep"
                : undefined;
      if (rep !== undefined) {
        if (rep === "rep") this.i = this.s.indexOf("}", this.i) + 1;
        else this.i++;
        if (this.s[this.i] === "?") this.i++;
        atom = { k: rep, sub: atom };
      }
      // Go merges adjacent literal characters with the same flags into one literal.
      const prev = items[items.length - 1];
      if (atom.k === "lit" && prev?.k === "lit" && prev.fold === atom.fold) prev.s += atom.s;
      else items.push(atom);
    }
    if (items.length === 0) return { k: "empty" };
    return items.length === 1 ? items[0]! : { k: "cat", items };
  }

  private atom(f: { fold: boolean; dotNL: boolean }): Node | undefined {
    const c = this.s[this.i++]!;
    switch (c) {
      case "(": {
        const rest = this.s.slice(this.i);
        const flagOnly = /^\?([imsU]*)(?:-([imsU]*))?\)/.exec(rest);
        if (flagOnly) {
          this.i += flagOnly[0].length;
          if (flagOnly[1]!.includes("i")) f.fold = true;
          if (flagOnly[2]?.includes("i")) f.fold = false;
          if (flagOnly[1]!.includes("s")) f.dotNL = true;
          return undefined;
        }
        const flagGroup = /^\?([imsU]*)(?:-([imsU]*))?:/.exec(rest);
        const named = /^\?P?<[A-Za-z0-9_]+>/.exec(rest);
        const inner = { ...f };
        let capture = true;
        if (flagGroup) {
          this.i += flagGroup[0].length;
          if (flagGroup[1]!.includes("i")) inner.fold = true;
          if (flagGroup[2]?.includes("i")) inner.fold = false;
          capture = false;
        } else if (named) {
          this.i += named[0].length;
        } else if (rest.startsWith("?")) {
          throw new Unsupported();
        }
        const sub = this.alt(inner);
        if (this.s[this.i] !== ")") throw new Unsupported();
        this.i++;
        return capture ? { k: "cap", sub } : sub;
      }
      case "[": {
        // Skip to the closing bracket (a leading `]` or `[:class:]` are part of the class).
        let j = this.i;
        if (this.s[j] === "^") j++;
        if (this.s[j] === "]") j++;
        for (; j < this.s.length && this.s[j] !== "]"; j++) {
          if (this.s[j] === "\\") j++;
          else if (this.s.startsWith("[:", j)) j = this.s.indexOf(":]", j) + 1;
        }
        if (j >= this.s.length) throw new Unsupported();
        this.i = j + 1;
        return { k: "class" };
      }
      case ".":
        return f.dotNL ? { k: "anynl" } : { k: "any" };
      case "^":
      case "$":
        return { k: "assert" };
      case "\\": {
        const e = this.s[this.i++];
        if (e === undefined) throw new Unsupported();
        if ("dDwWsSpP".includes(e)) {
          if ((e === "p" || e === "P") && this.s[this.i] === "{") this.i = this.s.indexOf("}", this.i) + 1;
          else if (e === "p" || e === "P") this.i++;
          return { k: "class" };
        }
        if ("bBAz".includes(e)) return { k: "assert" };
        if (/[0-9A-Za-z]/.test(e)) throw new Unsupported();
        return this.lit(e, f);
      }
      default: {
        const cp = this.s.codePointAt(this.i - 1)!;
        const ch = String.fromCodePoint(cp);
        this.i += ch.length - 1;
        return this.lit(ch, f);
      }
    }
  }

  private lit(ch: string, f: { fold: boolean }): Node {
    // A case-folded character without case variants is an ordinary literal in Go.
    const fold = f.fold && ch.toLowerCase() !== ch.toUpperCase();
    return { k: "lit", s: ch, fold };
  }
}

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
      return { k: n.k, sub: normalize(n.sub) };
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
  try {
    return !simplifiable(normalize(new ShapeParser(re).parse()));
  } catch (e) {
    if (e instanceof Unsupported) return true;
    throw e;
  }
}

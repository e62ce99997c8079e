/**
 * A structural parse of a Go regexp: literals, classes, repetitions with their bounds, groups,
 * alternations. It keeps only what analyses of a pattern's shape need (Loki's label-filter
 * simplification, the backtracking cost bound) and gives up on syntax they do not model;
 * validating a pattern is src/logql/regex.ts's job.
 */

export type Node =
  | { k: "lit"; s: string; fold: boolean }
  | { k: "class" }
  | { k: "any" } // `.` (never matching newline: no `s` flag in these checks)
  | { k: "anynl" } // `.` under the `s` flag, `\C`-like
  /** Repetition from `min` to `max` times (`max` undefined: unbounded); `rep` is the `{n,m}` form. */
  | { k: "star" | "plus" | "quest" | "rep"; sub: Node; min: number; max: number | undefined }
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
        let min = rep === "plus" ? 1 : 0;
        let max = rep === "quest" ? 1 : undefined;
        if (rep === "rep") {
          const close = this.s.indexOf("}", this.i);
          const [lo, hi] = this.s.slice(this.i + 1, close).split(",");
          min = Number(lo);
          max = hi === undefined ? min : hi === "" ? undefined : Number(hi);
          this.i = close + 1;
        } else this.i++;
        if (this.s[this.i] === "?") this.i++;
        atom = { k: rep, sub: atom, min, max };
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

/** The pattern's tree, or undefined for syntax this parser does not model (escapes such as `\x41` or `\Q`). */
export function parseRegexTree(src: string): Node | undefined {
  try {
    return new ShapeParser(src).parse();
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

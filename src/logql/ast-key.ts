/**
 * An exact, unambiguous text for a syntax tree (or any part of one), for cache keys.
 *
 * The canonical printer (printer.ts) renders like Loki's display and rounds: `size > 1549B` and
 * `size > 1500B` both print `size>1.5kB`, `vector(0.0000004)` prints `vector(0.000000)`. Keyed on
 * that text, two different queries shared cached answers. This text is built from the tree itself,
 * field by field, so two trees get the same text only when every field is equal:
 *
 * - every own field of every node is written, names sorted (the `kind` of a node, the `type` of a
 *   label filter and the literal's source text such as `rangeText` or a bytes filter's `text` are
 *   fields like any other, so they are all part of the text, and a field added to the tree later is
 *   covered without touching this file);
 * - numbers are written with full round-trip precision (`String` of a double reads back exactly),
 *   `-0`, `NaN` and the infinities included, each with a tag no other kind of value starts with;
 * - bigints are written as their decimal digits under a tag of their own;
 * - strings are JSON string literals (lone surrogates escaped), so quotes, separators and unicode
 *   cannot run into the surrounding structure;
 * - a field whose value is `undefined` is the same as an absent field (every consumer reads both
 *   the same way).
 *
 * Anything else (functions, symbols, class instances such as a compiled RegExp) is refused rather
 * than written as something that could equal another value.
 */
export function astKey(node: unknown): string {
  const out: string[] = [];
  write(node, out, 0);
  return out.join("");
}

/** Trees nest deeply only through binary chains; the builder bounds them well below this. */
const MAX_DEPTH = 10_000;

function write(value: unknown, out: string[], depth: number): void {
  if (depth > MAX_DEPTH) throw new Error("syntax tree too deep for a cache key");
  switch (typeof value) {
    case "string":
      out.push(JSON.stringify(value));
      return;
    case "number":
      // "#" then the shortest text that reads back as exactly this double; -0 is not 0 to Go's
      // formatting (or to division), so it keeps its sign.
      out.push("#", Object.is(value, -0) ? "-0" : String(value));
      return;
    case "bigint":
      out.push("n", value.toString());
      return;
    case "boolean":
      out.push(value ? "T" : "F");
      return;
    case "undefined":
      out.push("U");
      return;
    case "object":
      if (value === null) {
        out.push("N");
        return;
      }
      if (Array.isArray(value)) {
        out.push("[");
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(",");
          write(value[i], out, depth + 1);
        }
        out.push("]");
        return;
      }
      if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
        const record = value as Record<string, unknown>;
        const fields = Object.keys(record)
          .filter((name) => record[name] !== undefined)
          .sort();
        out.push("{");
        for (let i = 0; i < fields.length; i++) {
          if (i > 0) out.push(",");
          out.push(JSON.stringify(fields[i]), ":");
          write(record[fields[i]!], out, depth + 1);
        }
        out.push("}");
        return;
      }
      break;
  }
  throw new Error(`cannot key a ${typeof value === "object" ? "non-plain object" : typeof value} in a syntax tree`);
}

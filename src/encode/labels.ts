/** Label sets as Loki prints them: keys sorted (code-unit order), values JSON strings. */
import type { Labels } from "../engine/types";

/** A label set as JSON with sorted keys: stream objects, metric series, tail frames. */
export function sortedLabelsJson(labels: Labels): string {
  const names = Object.keys(labels);
  if (names.length === 1) return `{${jsonString(names[0]!)}:${jsonString(labels[names[0]!]!)}}`;
  sortNames(names);
  let out = "{";
  for (let i = 0; i < names.length; i++) {
    out += `${i > 0 ? "," : ""}${jsonString(names[i]!)}:${jsonString(labels[names[i]!]!)}`;
  }
  return out + "}";
}

/** Sorts a few names in place (code-unit order, as Array.prototype.sort) without sort's scratch array. */
export function sortNames(names: string[]): void {
  if (names.length > 12) {
    names.sort();
    return;
  }
  for (let k = 1; k < names.length; k++) {
    const name = names[k]!;
    let m = k - 1;
    while (m >= 0 && names[m]! > name) {
      names[m + 1] = names[m]!;
      m--;
    }
    names[m + 1] = name;
  }
}

/** Characters JSON must escape, and lone surrogates (which JSON.stringify escapes too). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `s` as a JSON string, as JSON.stringify writes it; most label names and values need no escaping. */
export function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/**
 * How long `s` is as JSON writes it, quotes left out: its length, and what its escapes add (a
 * control character takes six). Bounds what an answer writes for it.
 */
export function jsonTextLength(s: string): number {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s).length - 2 : s.length;
}

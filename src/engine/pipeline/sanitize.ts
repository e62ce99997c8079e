/** Label names from parsed keys: Loki maps every character outside [A-Za-z0-9_] to `_`. */
import { BoundedMap } from "../../util/bounded-map";

function isNameChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
}

/**
 * Go's strings.TrimSpace, then a `_` in front of a leading digit, then one `_` per invalid
 * character (per code point, so an emoji is one `_`).
 */
export function sanitizeLabelKey(key: string): string {
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const name = sanitizeUncached(key);
  // Keys repeat across lines (the same fields in every line), so remember a bounded number.
  cache.set(key, name);
  return name;
}

const cache = new BoundedMap<string>(4096, 1024 * 1024, (name) => 2 * name.length);

function sanitizeUncached(key: string): string {
  const trimmed = trimGoSpace(key);
  if (trimmed.length === 0) return trimmed;
  let clean = true;
  for (let i = 0; i < trimmed.length; i++) {
    if (!isNameChar(trimmed.charCodeAt(i))) {
      clean = false;
      break;
    }
  }
  const first = trimmed.charCodeAt(0);
  const digitFirst = first >= 0x30 && first <= 0x39;
  if (clean) return digitFirst ? "_" + trimmed : trimmed;
  let out = digitFirst ? "_" : "";
  for (const ch of trimmed) out += ch.length === 1 && isNameChar(ch.charCodeAt(0)) ? ch : "_";
  return out;
}

const GO_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

function trimGoSpace(s: string): string {
  if (s.length === 0) return s;
  const a = s.charCodeAt(0);
  const b = s.charCodeAt(s.length - 1);
  if (a > 0x20 && a < 0x7f && b > 0x20 && b < 0x7f) return s;
  return s.replace(GO_SPACE, "");
}

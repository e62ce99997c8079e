/**
 * `ip("...")` matching: a single address, a CIDR prefix or an `a-b` range, IPv4 or IPv6. A line
 * (or label value) matches when any address-looking token in it falls inside. Tokens are found
 * the way Loki finds them: an IPv4 hint (digit, then a dot within three characters) or an IPv6
 * hint (hex digits then a colon), then the longest run of address characters, parsed strictly.
 *
 * The parser refuses the patterns Loki refuses and the pipeline matches with them: both read this
 * one definition, which therefore sits below both.
 */

interface Addr {
  v6: boolean;
  /** 32-bit (v4) or 128-bit (v6) value. */
  value: bigint;
}

export type IpMatcher = (addr: Addr) => boolean;

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (p.length === 0 || p.length > 3 || !/^\d+$/.test(p)) return undefined;
    if (p.length > 1 && p[0] === "0") return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseIPv6(input: string): bigint | undefined {
  let s = input;
  const zone = s.indexOf("%");
  if (zone !== -1) {
    if (zone === s.length - 1) return undefined;
    s = s.slice(0, zone);
  }
  const groups: number[] = [];
  let ellipsis = -1;
  if (s.startsWith("::")) {
    ellipsis = 0;
    s = s.slice(2);
  }
  while (s.length > 0) {
    const m = /^[0-9a-fA-F]{1,4}/.exec(s);
    if (!m) return undefined;
    // An IPv4 tail fills the last two groups.
    if (s.length > m[0].length && s[m[0].length] === ".") {
      const v4 = parseIPv4(s);
      if (v4 === undefined || groups.length > 6) return undefined;
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      s = "";
      break;
    }
    groups.push(parseInt(m[0], 16));
    s = s.slice(m[0].length);
    if (s.length === 0) break;
    if (s[0] !== ":") return undefined;
    if (s.startsWith("::")) {
      if (ellipsis !== -1) return undefined;
      ellipsis = groups.length;
      s = s.slice(2);
      continue;
    }
    s = s.slice(1);
    if (s.length === 0) return undefined;
  }
  if (groups.length > 8) return undefined;
  if (ellipsis === -1) {
    if (groups.length !== 8) return undefined;
  } else {
    if (groups.length === 8) return undefined;
    groups.splice(ellipsis, 0, ...new Array<number>(8 - groups.length).fill(0));
  }
  let v = 0n;
  for (const g of groups) v = (v << 16n) | BigInt(g);
  return v;
}

export function parseAddr(s: string): Addr | undefined {
  if (s.includes(":")) {
    const v = parseIPv6(s);
    return v === undefined ? undefined : { v6: true, value: v };
  }
  const v = parseIPv4(s);
  return v === undefined ? undefined : { v6: false, value: v };
}

/** Loki's error for a pattern that is no address, prefix or range; undefined when it is one. */
export function ipPatternError(pattern: string): string | undefined {
  return ipMatcherOf(pattern) === undefined ? `ip: invalid pattern: ${JSON.stringify(pattern)}` : undefined;
}

export function compileIpMatcher(pattern: string): IpMatcher {
  const matcher = ipMatcherOf(pattern);
  if (matcher === undefined) throw new Error(ipPatternError(pattern));
  return matcher;
}

/** The matcher for a pattern, or undefined when Loki would refuse it. */
export function ipMatcherOf(pattern: string): IpMatcher | undefined {
  const range = ipRangeOf(pattern);
  if (range === undefined) return undefined;
  return (a) => a.v6 === range.v6 && a.value >= range.from && a.value <= range.to;
}

/** The addresses a pattern matches, `from` to `to` inclusive, of one family. */
export interface IpRange {
  v6: boolean;
  from: bigint;
  to: bigint;
}

/**
 * A pattern as the range of addresses it matches (a single address, a prefix's network, or an
 * `a-b` range), or undefined when Loki would refuse it.
 */
export function ipRangeOf(pattern: string): IpRange | undefined {
  const single = parseAddr(pattern);
  if (single) return { v6: single.v6, from: single.value, to: single.value };

  const slash = pattern.indexOf("/");
  if (slash !== -1) {
    const base = parseAddr(pattern.slice(0, slash));
    const bitsText = pattern.slice(slash + 1);
    const max = base?.v6 ? 128 : 32;
    if (base && /^\d{1,3}$/.test(bitsText) && !(bitsText.length > 1 && bitsText[0] === "0")) {
      const bits = Number(bitsText);
      if (bits <= max) {
        const hostBits = (1n << BigInt(max - bits)) - 1n;
        const from = base.value & ~hostBits;
        return { v6: base.v6, from, to: from | hostBits };
      }
    }
  }

  const dash = pattern.indexOf("-");
  if (dash !== -1) {
    const from = parseAddr(pattern.slice(0, dash));
    const to = parseAddr(pattern.slice(dash + 1));
    if (from && to && from.v6 === to.v6 && from.value <= to.value) {
      return { v6: from.v6, from: from.value, to: to.value };
    }
  }
  return undefined;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

function spanOf(s: string, start: number, v6: boolean): number {
  let i = start;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c) || c === 0x2e) continue;
    if (v6 && (isHex(c) || c === 0x3a)) continue;
    break;
  }
  return i - start;
}

/** True when some address in `text` satisfies the matcher. */
export function containsMatchingIp(text: string, matcher: IpMatcher): boolean {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c0 = text.charCodeAt(i);
    if (i + 3 < n && isDigit(c0)) {
      if (text.charCodeAt(i + 1) === 0x2e || text.charCodeAt(i + 2) === 0x2e || text.charCodeAt(i + 3) === 0x2e) {
        const len = spanOf(text, i, false);
        const addr = parseAddr(text.slice(i, i + len));
        if (addr && matcher(addr)) return true;
        i += len;
        continue;
      }
    }
    // Near the end the hint reads no character past it (NaN, as Loki reads a zero byte there), so
    // a short address ending the text (`::1`) is still found.
    if (ipv6Hint(text, i)) {
      const len = spanOf(text, i, true);
      const addr = parseAddr(text.slice(i, i + len));
      if (addr && matcher(addr)) return true;
      i += len;
    }
  }
  return false;
}

function ipv6Hint(s: string, i: number): boolean {
  const c0 = s.charCodeAt(i);
  const c1 = s.charCodeAt(i + 1);
  const c2 = s.charCodeAt(i + 2);
  const c3 = s.charCodeAt(i + 3);
  const c4 = s.charCodeAt(i + 4);
  if (c0 === 0x3a && c1 === 0x3a && isHex(c2)) return true;
  if (!isHex(c0)) return false;
  if (c1 === 0x3a) return true;
  if (!isHex(c1)) return false;
  if (c2 === 0x3a) return true;
  if (!isHex(c2)) return false;
  if (c3 === 0x3a) return true;
  return isHex(c3) && c4 === 0x3a;
}

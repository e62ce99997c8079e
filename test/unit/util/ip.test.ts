import { describe, expect, it } from "vitest";
import { compileIpMatcher, containsMatchingIp } from "../../../src/util/ip";

describe("ip matching", () => {
  it("finds IPv4 addresses anywhere in a line", () => {
    const m = compileIpMatcher("10.0.0.0/16");
    expect(containsMatchingIp("10.0.117.169 - - [01/Feb/2026]", m)).toBe(true);
    expect(containsMatchingIp("10.1.117.169 - - [01/Feb/2026]", m)).toBe(false);
    expect(containsMatchingIp("client=10.0.3.4", m)).toBe(true);
  });
  it("supports ranges, single addresses and IPv6", () => {
    const r = compileIpMatcher("10.0.0.0-10.1.255.255");
    expect(containsMatchingIp("x 10.1.2.3 y", r)).toBe(true);
    expect(containsMatchingIp("x 10.2.0.0 y", r)).toBe(false);
    expect(containsMatchingIp("from 192.168.0.1", compileIpMatcher("192.168.0.1"))).toBe(true);
    expect(containsMatchingIp("addr=2001:db8::1 ok", compileIpMatcher("2001:db8::/32"))).toBe(true);
    expect(containsMatchingIp("addr=010.0.0.1", compileIpMatcher("10.0.0.0/8"))).toBe(false);
  });
  it("finds short IPv6 addresses that end the text, as Loki does since it reads past the end as zero bytes", () => {
    expect(containsMatchingIp("::1", compileIpMatcher("::1"))).toBe(true);
    expect(containsMatchingIp("from ::1", compileIpMatcher("::1"))).toBe(true);
    expect(containsMatchingIp("1::", compileIpMatcher("1::/16"))).toBe(true);
    expect(containsMatchingIp("ab::", compileIpMatcher("ab::"))).toBe(true);
    expect(containsMatchingIp("::", compileIpMatcher("::"))).toBe(false);
  });
  it("rejects invalid patterns", () => {
    expect(() => compileIpMatcher("10.0.0.300")).toThrow(/invalid pattern/);
  });
});

/** `npm run loadtest` options: defaults, per-workload p95 bounds, and refusals before any request is sent. */
import { describe, expect, it } from "vitest";
import { WORKLOADS } from "../../../bench/e2e/workloads.js";
import { parseLoadtestOptions } from "../../../scripts/lib/loadtest-options.mjs";

describe("parseLoadtestOptions", () => {
  it("defaults: every workload, 30 s each, windows in the last 24 h, the workloads' own p95 bounds", () => {
    const o = parseLoadtestOptions(["--url", "https://lv.example.workers.dev/"], {});
    expect(o).toEqual({
      url: "https://lv.example.workers.dev",
      duration: "30s",
      rangeSeconds: 86_400,
      workloads: ["small", "heavy", "long_range", "compute", "cold", "compute_uncached"],
      p95Ms: { small: 1000, heavy: 2000, long_range: 3000, compute: 5000, cold: 1500, compute_uncached: 5000 },
    });
    expect(Object.keys(WORKLOADS)).toEqual(o.workloads);
  });
  it("takes a token from LOADTEST_TOKEN unless --token is given, a tenant, a range and p95 overrides", () => {
    const o = parseLoadtestOptions(
      ["--url", "http://127.0.0.1:3100", "--tenant", "42:7", "--range", "7d", "--workloads", "cold,small"],
      { LOADTEST_TOKEN: "from-env" },
    );
    expect(o).toMatchObject({ token: "from-env", tenant: "42:7", rangeSeconds: 604_800, workloads: ["cold", "small"] });
    const p = parseLoadtestOptions(["--url", "http://x", "--token", "t", "--p95", "cold=200", "--p95", "small=90"], {
      LOADTEST_TOKEN: "from-env",
    });
    expect(p.token).toBe("t");
    expect(p.p95Ms).toMatchObject({ cold: 200, small: 90, heavy: 2000 });
  });
  it.each([
    [[], /--url is required/],
    [["--url", "ftp://x"], /must be http/],
    [["--url", "https://user:secret@x"], /must not carry credentials/],
    [["--url", "not a url"], /not a URL/],
    [["--url", "http://x", "--duration", "soon"], /--duration/],
    [["--url", "http://x", "--range", "1y"], /--range/],
    [["--url", "http://x", "--workloads", "small,nope"], /unknown workload nope/],
    [["--url", "http://x", "--p95", "small"], /--p95 must be workload=ms/],
    [["--url", "http://x", "--bogus"], /Unknown option/],
  ])("refuses %j", (argv, message) => {
    expect(() => parseLoadtestOptions(argv as string[], {})).toThrow(message);
  });
});

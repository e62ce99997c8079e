/**
 * Validation of every variable: an absent variable takes its default, a set one must be valid, and
 * a refusal names the variable and the problem but never the value.
 */
import { describe, expect, it } from "vitest";
import { ConfigError, configOf, configProblem, type Env, readConfig } from "../../src/config";
import { DEFAULT_SERVICE_NAME_LABELS } from "../../src/engine/derived-fields";

const BASE: Env = { ORIGIN_URL: "https://logs.example.com:9428" };

function refusal(vars: Partial<Env>): string {
  try {
    readConfig({ ...BASE, ...vars });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    for (const value of Object.values(vars)) {
      // The value must not be quoted (values of a few characters may be words of the message).
      if (typeof value === "string" && value.trim().length > 4) expect(message).not.toContain(value.trim());
    }
    return message;
  }
  throw new Error(`expected a configuration error for ${JSON.stringify(vars)}`);
}

const read = (vars: Partial<Env>) => readConfig({ ...BASE, ...vars });

describe("readConfig defaults", () => {
  it("takes every default when only ORIGIN_URL is set", () => {
    const c = read({});
    expect(c.originUrl).toBe("https://logs.example.com:9428");
    expect(c.originAuthorization).toBeUndefined();
    expect(c.originTimeoutMs).toBe(60_000);
    expect(c.splitInterval).toBe(3_600_000_000_000n);
    expect(c.maxConcurrency).toBe(6);
    expect(c.maxEntriesLimit).toBe(5000);
    expect(c.maxQuerySeries).toBe(500);
    expect(c.maxQueryLength).toBe(721n * 3_600_000_000_000n);
    expect(c.maxLocalRows).toBe(1_000_000);
    expect(c.tenancy.mode).toBe("single");
    expect(c.pushdown).toBe(true);
    expect(c.cache).toBe(true);
    expect(c.cacheFreshnessMs).toBe(600_000);
    expect(c.tailMaxDurationMs).toBe(3_600_000);
    expect(c.tailLookBackNs).toBe(120_000_000_000n);
    expect(c.derivedFields).toEqual({ discoverLogLevels: true, serviceNameLabels: DEFAULT_SERVICE_NAME_LABELS });
    expect(c.telemetryKeyMaterial).toBeUndefined();
  });
});

describe("ORIGIN_URL", () => {
  it("accepts http and https, strips a trailing slash and moves credentials to a header", () => {
    expect(read({ ORIGIN_URL: "http://127.0.0.1:9428/" }).originUrl).toBe("http://127.0.0.1:9428");
    expect(read({ ORIGIN_URL: "https://vl.example.com/prefix/" }).originUrl).toBe("https://vl.example.com/prefix");
    const c = read({ ORIGIN_URL: "https://user:p%40ss@vl.example.com" });
    expect(c.originUrl).toBe("https://vl.example.com");
    expect(c.originAuthorization).toBe(`Basic ${btoa("user:p@ss")}`);
  });

  it("refuses a missing, empty, schemeless or non-HTTP URL", () => {
    expect(refusal({ ORIGIN_URL: undefined })).toBe("ORIGIN_URL is not configured");
    expect(refusal({ ORIGIN_URL: " " })).toBe("ORIGIN_URL is not configured");
    expect(refusal({ ORIGIN_URL: "victorialogs.example.com" })).toBe("ORIGIN_URL is not a valid URL");
    expect(refusal({ ORIGIN_URL: "victorialogs:9428" })).toBe("ORIGIN_URL must start with http:// or https://");
    expect(refusal({ ORIGIN_URL: "ftp://vl.example.com" })).toBe("ORIGIN_URL must start with http:// or https://");
    expect(refusal({ ORIGIN_URL: "https://vl.example.com/?token=abcdef" })).toBe(
      "ORIGIN_URL must not have a query or fragment",
    );
  });
});

describe("numeric variables", () => {
  const cases = [
    ["ORIGIN_TIMEOUT_MS", "originTimeoutMs", "must be a positive integer"],
    ["MAX_ENTRIES_LIMIT", "maxEntriesLimit", "must be a positive integer"],
    ["MAX_QUERY_SERIES", "maxQuerySeries", "must be a positive integer"],
    ["MAX_CONCURRENCY", "maxConcurrency", "must be an integer from 1 to 6"],
  ] as const;

  for (const [name, field, problem] of cases) {
    it(`${name}: valid forms are read, others refused`, () => {
      expect(read({ [name]: "3" })[field]).toBe(3);
      expect(read({ [name]: " 6 " })[field]).toBe(6);
      for (const bad of ["lots", "", " ", "0", "-5", "2.5", "1e3", "0x10", "12abc", "99999999999999999999"]) {
        expect(refusal({ [name]: bad }), bad).toBe(`${name} ${problem}`);
      }
    });
  }

  it("MAX_CONCURRENCY above the six connections a Worker keeps open is refused, not clamped", () => {
    expect(refusal({ MAX_CONCURRENCY: "7" })).toBe("MAX_CONCURRENCY must be an integer from 1 to 6");
    expect(read({ MAX_ENTRIES_LIMIT: "100000" }).maxEntriesLimit).toBe(100_000);
  });
});

describe("duration variables", () => {
  it("SPLIT_INTERVAL: a duration of at least a minute", () => {
    expect(read({ SPLIT_INTERVAL: "17m" }).splitInterval).toBe(17n * 60_000_000_000n);
    expect(read({ SPLIT_INTERVAL: "1h30m" }).splitInterval).toBe(90n * 60_000_000_000n);
    for (const bad of ["bogus", "", "1", "1 h"]) {
      expect(refusal({ SPLIT_INTERVAL: bad }), bad).toBe("SPLIT_INTERVAL must be a duration such as 90s, 10m or 1h");
    }
    // Go's durations may be negative: refused by the minimum, not as unreadable.
    expect(refusal({ SPLIT_INTERVAL: "-1h" })).toBe("SPLIT_INTERVAL must be at least 1m");
    expect(refusal({ SPLIT_INTERVAL: "0" })).toBe("SPLIT_INTERVAL must be at least 1m");
    expect(refusal({ SPLIT_INTERVAL: "59s" })).toBe("SPLIT_INTERVAL must be at least 1m");
  });

  it("MAX_QUERY_LENGTH and CACHE_FRESHNESS: durations, 0 allowed", () => {
    expect(read({ MAX_QUERY_LENGTH: "0" }).maxQueryLength).toBe(0n);
    expect(read({ MAX_QUERY_LENGTH: "30d" }).maxQueryLength).toBe(30n * 86_400_000_000_000n);
    expect(read({ CACHE_FRESHNESS: "0s" }).cacheFreshnessMs).toBe(0);
    expect(read({ CACHE_FRESHNESS: "5m" }).cacheFreshnessMs).toBe(300_000);
    for (const name of ["MAX_QUERY_LENGTH", "CACHE_FRESHNESS"] as const) {
      for (const bad of ["forever", "", "10"]) {
        expect(refusal({ [name]: bad }), bad).toBe(`${name} must be a duration such as 90s, 10m or 1h`);
      }
      expect(refusal({ [name]: "-5m" })).toBe(`${name} must not be negative`);
    }
  });

  it("MAX_LOCAL_ROWS: a non-negative integer, 0 for no limit", () => {
    expect(read({ MAX_LOCAL_ROWS: "0" }).maxLocalRows).toBe(0);
    expect(read({ MAX_LOCAL_ROWS: " 250000 " }).maxLocalRows).toBe(250_000);
    for (const bad of ["-1", "1e6", "1.5", "many", "", "99999999999999999999"]) {
      expect(refusal({ MAX_LOCAL_ROWS: bad }), bad).toBe("MAX_LOCAL_ROWS must be a non-negative integer");
    }
  });

  it("TAIL_MAX_DURATION and TAIL_LOOK_BACK: positive durations", () => {
    expect(read({ TAIL_MAX_DURATION: "2s" }).tailMaxDurationMs).toBe(2000);
    expect(read({ TAIL_LOOK_BACK: "30s" }).tailLookBackNs).toBe(30_000_000_000n);
    for (const name of ["TAIL_MAX_DURATION", "TAIL_LOOK_BACK"] as const) {
      expect(refusal({ [name]: "0" })).toBe(`${name} must be longer than 0`);
      expect(refusal({ [name]: "soon" })).toBe(`${name} must be a duration such as 90s, 10m or 1h`);
    }
  });
});

describe("switches", () => {
  for (const [name, read1] of [
    ["PUSHDOWN", (e: Partial<Env>) => read(e).pushdown],
    ["CACHE", (e: Partial<Env>) => read(e).cache],
    ["DISCOVER_LOG_LEVELS", (e: Partial<Env>) => read(e).derivedFields.discoverLogLevels],
  ] as const) {
    it(`${name}: on/off spellings, anything else refused`, () => {
      for (const on of ["on", "true", "YES", "1", " On "]) expect(read1({ [name]: on }), on).toBe(true);
      for (const off of ["off", "false", "No", "0"]) expect(read1({ [name]: off }), off).toBe(false);
      for (const bad of ["", "disabled", "of", "2"]) {
        expect(refusal({ [name]: bad }), bad).toBe(`${name} must be on or off (true/false, yes/no, 1/0)`);
      }
    });
  }
});

describe("DISCOVER_SERVICE_NAME", () => {
  it("is a comma list of label names; empty turns discovery off", () => {
    expect(read({ DISCOVER_SERVICE_NAME: "" }).derivedFields.serviceNameLabels).toEqual([]);
    expect(read({ DISCOVER_SERVICE_NAME: "app, job" }).derivedFields.serviceNameLabels).toEqual(["app", "job"]);
    for (const bad of ["app,,job", "app,", "service.name", "my app", '"app"']) {
      expect(refusal({ DISCOVER_SERVICE_NAME: bad }), bad).toBe(
        "DISCOVER_SERVICE_NAME must be a comma list of label names",
      );
    }
  });
});

describe("secrets", () => {
  it("ORIGIN_AUTH_HEADER: used as given; blank or not a header value is refused", () => {
    expect(read({ ORIGIN_AUTH_HEADER: "Bearer abc.def" }).originAuthorization).toBe("Bearer abc.def");
    expect(refusal({ ORIGIN_AUTH_HEADER: "" })).toBe("ORIGIN_AUTH_HEADER is set but empty");
    expect(refusal({ ORIGIN_AUTH_HEADER: "  " })).toBe("ORIGIN_AUTH_HEADER is set but empty");
    expect(refusal({ ORIGIN_AUTH_HEADER: "Bearer abc\r\nX-Injected: 1" })).toBe(
      "ORIGIN_AUTH_HEADER is not a valid header value",
    );
    // A blank header does not fall back to the URL's credentials either.
    expect(refusal({ ORIGIN_URL: "https://u:pw@vl.example.com", ORIGIN_AUTH_HEADER: "" })).toBe(
      "ORIGIN_AUTH_HEADER is set but empty",
    );
  });

  it("AUTH_TOKEN and TENANTS: blank is refused, never read as no authentication", () => {
    expect(refusal({ AUTH_TOKEN: "" })).toBe("AUTH_TOKEN is set but empty");
    expect(refusal({ TENANTS: " " })).toBe("TENANTS is set but empty");
  });

  it("TELEMETRY_KEY: at least 16 characters; it, else the other secrets, keys the digests", () => {
    expect(refusal({ TELEMETRY_KEY: "" })).toBe("TELEMETRY_KEY is set but empty");
    expect(refusal({ TELEMETRY_KEY: "short-key" })).toBe("TELEMETRY_KEY must be at least 16 characters");
    const keyed = read({ TELEMETRY_KEY: "a-long-telemetry-key" }).telemetryKeyMaterial;
    expect(keyed).toContain("a-long-telemetry-key");
    const derived = read({ ORIGIN_AUTH_HEADER: "Bearer origin-secret" }).telemetryKeyMaterial;
    expect(derived).toContain("origin-secret");
    expect(read({ AUTH_TOKEN: "client-token" }).telemetryKeyMaterial).not.toBe(derived);
    expect(read({}).telemetryKeyMaterial).toBeUndefined();
  });
});

describe("tenancy variables", () => {
  it("are validated with the rest", () => {
    expect(refusal({ TENANCY: "multi" })).toBe('TENANCY must be "single" or "header"');
    expect(refusal({ TENANT: "team-a" })).toBe('TENANT must be "AccountID" or "AccountID:ProjectID"');
    expect(refusal({ TENANT_MAP: "{oops" })).toBe("TENANT_MAP is not valid JSON");
    expect(refusal({ TENANTS: '{"a": "secret-looking' })).toBe("TENANTS is not valid JSON");
  });
});

describe("configOf and configProblem", () => {
  it("validate once per bindings object and keep the refusal", () => {
    const good: Env = { ...BASE };
    expect(configOf(good)).toBe(configOf(good));
    expect(configProblem(good)).toBeUndefined();
    const bad: Env = { ...BASE, MAX_ENTRIES_LIMIT: "lots" };
    const problem = configProblem(bad);
    expect(problem?.message).toBe("MAX_ENTRIES_LIMIT must be a positive integer");
    expect(() => configOf(bad)).toThrow(problem);
    expect(configProblem(bad)).toBe(problem);
  });
});

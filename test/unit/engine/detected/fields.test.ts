import { describe, expect, it } from "vitest";
import type { Labels, LogEntry } from "../../../../src/engine/types";
import {
  DetectedFieldsCollector,
  DetectedFieldValuesCollector,
  normalizeByteSize,
  type DetectedField,
} from "../../../../src/engine/detected/fields";

let clock = 100n;
function entry(stream: Labels, line: string, metadata: Labels = {}, parsed: Labels = {}): LogEntry {
  return { ts: clock--, line, stream, metadata, parsed };
}

const dev = { app: "shop", env: "dev" };
const prod = { app: "shop", env: "prod" };
// Newest first, as the executor hands them over.
const ENTRIES: LogEntry[] = [
  entry({ app: "shop", env: "test" }, "GET /index.html"),
  entry(dev, '{"level":"warn","status":404,"user":{"id":8},"latency":0.5}', { trace_id: "b2", detected_level: "warn" }),
  entry(dev, '{"level":"info","status":200,"user":{"id":7,"name":"ann"},"user-agent":"curl","app":"x"}', {
    trace_id: "b1",
  }),
  entry(prod, "level=error msg=failed status=500 duration=2s size=10KB ok=false ratio=1", { trace_id: "a2" }),
  entry(prod, 'level=info msg="order placed" status=200 duration=15ms size=1.5KiB ok=true ratio=0.25', {
    trace_id: "a1",
  }),
];

function collect(entries: LogEntry[], limit = 1000): DetectedField[] {
  const c = new DetectedFieldsCollector(limit);
  for (const e of entries) c.add(e);
  return c.result();
}

describe("detected fields", () => {
  it("finds structured metadata, json and logfmt fields with Loki's types, parsers and json paths", () => {
    expect(collect(ENTRIES)).toEqual([
      // `app` is a stream label, so the line's `app` is `app_extracted`.
      { label: "app_extracted", type: "string", cardinality: 1, parsers: ["json"], jsonPath: ["app"] },
      { label: "detected_level", type: "string", cardinality: 1, parsers: null },
      { label: "duration", type: "duration", cardinality: 2, parsers: ["logfmt"] },
      { label: "latency", type: "float", cardinality: 1, parsers: ["json"], jsonPath: ["latency"] },
      // Met in json lines first (newest), then in logfmt lines.
      { label: "level", type: "string", cardinality: 3, parsers: ["json", "logfmt"], jsonPath: ["level"] },
      { label: "msg", type: "string", cardinality: 2, parsers: ["logfmt"] },
      { label: "ok", type: "boolean", cardinality: 2, parsers: ["logfmt"] },
      // "1" (int) then "0.25" (float): the line examined last, the oldest, decides.
      { label: "ratio", type: "float", cardinality: 2, parsers: ["logfmt"] },
      { label: "size", type: "bytes", cardinality: 2, parsers: ["logfmt"] },
      { label: "status", type: "int", cardinality: 3, parsers: ["json", "logfmt"], jsonPath: ["status"] },
      { label: "trace_id", type: "string", cardinality: 4, parsers: null },
      { label: "user_agent", type: "string", cardinality: 1, parsers: ["json"], jsonPath: ["user-agent"] },
      { label: "user_id", type: "int", cardinality: 2, parsers: ["json"], jsonPath: ["user", "id"] },
      { label: "user_name", type: "string", cardinality: 1, parsers: ["json"], jsonPath: ["user", "name"] },
    ]);
  });

  it("a label two keys of a line name keeps the first key's value and path, as Loki's parser does", () => {
    const fields = collect([entry(dev, '{"a":{"b":"n"},"a_b":"t","c":"1","c":"x"}')]);
    expect(fields).toEqual([
      { label: "a_b", type: "string", cardinality: 1, parsers: ["json"], jsonPath: ["a", "b"] },
      { label: "c", type: "int", cardinality: 1, parsers: ["json"], jsonPath: ["c"] },
    ]);
  });

  it("takes new fields only up to the limit, in the order met, and keeps counting those", () => {
    expect(collect(ENTRIES, 3)).toEqual([
      { label: "detected_level", type: "string", cardinality: 1, parsers: null },
      { label: "level", type: "string", cardinality: 3, parsers: ["json", "logfmt"], jsonPath: ["level"] },
      { label: "trace_id", type: "string", cardinality: 4, parsers: null },
    ]);
  });

  it("reports labels the query's own parsers extracted, under the parser detection used, never error labels", () => {
    const fields = collect([
      entry({ app: "a" }, "plain words", {}, { code: "E1", __error__: "JSONParserErr", __error_details__: "x" }),
    ]);
    expect(fields).toEqual([{ label: "code", type: "string", cardinality: 1, parsers: ["logfmt"] }]);
  });

  it("keeps the json path first met when one label comes from differently nested keys", () => {
    const fields = collect([entry({ app: "a" }, '{"user_id":"u1"}'), entry({ app: "a" }, '{"user":{"id":2}}')]);
    expect(fields).toEqual([
      { label: "user_id", type: "int", cardinality: 2, parsers: ["json"], jsonPath: ["user_id"] },
    ]);
  });

  it("falls back to logfmt for lines that are not one JSON object, stream collisions included", () => {
    const fields = collect([
      entry({ level: "x" }, "level=info"),
      entry({ level: "x" }, '{"a":1'),
      entry({ level: "x" }, "[1,2]"),
    ]);
    expect(fields).toEqual([{ label: "level_extracted", type: "string", cardinality: 1, parsers: ["logfmt"] }]);
  });
});

describe("detected field values", () => {
  const values = (name: string, limit = 1000) => {
    const c = new DetectedFieldValuesCollector(name, limit);
    for (const e of ENTRIES) if (!c.full) c.add(e);
    return c.result();
  };

  it("lists distinct values newest first, from lines and from structured metadata", () => {
    expect(values("status")).toEqual(["404", "200", "500"]);
    expect(values("trace_id")).toEqual(["b2", "b1", "a2", "a1"]);
    expect(values("user_id")).toEqual(["8", "7"]);
    expect(values("nope")).toEqual([]);
  });

  it("prints parsed byte sizes as LogQL prints them", () => {
    expect(values("size")).toEqual(["10kB", "1.5kB"]);
  });

  it("stops taking lines once the limit is reached", () => {
    expect(values("trace_id", 2)).toEqual(["b2", "b1"]);
  });

  it("normalises only values that end in a byte unit and parse as a size", () => {
    expect(normalizeByteSize("1.5KiB")).toBe("1.5kB");
    expect(normalizeByteSize("12345kb")).toBe("12MB");
    expect(normalizeByteSize("7b")).toBe("7B");
    // Loki's quirk, kept: `m` is a unit too.
    expect(normalizeByteSize("5m")).toBe("5.0MB");
    expect(normalizeByteSize("200")).toBe("200");
    expect(normalizeByteSize("sub")).toBe("sub");
  });
});

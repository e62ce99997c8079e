/**
 * Loki's distributor rules for `detected_level` and `service_name` (pkg/distributor/
 * field_detection.go, pkg/loghttp/push/push.go), one case per rule as Loki states it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addDetectedLevelFromRow,
  DEFAULT_SERVICE_NAME_LABELS,
  derivedServiceName,
  detectLevel,
  FieldDeriver,
  levelOfLiteralHead,
  normalizeLevel,
} from "../../../src/engine/derived-fields";
import { streamFilter } from "../../../src/plan/selector";
import { LiteralRow } from "../../../src/engine/literal-row";

const line = (l: string) => detectLevel({}, {}, l);

describe("detected_level", () => {
  it("takes a level label of the stream first, in Loki's field order, normalised", () => {
    expect(detectLevel({ level: "Warning", severity: "error" }, {}, "info")).toBe("warn");
    expect(detectLevel({ Severity: "CRITICAL" }, { level: "info" }, "")).toBe("critical");
  });

  it("then a level field of the structured metadata, unknown spellings kept as they are", () => {
    expect(detectLevel({}, { lvl: "DBG" }, "error here")).toBe("debug");
    expect(detectLevel({}, { SeverityText: "notice" }, "error")).toBe("notice");
  });

  it("then the OpenTelemetry severity number", () => {
    const sev = (n: string) => detectLevel({}, { severity_number: n }, "error");
    expect([sev("0"), sev("3"), sev("8"), sev("9"), sev("16"), sev("17"), sev("24"), sev("25"), sev("x")]).toEqual([
      "unknown",
      "trace",
      "debug",
      "info",
      "warn",
      "error",
      "fatal",
      "unknown",
      "info",
    ]);
  });

  it("reads a JSON line's level key, two objects deep, string values only", () => {
    expect(line('{"msg":"x","level":"Error"}')).toBe("error");
    expect(line(' {"log":{"level":"inf"}} ')).toBe("info");
    expect(line('{"a":{"b":{"level":"nonsense"}}}')).toBe("unknown");
    expect(line('{"level":30,"msg":"ok"}')).toBe("unknown");
    // A value that is no level falls back to the words of the line.
    expect(line('{"level":"nonsense","msg":"error"}')).toBe("error");
  });

  it("reads a logfmt line's level key, preferring the earliest key of Loki's list", () => {
    expect(line("msg=hi lvl=warn level=info")).toBe("info");
    expect(line("msg=x severity=ERR")).toBe("error");
    expect(line("msg=x code=5")).toBe("unknown");
  });

  it("else finds the earliest bounded level word", () => {
    expect(line("[WARN] disk almost full")).toBe("warn");
    expect(line("an error: fatal")).toBe("error");
    expect(line("panic: fatal error in worker")).toBe("fatal");
    expect(line("misc:error happened")).toBe("unknown");
    expect(line("debugging now")).toBe("unknown");
    expect(line("GET /index.html 200")).toBe("unknown");
  });

  it("normalises every known spelling", () => {
    expect(["TRC", "dbg", "INFORMATION", "wrn", "Warning", "err", "CRITICAL", "Fatal"].map(normalizeLevel)).toEqual([
      "trace",
      "debug",
      "info",
      "warn",
      "warn",
      "error",
      "critical",
      "fatal",
    ]);
  });

  it("keeps an entry's own detected_level, normalised, and adds nothing else", () => {
    const d = new FieldDeriver({ discoverLogLevels: true, serviceNameLabels: [] });
    const row = d.derive({ ts: 1n, line: "error", stream: { app: "a" }, metadata: { detected_level: "Err" } });
    expect(row.metadata).toEqual({ detected_level: "error" });
    expect(row.stream).toEqual({ app: "a" });
  });

  it("reads a kept entry's level from its line's literal, which stays what the answer copies", () => {
    // The row is its own entry (nothing parsed): its literal, escapes and all, is what the answer writes.
    const literal = JSON.stringify('{"msg":"caf\u00e9 \n","level":"ERR","n":1}');
    const row = new LiteralRow(1n, literal, { app: "a" }, { trace_id: "t" });
    addDetectedLevelFromRow(row, row);
    expect(row.metadata).toEqual({ trace_id: "t", detected_level: "error" });
    expect(row.rawLine).toBe(literal);
    expect(row.line).toBe('{"msg":"caf\u00e9 \n","level":"ERR","n":1}');
  });
});

describe("detected_level from a line's JSON literal", () => {
  const head = (line: string) => levelOfLiteralHead(JSON.stringify(line));

  it("reads a known level from a line that opens with a level key, without the rest of the line", () => {
    expect(head('{"level":"debug","msg":"order \\"x\\" ☕","http":{"a":1}}')).toBe("debug");
    expect(head('{"severity":"WARNING","n":1}')).toBe("warn");
    expect(head('{"log.level":"Err"}')).toBe("error");
    expect(head('{"lvl":"info","rest":"\u0001 \ud800 malformed ]')).toBeUndefined(); // not ending in a brace
    expect(head('{"lvl":"info","rest":"\u0001 \ud800 and more"}')).toBe("info");
  });

  it("leaves every other line to the full reading", () => {
    expect(head('{"msg":"x","level":"info"}')).toBeUndefined(); // not the first key
    expect(head('{"level":"notice"}')).toBeUndefined(); // no known level: the line's words decide
    expect(head('{"level":"in\\"fo"}')).toBeUndefined(); // an escape in the value
    expect(head('{"le\\u0076el":"info"}')).toBeUndefined(); // an escape in the key
    expect(head('{"level":3}')).toBeUndefined();
    expect(head('{ "level":"info"}')).toBeUndefined();
    expect(head('{"level" :"info"}')).toBeUndefined();
    expect(head(' {"level":"info"}')).toBeUndefined();
    expect(head('{"level":"info"} ')).toBeUndefined();
    expect(head("level=info")).toBeUndefined();
    expect(head("")).toBeUndefined();
    expect(levelOfLiteralHead('"{\\"level\\":\\"info')).toBeUndefined(); // a cut literal
  });

  it("agrees with the full reading of the decoded line whenever it answers (property)", () => {
    const key = fc.constantFrom("level", "LEVEL", "severity", "lvl", "msg", "le\u0076el", "", "level ");
    const text = fc.constantFrom("info", "INFO", "Warn", "err", "notice", 'in"fo', "é☕", "\\", "", "debug ");
    const value = fc.oneof(
      text.map((t) => JSON.stringify(t)),
      fc.constantFrom("1", "true", "null", '{"level":"fatal"}'),
    );
    const member = fc.tuple(key, value).map(([k, v]) => `${JSON.stringify(k)}:${v}`);
    const line = fc
      .tuple(
        fc.constantFrom("", " ", "\n"),
        fc.array(member, { maxLength: 4 }),
        fc.constantFrom("}", "} ", "", ",}", "]"),
        fc.constantFrom("", "error here", "info"),
      )
      .map(([pad, members, close, tail]) => `${pad}{${members.join(",")}${close}${tail}`);
    fc.assert(
      fc.property(line, (l) => {
        const fast = head(l);
        if (fast !== undefined) expect(fast).toBe(detectLevel({}, {}, l));
      }),
      { numRuns: 2000, seed: 11 },
    );
  });
});

describe("service_name", () => {
  it("is the first non-empty label of the list, else unknown_service, unless the stream has one", () => {
    expect(derivedServiceName({ app: "a", service: "s" }, DEFAULT_SERVICE_NAME_LABELS)).toBe("s");
    expect(derivedServiceName({ job: "ns/batch", container: "c" }, DEFAULT_SERVICE_NAME_LABELS)).toBe("c");
    expect(derivedServiceName({ team: "x" }, DEFAULT_SERVICE_NAME_LABELS)).toBe("unknown_service");
    expect(derivedServiceName({ service_name: "own", app: "a" }, DEFAULT_SERVICE_NAME_LABELS)).toBeUndefined();
    expect(derivedServiceName({ app: "a" }, [])).toBeUndefined();
  });

  it("shares one extended label set between the rows of a stream", () => {
    const d = new FieldDeriver({ discoverLogLevels: false, serviceNameLabels: ["app"] });
    const stream = { app: "shop" };
    const a = d.derive({ ts: 1n, line: "x", stream, metadata: {} });
    const b = d.derive({ ts: 2n, line: "y", stream, metadata: {} });
    expect(a.stream).toEqual({ app: "shop", service_name: "shop" });
    expect(b.stream).toBe(a.stream);
    expect(a.metadata).toEqual({});
  });

  it("selects the unknown_service streams only when the matcher accepts that name", () => {
    const labels = ["service", "app"];
    const allAbsent = 'service:="" app:=""';
    expect(streamFilter([{ name: "service_name", op: "=~", value: "unknown.*" }], labels)).toContain(allAbsent);
    expect(streamFilter([{ name: "service_name", op: "=", value: "shop" }], labels)).not.toContain(allAbsent);
    expect(streamFilter([{ name: "service_name", op: "=", value: "shop" }])).toBe('{service_name="shop"}');
  });

  it("lets the stream index narrow the streams to those named so or not named at all", () => {
    const labels = ["service", "app"];
    const shop = { name: "service_name", op: "=" as const, value: "shop" };
    const prod = { name: "env", op: "=" as const, value: "prod" };
    expect(streamFilter([shop], labels)).toMatch(/^\{service_name="shop" or service_name=""\} \(/);
    expect(streamFilter([prod, shop], labels)).toMatch(
      /^\{env="prod",service_name="shop" or env="prod",service_name=""\} \(/,
    );
  });
});

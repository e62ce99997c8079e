/** VictoriaLogs rows → LogRow: stream labels, structured metadata, line and nanosecond time. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FieldPicker, parseStreamLabels, RowDecoder, RowScanner, type VLRow } from "../../../src/origin/rows";
import { formatRFC3339Nano, parseVLTime, VLTimeReader } from "../../../src/origin/timefmt";
import { LiteralRow, lineLength } from "../../../src/engine/literal-row";
import { compileLogPipeline } from "../../../src/engine/pipeline";
import type { LogRow } from "../../../src/engine/types";

describe("parseStreamLabels", () => {
  it("reads plain label sets", () => {
    expect(parseStreamLabels("{}")).toEqual({});
    expect(parseStreamLabels('{app="nginx",namespace="prod"}')).toEqual({ app: "nginx", namespace: "prod" });
  });

  it("unescapes Go-quoted values", () => {
    expect(parseStreamLabels('{a="x\\"y",b="back\\\\slash",c="tab\\tnl\\n",d="\\x41\\u00e9"}')).toEqual({
      a: 'x"y',
      b: "back\\slash",
      c: "tab\tnl\n",
      d: "Aé",
    });
  });

  it("keeps commas, braces and equals signs inside values", () => {
    expect(parseStreamLabels('{a="1,2",b="}{",c="k=v"}')).toEqual({ a: "1,2", b: "}{", c: "k=v" });
  });

  it("rejects what is not a label set", () => {
    expect(() => parseStreamLabels("app=nginx")).toThrow(/malformed _stream/);
    expect(() => parseStreamLabels("{app=nginx}")).toThrow(/malformed _stream/);
  });
});

describe("RowDecoder", () => {
  it("splits a row into stream labels, structured metadata, line and time", () => {
    const d = new RowDecoder();
    const row = d.decode({
      _msg: "GET /",
      _time: "2026-02-01T02:00:00.123456789Z",
      _stream: '{app="nginx",pod="p1"}',
      _stream_id: "0000",
      app: "nginx",
      pod: "p1",
      trace_id: "abc",
    });
    expect(row).toEqual({
      ts: 1_769_911_200_123_456_789n,
      line: "GET /",
      stream: { app: "nginx", pod: "p1" },
      metadata: { trace_id: "abc" },
    });
  });

  it("shares one label object between rows of a stream", () => {
    const d = new RowDecoder();
    const a = d.decode({ _msg: "a", _time: "2026-02-01T00:00:00Z", _stream: '{app="x"}' });
    const b = d.decode({ _msg: "b", _time: "2026-02-01T00:00:01Z", _stream: '{app="x"}' });
    expect(a.stream).toBe(b.stream);
    expect(a.metadata).toEqual({});
  });

  it("tolerates missing fields", () => {
    const row = new RowDecoder().decode({ _time: "2026-02-01T00:00:00Z" });
    expect(row.line).toBe("");
    expect(row.stream).toEqual({});
  });
});

/** A stream literal as VictoriaLogs writes it: Go-quoted values. */
function streamLiteral(labels: [string, string][]): string {
  return `{${labels.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(",")}}`;
}

describe("RowScanner", () => {
  /** The row's fields as values (a line kept as its literal is decoded by reading `line`). */
  const fieldsOf = (r: LogRow) => ({ ts: r.ts, line: r.line, stream: r.stream, metadata: r.metadata });
  const scanned = (line: string) => {
    const r = new RowScanner().scan(line);
    return { row: fieldsOf(r), rawLine: r.rawLine };
  };

  it("reads a typical row without escapes, keeping the line's JSON literal", () => {
    const line = JSON.stringify({
      _msg: "GET / 200",
      _stream: '{app="nginx",pod="p1"}',
      _stream_id: "0000",
      _time: "2026-02-01T02:00:00.123456789Z",
      app: "nginx",
      pod: "p1",
      trace_id: "abc",
    });
    expect(scanned(line)).toEqual({
      row: {
        ts: 1_769_911_200_123_456_789n,
        line: "GET / 200",
        stream: { app: "nginx", pod: "p1" },
        metadata: { trace_id: "abc" },
      },
      rawLine: '"GET / 200"',
    });
  });

  it("finds the end of values with escaped quotes and backslash runs", () => {
    const msg = 'say \\"hi\\" \\\\" and \\\\';
    const line = JSON.stringify({ _msg: msg, _stream: '{a="q\\"x"}', _time: "2026-02-01T00:00:00Z", b: '"', c: "\\" });
    const { row, rawLine } = scanned(line);
    expect(row).toEqual({
      ts: 1_769_904_000_000_000_000n,
      line: msg,
      stream: { a: 'q"x' },
      metadata: { b: '"', c: "\\" },
    });
    expect(JSON.parse(rawLine!)).toBe(msg);
  });

  it("reads an escaped `_time` as its decoded text, as JSON.parse would", () => {
    // "2026-02-01T02:00:00.5Z" with its dashes written as \u002d.
    const line = `{"_time":"2026\\u002d02\\u002d01T02:00:00.5Z","_stream":"{app=\\"x\\"}","_msg":"m"}`;
    expect(JSON.parse(line)._time).toBe("2026-02-01T02:00:00.5Z");
    expect(scanned(line).row.ts).toBe(1_769_911_200_500_000_000n);
  });

  it("keeps a line with escapes as its literal, which an unchanged entry carries as is", () => {
    const msg = '{"level":"info","path":"/a\\b"}';
    const r = new RowScanner().scan(JSON.stringify({ _msg: msg, _stream: '{app="x"}', _time: "2026-02-01T00:00:00Z" }));
    expect(r).toBeInstanceOf(LiteralRow);
    expect(r.rawLine).toBe(JSON.stringify(msg));
    expect(lineLength(r)).toBe(JSON.stringify(msg).length - 2);
    // Without stages the row is its own entry: nothing decodes the line.
    const entry = compileLogPipeline([]).process(r);
    expect(entry).toBe(r);
    expect(entry!.parsed).toEqual({});
    expect(r.line).toBe(msg);
    // A stage that reads the line gets the decoded text.
    const filtered = compileLogPipeline([
      { kind: "LineFilter", op: "|=", values: [{ type: "string", value: "/a\\b" }] },
    ]).process(r);
    expect(filtered?.line).toBe(msg);
  });

  it("takes rows of any other shape through JSON.parse, with the same result", () => {
    for (const line of [
      '{ "_msg": "spaced", "_time": "2026-02-01T00:00:00Z" }',
      '{"_msg":"n","_time":"2026-02-01T00:00:00Z","count":3}',
      '{"_msg":"k","_time":"2026-02-01T00:00:00Z","we\\"ird":"v"}',
    ]) {
      const { row } = scanned(line);
      expect(row).toEqual(new RowDecoder().decode(JSON.parse(line) as VLRow));
    }
  });

  it("treats a field named like an Object.prototype member as metadata", () => {
    const { row } = scanned(
      JSON.stringify({ _msg: "m", _stream: '{app="x"}', _time: "2026-02-01T00:00:00Z", app: "x", constructor: "c" }),
    );
    expect(row.metadata).toEqual({ constructor: "c" });
  });

  it("agrees with JSON.parse + RowDecoder on random rows (property)", () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: "grapheme" }),
      fc.constantFrom('"', "\\", '\\"', "\n", "\u0000", "\ud800", "é☕"),
      // Runs of quotes, backslashes and separators: a value's end is its first unescaped quote.
      fc.array(fc.constantFrom('"', "\\", ",", '","', "x", '":"', "}"), { maxLength: 8 }).map((a) => a.join("")),
    );
    const name = fc.oneof(
      fc.constantFrom("app", "pod", "trace_id", "level", "toString", "_stream_id", "_x"),
      fc.string({ minLength: 1 }),
    );
    const time = fc
      .tuple(fc.integer({ min: 0, max: 4_000_000_000 }), fc.integer({ min: 0, max: 999_999_999 }), fc.boolean())
      .map(([sec, ns, whole]) => {
        const frac = whole ? "" : `.${String(ns).padStart(9, "0")}`.replace(/0+$/, "").replace(/\.$/, "");
        return `${new Date(sec * 1000).toISOString().slice(0, 19)}${frac}Z`;
      });
    const row = fc
      .record({
        msg: fc.option(text, { nil: undefined }),
        stream: fc.array(fc.tuple(fc.constantFrom("app", "pod", "ns"), text), { maxLength: 3 }),
        time,
        fields: fc.array(fc.tuple(name, text), { maxLength: 5 }),
        // VictoriaLogs sends _stream before the other fields; the scanner must not depend on it.
        streamLast: fc.boolean(),
      })
      .map(({ msg, stream, time, fields, streamLast }) => {
        const obj: Record<string, string> = {};
        if (msg !== undefined) obj._msg = msg;
        const labels = [...new Map(stream)];
        if (!streamLast) obj._stream = streamLiteral(labels);
        obj._time = time;
        for (const [k, v] of labels) obj[k] = v;
        for (const [k, v] of fields) if (k !== "_msg" && k !== "_stream" && k !== "_time") obj[k] = v;
        if (streamLast) obj._stream = streamLiteral(labels);
        return JSON.stringify(obj);
      });
    const scanner = new RowScanner();
    const decoder = new RowDecoder();
    fc.assert(
      fc.property(row, (line) => {
        const r = scanner.scan(line);
        const got = fieldsOf(r);
        expect(got).toEqual(decoder.decode(JSON.parse(line) as VLRow));
        if (r.rawLine !== undefined) expect(JSON.parse(r.rawLine)).toBe(got.line);
      }),
      { numRuns: 3000, seed: 11 },
    );
  });
});

describe("RowScanner: stream literals met again", () => {
  it("reads each row's own `_stream`, whatever quotes and braces the rows hold (property)", () => {
    // Label values and field values built from quotes, backslashes and braces; one scanner for all
    // rows, so that literals are met again, by themselves and inside others.
    const piece = fc
      .array(fc.constantFrom("}", '"', "\\", ",", "=", "x", '}"', "{"), { maxLength: 4 })
      .map((a) => a.join(""));
    const row = fc
      .record({
        labels: fc.array(fc.tuple(fc.constantFrom("a", "b"), piece), { maxLength: 2 }),
        // VictoriaLogs' `_stream` always ends in `}`; a value that does not is met too.
        tail: fc.constantFrom("", "", "x", '"'),
        after: fc.array(fc.tuple(fc.constantFrom("c", "_msg", "_time"), piece), { maxLength: 3 }),
      })
      .map(({ labels, tail, after }) => {
        const parts = [`"_time":"2026-02-01T00:00:01Z"`, `"_stream":${JSON.stringify(streamLiteral(labels) + tail)}`];
        for (const [k, v] of after)
          parts.push(`${JSON.stringify(k)}:${JSON.stringify(k === "_time" ? "2026-02-01T00:00:02Z" : v)}`);
        return `{${parts.join(",")}}`;
      });
    const scanner = new RowScanner();
    const outcome = (f: () => LogRow) => {
      try {
        const r = f();
        return { ts: r.ts, line: r.line, stream: r.stream, metadata: r.metadata };
      } catch (err) {
        return { error: (err as Error).message };
      }
    };
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 12 }), (lines) => {
        for (const line of lines) {
          expect(outcome(() => scanner.scan(line))).toEqual(
            outcome(() => new RowDecoder().decode(JSON.parse(line) as VLRow)),
          );
        }
      }),
      { numRuns: 1500, seed: 23 },
    );
  });
});

describe("RowScanner: rows of one stream whose fields change", () => {
  it("agrees with JSON.parse + RowDecoder when a stream's rows carry other fields, in other orders (property)", () => {
    // Few streams, few names: each stream's remembered field names are met, missed and relearned.
    const streams = [
      [
        ["app", "api"],
        ["pod", "p1"],
      ],
      [["app", "web"]],
      [],
    ] as [string, string][][];
    const names = ["app", "pod", "trace_id", "level", "span", "toString", "appx", "po"];
    const row = fc
      .record({
        stream: fc.integer({ min: 0, max: streams.length - 1 }),
        fields: fc.array(fc.tuple(fc.constantFrom(...names), fc.constantFrom("api", "p1", "x", 'q"', "")), {
          maxLength: 6,
        }),
        ns: fc.integer({ min: 0, max: 999_999_999 }),
        id: fc.boolean(),
      })
      .map(({ stream, fields, ns, id }) => {
        // Built by hand, as VictoriaLogs writes rows: a name may come twice (the last one counts).
        const parts = [`"_time":"2026-02-01T00:00:01.${String(ns).padStart(9, "0")}Z"`];
        if (id) parts.push(`"_stream_id":"00ab"`);
        parts.push(`"_stream":${JSON.stringify(streamLiteral(streams[stream]!))}`, `"_msg":"m"`);
        for (const [k, v] of fields) parts.push(`${JSON.stringify(k)}:${JSON.stringify(v)}`);
        return `{${parts.join(",")}}`;
      });
    const scanner = new RowScanner();
    const decoder = new RowDecoder();
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 20 }), (lines) => {
        for (const line of lines) {
          const r = scanner.scan(line);
          expect({ ts: r.ts, line: r.line, stream: r.stream, metadata: r.metadata }).toEqual(
            decoder.decode(JSON.parse(line) as VLRow),
          );
        }
      }),
      { numRuns: 500, seed: 5 },
    );
  });
});

describe("FieldPicker", () => {
  const names = ["_time", "v", "cluster", "constructor"];

  /** The reference: JSON.parse, then each name's own string value ("" when absent). */
  function reference(line: string): string[] {
    const row = JSON.parse(line) as Record<string, unknown>;
    return names.map((name) => {
      const value = Object.hasOwn(row, name) ? row[name] : undefined;
      return typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
    });
  }

  function picked(line: string, at = 0): string[] {
    const out = new Array<string>(at + names.length).fill("unset");
    new FieldPicker(names).pick(line, out, at);
    return out.slice(at);
  }

  it("reads the chosen fields in place, in the names' order, with '' for absent ones", () => {
    const line = '{"_time":"2026-02-01T00:00:00Z","cluster":"eu","other":"x","v":"1.5"}';
    expect(picked(line, 3)).toEqual(["2026-02-01T00:00:00Z", "1.5", "eu", ""]);
    expect(picked('{"v":"a\\"b","cluster":"\\u00e9"}')).toEqual(["", 'a"b', "é", ""]);
  });

  it("agrees with JSON.parse on random rows, duplicate keys and non-string values included (property)", () => {
    const text = fc.oneof(
      fc.string(),
      fc.constantFrom('"', "\\", '\\"', "\u0000", "é☕", ""),
      fc.array(fc.constantFrom('"', "\\", ",", '","', "x", '":"', "}"), { maxLength: 8 }).map((a) => a.join("")),
    );
    const key = fc.oneof(fc.constantFrom(...names, "vv", "_stream", "clusterx", "toString"), fc.string());
    const value = fc.oneof(
      text.map((t) => JSON.stringify(t)),
      fc.constantFrom("1", "-2.5", "true", "null", "[]", '{"v":"in"}'),
    );
    const row = fc
      .array(fc.tuple(key, value), { maxLength: 7 })
      .map((fields) => `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`);
    const picker = new FieldPicker(names);
    fc.assert(
      fc.property(row, (line) => {
        const out = new Array<string>(names.length);
        picker.pick(line, out, 0);
        expect(out).toEqual(reference(line));
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it("throws on a line that is not a JSON object", () => {
    for (const line of ['{"v":"1"', '["v"]', "null", '{"v":"1"} x']) {
      expect(() => picked(line)).toThrow();
    }
  });
});

describe("timestamps", () => {
  it("parses VictoriaLogs' trimmed fractions exactly", () => {
    expect(parseVLTime("2026-02-01T00:00:00Z")).toBe(1_769_904_000_000_000_000n);
    expect(parseVLTime("2026-02-01T00:00:00.5Z")).toBe(1_769_904_000_500_000_000n);
    expect(parseVLTime("2026-02-01T00:00:00.000000001Z")).toBe(1_769_904_000_000_000_001n);
    expect(parseVLTime("1970-01-01T00:00:00Z")).toBe(0n);
  });

  it("formats with nine fractional digits, before the epoch too", () => {
    expect(formatRFC3339Nano(1_769_904_000_000_000_001n)).toBe("2026-02-01T00:00:00.000000001Z");
    expect(formatRFC3339Nano(0n)).toBe("1970-01-01T00:00:00.000000000Z");
    expect(formatRFC3339Nano(-1n)).toBe("1969-12-31T23:59:59.999999999Z");
  });

  it("reads a response's times as parseVLTime does, remembering the hour (property)", () => {
    // Runs of one hour, as rows come; fractions of every length; odd spellings fall back.
    const time = fc
      .tuple(
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 60 }),
        fc.string({ unit: fc.constantFrom("0", "1", "5", "9"), maxLength: 10 }),
        fc.boolean(),
      )
      .map(([h, m, sec, frac, dot]) => {
        const two = (v: number) => String(v).padStart(2, "0");
        return `2026-02-01T${two(h)}:${two(m)}:${two(sec)}${dot ? "." + frac : ""}Z`;
      });
    const odd = fc.constantFrom("2026-02-01T00:00:00.1234567890Z", "2026-02-01T00:0x:00Z", "2026-02-01T00:00:00.5", "");
    fc.assert(
      fc.property(fc.array(fc.oneof(time, time, time, odd), { maxLength: 30 }), (times) => {
        const reader = new VLTimeReader();
        for (const t of times) {
          let want: bigint | Error;
          try {
            want = parseVLTime(t);
          } catch (err) {
            want = err as Error;
          }
          if (want instanceof Error) expect(() => reader.read(t)).toThrow();
          else expect(reader.read(t)).toBe(want);
        }
      }),
      { numRuns: 1000, seed: 3 },
    );
  });

  it("reads a time where it stands in a longer text, as it reads the time alone", () => {
    const reader = new VLTimeReader();
    const times = [
      "2026-02-01T02:00:00.123456789Z",
      "2026-02-01T02:59:59Z",
      "2026-02-01T03:00:00.5Z",
      "2026-02-01T0x:00:00Z",
    ];
    for (const t of times) {
      const text = `{"_time":"${t}","x":"y"}`;
      const want = parseVLTime(t);
      expect(reader.readAt(text, 10, 10 + t.length)).toBe(want);
      expect(new VLTimeReader().read(t)).toBe(want);
    }
  });

  it("round-trips", () => {
    for (const ns of [1n, 999_999_999n, 1_769_911_200_123_456_789n, 4_102_444_800_000_000_000n]) {
      expect(parseVLTime(formatRFC3339Nano(ns))).toBe(ns);
    }
  });
});

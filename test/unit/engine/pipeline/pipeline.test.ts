import { describe, expect, it } from "vitest";
import type { LabelFilterExpr, PipelineStage } from "../../../../src/logql/ast";
import type { LogRow } from "../../../../src/engine/types";
import { compileLogPipeline, lineFilterPredicate, reorderLineFilters } from "../../../../src/engine/pipeline";

const stream = { app: "api", job: "prod/api", namespace: "prod" };
const row = (line: string, metadata: Record<string, string> = {}): LogRow => ({ ts: 1000n, line, stream, metadata });
const run = (stages: PipelineStage[], r: LogRow) => compileLogPipeline(stages).process(r);
const lf = (filter: LabelFilterExpr): PipelineStage => ({ kind: "LabelFilter", filter });
const json: PipelineStage = { kind: "JsonParser", params: [] };
const logfmt: PipelineStage = { kind: "LogfmtParser", strict: false, keepEmpty: false, params: [] };

describe("line filters", () => {
  const pass = (op: "|=" | "!=" | "|~" | "!~" | "|>" | "!>", values: string[], line: string) =>
    lineFilterPredicate({
      kind: "LineFilter",
      op,
      values: values.map((value) => ({ type: "string" as const, value })),
    })(line);
  it("treats |= text literally, not as a regex", () => {
    expect(pass("|=", ["a.b"], "a.b")).toBe(true);
    expect(pass("|=", ["a.b"], "axb")).toBe(false);
    expect(pass("|=", ["(foo"], "x (foo y")).toBe(true);
  });
  it("or-chains: any for positive ops, none for negative ops", () => {
    expect(pass("|=", ["x", "y"], "only y")).toBe(true);
    expect(pass("!=", ["x", "y"], "only y")).toBe(false);
    expect(pass("!=", ["x", "y"], "neither")).toBe(true);
    expect(pass("!~", ["a+", "b+"], "ccc")).toBe(true);
  });
  it("regexes search unanchored", () => {
    expect(pass("|~", ["job=(email|sync)"], "level=info job=sync ok")).toBe(true);
    expect(pass("|~", ["^job"], "level=info job=sync")).toBe(false);
  });
  it("patterns", () => {
    expect(pass("|>", ["<_> ok=true <_>"], "a ok=true b")).toBe(true);
    expect(pass("!>", ["<_> ok=true <_>"], "a ok=true b")).toBe(false);
  });
});

describe("reorderLineFilters", () => {
  const f = (value: string): PipelineStage => ({ kind: "LineFilter", op: "|=", values: [{ type: "string", value }] });
  const fmt: PipelineStage = { kind: "LineFormat", template: "{{.a}}" };
  it("moves filters ahead of parsers and decolorize, not across line_format or label filters", () => {
    const dec: PipelineStage = { kind: "Decolorize" };
    const status = lf({ type: "number", name: "s", op: ">", value: 1, text: "1" });
    expect(reorderLineFilters([json, f("a"), dec, f("b"), fmt, f("c"), status, logfmt, f("d")])).toEqual([
      f("a"),
      f("b"),
      json,
      dec,
      fmt,
      f("c"),
      status,
      f("d"),
      logfmt,
    ]);
  });
  it("keeps filters after unpack there", () => {
    const unpack: PipelineStage = { kind: "UnpackParser" };
    expect(reorderLineFilters([json, unpack, f("x")])).toEqual([json, unpack, f("x")]);
  });
});

describe("json parser", () => {
  it("flattens nested objects, ignores arrays and nulls, keeps number text", () => {
    const e = run(
      [json],
      row('{"a":{"b":{"c":"d"}},"n":35.0,"t":true,"arr":[1,2],"z":null,"e":"","1x":"v","k.y":"w"}'),
    )!;
    expect(e.parsed).toEqual({ a_b_c: "d", n: "35.0", t: "true", e: "", _1x: "v", k_y: "w" });
    expect(e.stream).toEqual(stream);
  });
  it("suffixes names that collide with stream labels and with structured metadata", () => {
    // Loki keeps both and names the parsed key `…_extracted` (its parser tests' "structured
    // metadata is preserved and parsed labels get _extracted suffix").
    const e = run([json], row('{"app":"x","trace":"p"}', { trace: "m" }))!;
    expect(e.parsed).toEqual({ app_extracted: "x", trace_extracted: "p" });
    expect(e.metadata).toEqual({ trace: "m" });
  });
  it("keeps the first of duplicate keys (Loki skips a key it already extracted)", () => {
    expect(run([json], row('{"a":"1","a":"2"}'))!.parsed).toEqual({ a: "1" });
    // A nested key flattens to the name of a later top-level one: the first still wins.
    expect(run([json], row('{"a":{"b":"n"},"a_b":"t"}'))!.parsed).toEqual({ a_b: "n" });
  });
  it("marks non-JSON lines with the scanner's error", () => {
    expect(run([json], row("plain text"))!.parsed).toEqual({
      __error__: "JSONParserErr",
      __error_details__: "Value looks like object, but can't find closing '}' symbol",
    });
  });
  it("param form: paths, missing values as empty, objects raw", () => {
    const stage: PipelineStage = {
      kind: "JsonParser",
      params: [
        { label: "h", expression: 'http["host"]' },
        { label: "first", expression: "list[0]" },
        { label: "obj", expression: "http" },
        { label: "missing", expression: "nope.x" },
        { label: "app", expression: "app" },
      ],
    };
    const e = run([stage], row('{"http":{"host":"h1"},"list":["x","y"],"app":"a2"}'))!;
    expect(e.parsed).toEqual({ h: "h1", first: "x", obj: '{"host":"h1"}', missing: "", app_extracted: "a2" });
  });
});

describe("logfmt parser", () => {
  it("skips empty values unless --keep-empty", () => {
    expect(run([logfmt], row("a=1 b= c"))!.parsed).toEqual({ a: "1" });
    const keep: PipelineStage = { kind: "LogfmtParser", strict: false, keepEmpty: true, params: [] };
    expect(run([keep], row("a=1 b= c"))!.parsed).toEqual({ a: "1", b: "", c: "" });
  });
  it("keeps the first value of a repeated key (an empty one skipped sets nothing)", () => {
    // Loki's parser test "duplicate from line property": `foobar="foo bar" foobar=10ms`.
    expect(run([logfmt], row('foobar="foo bar" foobar=10ms'))!.parsed).toEqual({ foobar: "foo bar" });
    expect(run([logfmt], row("a=1 a=2 b= b=3 job=x job=y"))!.parsed).toEqual({ a: "1", b: "3", job_extracted: "x" });
  });
  it("--strict stops at the first malformed pair and reports it", () => {
    const strict: PipelineStage = { kind: "LogfmtParser", strict: true, keepEmpty: false, params: [] };
    expect(run([strict], row('a=1 b="x c=2'))!.parsed).toEqual({
      a: "1",
      __error__: "LogfmtParserErr",
      __error_details__: "logfmt syntax error at pos 13 : unterminated quoted value",
    });
    expect(run([logfmt], row("a=1 =x c=2"))!.parsed).toEqual({ a: "1", c: "2" });
  });
  it("param form renames and always sets the requested labels", () => {
    const stage: PipelineStage = {
      kind: "LogfmtParser",
      strict: false,
      keepEmpty: false,
      params: [{ label: "lvl", expression: "level" }, { label: "took", expression: "duration" }, { label: "job" }],
    };
    expect(run([stage], row("level=warn msg=x job=7"))!.parsed).toEqual({ lvl: "warn", took: "", job_extracted: "7" });
  });
});

describe("the first parsed value of a label within a line wins", () => {
  const re = (regex: string): PipelineStage => ({ kind: "RegexpParser", regex });
  const keepEmpty: PipelineStage = { kind: "LogfmtParser", strict: false, keepEmpty: true, params: [] };
  it("a later parser skips a label an earlier one extracted", () => {
    expect(run([json, logfmt], row('{"g": "j"} g=l h=m'))!.parsed).toEqual({ g: "j", h: "m" });
    expect(run([logfmt, re("g=(?P<g>\\w+) g=(?P<h>\\w+)")], row("g=a g=b"))!.parsed).toEqual({ g: "a", h: "b" });
    expect(run([logfmt, { kind: "PatternParser", pattern: "<g> <_>" }], row("g=a x"))!.parsed).toEqual({ g: "a" });
    const unpack: PipelineStage = { kind: "UnpackParser" };
    expect(run([json, unpack], row('{"_entry":"e","g":"j"}'))!.parsed).toEqual({ _entry: "e", g: "j" });
    // Within one object `unpack` sets every key it did not skip in turn: the last of a repeated key stays.
    expect(run([unpack], row('{"_entry":"e","g":"a","g":"b"}'))!.parsed).toEqual({ g: "b" });
  });
  it("an empty value extracted first blocks a later one", () => {
    expect(run([json, logfmt], row('{"g":""} g=l'))!.parsed).toEqual({ g: "" });
    expect(run([keepEmpty, re("g= (?P<g>\\w+)")], row("g= j"))!.parsed).toEqual({ g: "", j: "" });
  });
  it("suffixed names are recorded as suffixed", () => {
    expect(run([json, logfmt], row('{"app":"j"} app=l'))!.parsed).toEqual({ app_extracted: "j" });
  });
  it("a label_format result blocks a later parser; json with paths overwrites", () => {
    const tmpl: PipelineStage = { kind: "LabelFormat", ops: [{ dst: "g", src: "x", isTemplate: true }] };
    expect(run([tmpl, logfmt], row("g=l"))!.parsed).toEqual({ g: "x" });
    const path: PipelineStage = { kind: "JsonParser", params: [{ label: "g", expression: "g" }] };
    expect(run([logfmt, path], row('{"g":"j"} g=l'))!.parsed).toEqual({ g: "j" });
  });
});

describe("label filters", () => {
  const parsed = (stages: PipelineStage[], line: string) => run(stages, row(line))?.parsed ?? null;
  it("numeric: missing label drops, unparsable keeps with LabelFilterErr", () => {
    const f = lf({ type: "number", name: "n", op: ">", value: 5, text: "5" });
    expect(parsed([logfmt, f], "x=1")).toBeNull();
    expect(parsed([logfmt, f], "n=abc")).toEqual({
      n: "abc",
      __error__: "LabelFilterErr",
      __error_details__: 'strconv.ParseFloat: parsing "abc": invalid syntax',
    });
    expect(parsed([logfmt, f], "n=6")).toEqual({ n: "6" });
    expect(parsed([logfmt, f], "n=5")).toBeNull();
  });
  it("duration and bytes compare parsed values", () => {
    const d = lf({ type: "duration", name: "d", op: ">=", value: 1e9, text: "1s" });
    expect(parsed([logfmt, d], "d=1500ms")).toEqual({ d: "1500ms" });
    expect(parsed([logfmt, d], "d=999ms")).toBeNull();
    const b = lf({ type: "bytes", name: "s", op: "<", value: 10000, text: "10KB" });
    expect(parsed([logfmt, b], "s=9KB")).toEqual({ s: "9KB" });
    expect(parsed([logfmt, b], "s=10KiB")).toBeNull();
  });
  it("string: missing label is empty; regexes are anchored", () => {
    expect(parsed([lf({ type: "string", name: "nope", op: "=", value: "" })], "x")).toEqual({});
    expect(parsed([logfmt, lf({ type: "string", name: "a", op: "=~", value: "b" })], "a=abc")).toBeNull();
    expect(parsed([logfmt, lf({ type: "string", name: "a", op: "=~", value: "a.*" })], "a=abc")).toEqual({ a: "abc" });
  });
  it("__error__ filters see the error and can drop errored entries", () => {
    const noErr = lf({ type: "string", name: "__error__", op: "=", value: "" });
    expect(parsed([json, noErr], "not json")).toBeNull();
    expect(parsed([json, noErr], '{"a":"1"}')).toEqual({ a: "1" });
  });
  it("and/or", () => {
    const a = { type: "string", name: "a", op: "=", value: "1" } as const;
    const b = { type: "string", name: "b", op: "=", value: "2" } as const;
    expect(parsed([logfmt, lf({ type: "binary", op: "or", left: a, right: b })], "a=0 b=2")).toEqual({
      a: "0",
      b: "2",
    });
    expect(parsed([logfmt, lf({ type: "binary", op: "and", left: a, right: b })], "a=0 b=2")).toBeNull();
  });
});

describe("label model and shaping stages", () => {
  it("metadata colliding with a stream label is suffixed", () => {
    const e = run([], row("x", { app: "m", tenant: "t" }))!;
    expect(e.metadata).toEqual({ app_extracted: "m", tenant: "t" });
  });
  it("a parsed key named like structured metadata leaves it and is `_extracted`", () => {
    const e = run([logfmt], row("tenant=p", { tenant: "m" }))!;
    expect(e.metadata).toEqual({ tenant: "m" });
    expect(e.parsed).toEqual({ tenant_extracted: "p" });
  });
  it("every parser leaves structured metadata alone", () => {
    const meta = { a: "m" };
    const stage = (s: PipelineStage) => run([s], row("a=1 b", meta))!;
    expect(stage({ kind: "RegexpParser", regex: "a=(?P<a>\\d)" }).parsed).toEqual({ a_extracted: "1" });
    expect(stage({ kind: "PatternParser", pattern: "a=<a> <_>" }).parsed).toEqual({ a_extracted: "1" });
    const params = { kind: "LogfmtParser", params: [{ label: "a" }], strict: false, keepEmpty: false } as PipelineStage;
    expect(stage(params).parsed).toEqual({ a_extracted: "1" });
    expect(stage(params).metadata).toEqual(meta);
  });
  it("drop removes stream, metadata and parsed labels, and error labels by name or matcher", () => {
    const drop: PipelineStage = {
      kind: "Drop",
      items: [
        { name: "namespace" },
        { name: "tenant" },
        { name: "a", matcher: { name: "a", op: "=", value: "1" } },
        { name: "__error__" },
      ],
    };
    const e = run([json, drop], row("oops", { tenant: "t" }))!;
    expect(e.stream).toEqual({ app: "api", job: "prod/api" });
    expect(e.metadata).toEqual({});
    expect(e.parsed).toEqual({ __error_details__: "Value looks like object, but can't find closing '}' symbol" });
    expect(run([logfmt, drop], row("a=2"))!.parsed).toEqual({ a: "2" });
  });
  it("keep never removes the error labels", () => {
    const keep: PipelineStage = { kind: "Keep", items: [{ name: "app" }] };
    const e = run([json, keep], row("oops", { tenant: "t" }))!;
    expect(e.stream).toEqual({ app: "api" });
    expect(e.metadata).toEqual({});
    expect(Object.keys(e.parsed).sort()).toEqual(["__error__", "__error_details__"]);
  });
  it("label_format rename keeps the source category and removes the source", () => {
    const rename: PipelineStage = { kind: "LabelFormat", ops: [{ dst: "lvl", src: "level", isTemplate: false }] };
    expect(run([logfmt, rename], row("level=info"))!.parsed).toEqual({ lvl: "info" });
    const fromMeta: PipelineStage = { kind: "LabelFormat", ops: [{ dst: "t2", src: "tenant", isTemplate: false }] };
    const e = run([fromMeta], row("x", { tenant: "acme" }))!;
    expect(e.metadata).toEqual({ t2: "acme" });
  });
  it("decolorize strips ANSI colour codes", () => {
    expect(run([{ kind: "Decolorize" }], row("\u001b[31mERROR\u001b[0m level=error"))!.line).toBe("ERROR level=error");
  });
  it("unpack replaces the line with _entry and adds the other string fields", () => {
    const e = run([{ kind: "UnpackParser" }], row('{"_entry":"hello \\"w\\"","pod":"p1","n":3}'))!;
    expect(e.line).toBe('hello "w"');
    expect(e.parsed).toEqual({ pod: "p1" });
    const plain = run([{ kind: "UnpackParser" }], row('{"pod":"p1"}'))!;
    expect(plain.line).toBe('{"pod":"p1"}');
    expect(plain.parsed).toEqual({});
  });
  it("regexp: named groups, unmatched groups empty, no match adds nothing", () => {
    const re: PipelineStage = { kind: "RegexpParser", regex: "(?P<a>x+)(?P<b>y)?" };
    expect(run([re], row("zxx"))!.parsed).toEqual({ a: "xx", b: "" });
    expect(run([re], row("zzz"))!.parsed).toEqual({});
  });
});

describe("a pipeline with no stages", () => {
  it("gives the labels builder's answer for any metadata (property)", async () => {
    const fc = (await import("fast-check")).default;
    const { StageRunner } = await import("../../../../src/engine/pipeline/pipeline");
    const key = fc.constantFrom(
      "app",
      "job",
      "trace_id",
      "__error__",
      "__error_details__",
      "app_extracted",
      "toString",
      "level",
    );
    const value = fc.constantFrom("", "x", "api", "boom");
    fc.assert(
      fc.property(fc.dictionary(key, value), fc.constantFrom(undefined, '"line"'), (metadata, rawLine) => {
        const r: LogRow = { ts: 5n, line: "line", rawLine, stream, metadata };
        const general = new StageRunner([]);
        const expected = general.builder.toEntry(r.ts, general.run(r)!, r.rawLine);
        expect(compileLogPipeline([]).process(r)).toEqual(expected);
      }),
      { numRuns: 500, seed: 3 },
    );
  });

  it("returns the row's own stream and metadata objects when nothing is renamed", () => {
    const r: LogRow = { ts: 5n, line: "l", stream, metadata: { trace_id: "t" } };
    const e = compileLogPipeline([]).process(r)!;
    expect(e.stream).toBe(stream);
    expect(e.metadata).toBe(r.metadata);
    expect(e.parsed).toEqual({});
  });
});

/**
 * A stats answer read in one pass gives the table that parsing each line as JSON and adding its row
 * gives (the same times, groups, rows and results, in order), whether its lines are read where they
 * lie or parsed; and it refuses what JSON.parse refuses, at the same line.
 */
import fc from "fast-check";
import type { VLRow } from "../../../src/origin/rows";
import { describe, expect, it } from "vitest";
import { readStatsAnswer } from "../../../src/origin/stats-answer";
import { eachNdjsonRow, NotARow, StatsTable } from "../../../src/origin/stats-table";

/** The reference: each line parsed as JSON and its row added. */
function parsedTable(body: string, values: string[], texts: string[] = []): StatsTable {
  const table = new StatsTable(values, texts);
  eachNdjsonRow(body, (row) => table.add(row));
  return table;
}

function readTable(body: string, values: string[], texts: string[] = []): StatsTable {
  const table = new StatsTable(values, texts);
  readStatsAnswer(body, table);
  return table;
}

/** Everything a table tells, results compared with Object.is (NaN, −0). */
function contents(table: StatsTable) {
  return {
    times: table.times,
    groups: table.groups.map((g) => Object.entries(g)),
    rows: Array.from({ length: table.length }, (_, i) => [
      table.timeIndex(i),
      table.groupIndex(i),
      ...table.values.map((_, c) => {
        const v = table.value(i, c);
        return Object.is(v, -0) ? "-0" : Number.isNaN(v) ? "NaN" : v;
      }),
      ...table.texts.map((_, c) => table.text(i, c) ?? null),
    ]),
  };
}

const T1 = "2026-03-10T22:03:00.000000001Z";
const T2 = "2026-03-10T22:04:00.000000001Z";

describe("readStatsAnswer", () => {
  it("reads plain lines' times, groups and results", () => {
    const body = [
      `{"_time":"${T1}","pod":"a","__v":"1167"}`,
      `{"_time":"${T2}","pod":"b","__v":"3.5"}`,
      "",
      `{"_time":"${T2}","pod":"a","__v":"12345678901234567890"}`,
      `{"_time":"${T1}","pod":"a","level":"","__v":"007"}`,
    ].join("\n");
    const table = readTable(body, ["__v"]);
    expect(table.times).toEqual([T1, T2]);
    expect(table.groups).toEqual([{ pod: "a" }, { pod: "b" }, { pod: "a", level: "" }]);
    expect(Array.from({ length: table.length }, (_, i) => table.row(i))).toEqual([
      { _time: T1, pod: "a", __v: "1167" },
      { _time: T2, pod: "b", __v: "3.5" },
      { _time: T2, pod: "a", __v: "12345678901234567000" },
      { _time: T1, pod: "a", level: "", __v: "7" },
    ]);
  });

  it("takes a group written with escapes and without for one group, as parsed rows would be", () => {
    const body = [
      `{"_time":"${T1}","path":"/a/b","__v":"1"}`,
      `{"_time":"${T1}","path":"\\/a\\/b","__v":"2"}`,
      `{"_time":"${T2}","path":"\\u002fa/b","__v":"3"}`,
      `{"_time":"${T2}","path":"/a/b","__v":"4"}`,
    ].join("\n");
    const table = readTable(body, ["__v"]);
    expect(table.groups).toEqual([{ path: "/a/b" }]);
    expect(contents(table)).toEqual(contents(parsedTable(body, ["__v"])));
  });

  it("reads texts holding quotes (a quantile's value lists) as parsed rows are read", () => {
    const list = '["21.43","7"]';
    const body = [
      `{"_time":"${T1}","cluster":"us-east-1","__v":${JSON.stringify(list)},"__n":"2"}`,
      `{"_time":"${T1}","cluster":"a\\"b\\"","__n":"1"}`,
      `{ "_time":"${T2}", "cluster":"a\\"b\\"", "__n":"3" }`,
      `{"_time":"${T2}","cluster":"a\\\\","__n":"1"}`,
    ].join("\n");
    const table = readTable(body, ["__n"]);
    expect(table.groups).toEqual([{ cluster: "us-east-1", __v: list }, { cluster: 'a"b"' }, { cluster: "a\\" }]);
    expect(contents(table)).toEqual(contents(parsedTable(body, ["__n"])));
    // As a text column, the list is each row's own, and no group's.
    const listed = readTable(body, ["__n"], ["__v"]);
    expect(listed.groups).toEqual([{ cluster: "us-east-1" }, { cluster: 'a"b"' }, { cluster: "a\\" }]);
    expect(Array.from({ length: listed.length }, (_, i) => listed.text(i, 0))).toEqual([
      list,
      undefined,
      undefined,
      undefined,
    ]);
    expect(listed.row(0)).toEqual({ _time: T1, cluster: "us-east-1", __v: list, __n: "2" });
    expect(contents(listed)).toEqual(contents(parsedTable(body, ["__n"], ["__v"])));
  });

  it("keeps a text column's texts per row: rows of one group and time keep their own, plain or escaped", () => {
    const body = [
      `{"_time":"${T1}","method":"GET","__v":"[1,2]","__n":"2"}`,
      `{"_time":"${T1}","method":"GET","__v":"[3]","__n":"1"}`,
      `{"_time":"${T1}","method":"GET","__v":"[\\"4\\"]","__n":"1"}`,
      `{"_time":"${T2}","__v":"","method":"GET","__n":"0"}`,
    ].join("\n");
    const table = readTable(body, ["__n"], ["__v"]);
    expect(table.groups).toEqual([{ method: "GET" }]);
    expect(Array.from({ length: table.length }, (_, i) => [table.groupIndex(i), table.text(i, 0)])).toEqual([
      [0, "[1,2]"],
      [0, "[3]"],
      [0, '["4"]'],
      [0, ""],
    ]);
    expect(contents(table)).toEqual(contents(parsedTable(body, ["__n"], ["__v"])));
  });

  it("keeps group fields apart wherever the results lie among them", () => {
    const body = [`{"a":"1","__v":"5","b":"2","_time":"${T1}"}`, `{"_time":"${T1}","a":"1","b":"2","__v":"6"}`].join(
      "\n",
    );
    const table = readTable(body, ["__v"]);
    expect(table.groups).toEqual([{ a: "1", b: "2" }]);
    expect(contents(table)).toEqual(contents(parsedTable(body, ["__v"])));
  });

  it("reads lines JSON.parse reads otherwise as JSON: repeated, index-like and __proto__ names, numbers, spaces", () => {
    const body = [
      `{"_time":"${T1}","pod":"a","pod":"b","__v":"1"}`,
      `{"_time":"${T1}","pod":"a","1":"x","__v":"1"}`,
      `{"_time":"${T1}","pod":"\\u0061","1":"x","__v":"1"}`,
      `{"_time":"${T1}","__proto__":"x","pod":"a","__v":"1"}`,
      `{"_time":"${T1}","pod":"a","__v":2}`,
      `{ "_time":"${T1}", "pod":"a", "__v":"3" }`,
      `{}`,
      `{"_time":"${T2}","pod":"😀","__v":"1"}`,
    ].join("\n");
    expect(contents(readTable(body, ["__v"]))).toEqual(contents(parsedTable(body, ["__v"])));
  });

  it("refuses a line that is not JSON or not an object, having added the rows before it", () => {
    const table = new StatsTable(["__v"]);
    expect(() => readStatsAnswer(`{"_time":"${T1}","__v":"1"}\n{"_time":"${T1}","__v":"`, table)).toThrow(SyntaxError);
    expect(table.length).toBe(1);
    for (const body of [
      `{"_time":"${T1}","__v":"1"`,
      `{"_time":"${T1}","__v":"1"}}`,
      `{"_time":"${T1}","__v":"1",}`,
      `{"_time":"${T1}","__v":"a\tb"}`,
      `{"_time":"${T1}","__v":"1"}x`,
      `<html>Bad gateway</html>`,
      `{"_time":"${T1}" "__v":"1"}`,
    ]) {
      expect(() => readStatsAnswer(body, new StatsTable(["__v"])), body).toThrow(SyntaxError);
    }
    expect(() => readStatsAnswer(`[1]`, new StatsTable(["__v"]))).toThrow(NotARow);
    expect(() => readStatsAnswer(`"x"`, new StatsTable(["__v"]))).toThrow(NotARow);
    expect(() => readStatsAnswer(`null`, new StatsTable(["__v"]))).toThrow(NotARow);
  });

  it("asks before each row, and adds nothing once asking throws", () => {
    const table = new StatsTable(["__v"]);
    let asked = 0;
    const body = [1, 2, 3].map((v) => `{"_time":"${T1}","__v":"${v}"}`).join("\n");
    expect(() =>
      readStatsAnswer(body, table, () => {
        if (++asked > 2) throw new RangeError("budget");
      }),
    ).toThrow(RangeError);
    expect(table.length).toBe(2);
  });

  it("puts rows without a time apart when asked to (a union's), neither added nor asked for", () => {
    const table = new StatsTable(["__v"]);
    const untimed: VLRow[] = [];
    let asked = 0;
    const body = [
      `{"_time":"${T1}","pod":"a","__v":"1"}`,
      `{"__name":"pod","hits":"3"}`,
      `{"_time":"${T2}","pod":"b","__v":"2"}`,
      `{"__name":"tr\\u00e9","hits":"1"}`,
      `{"__name":"app","hits":"3"}`,
    ].join("\n");
    readStatsAnswer(body, table, () => asked++, untimed);
    expect(Array.from({ length: table.length }, (_, i) => table.row(i))).toEqual([
      { _time: T1, pod: "a", __v: "1" },
      { _time: T2, pod: "b", __v: "2" },
    ]);
    expect(asked).toBe(2);
    expect(untimed).toEqual([
      { __name: "pod", hits: "3" },
      { __name: "tr\u00e9", hits: "1" },
      { __name: "app", hits: "3" },
    ]);
    // Without the list, such a row is a row of time "", as before.
    expect(readTable(`{"__name":"pod","hits":"3"}`, ["__v"]).times).toEqual([""]);
  });

  it("gives the table parsed rows give, whatever the lines hold (property)", () => {
    const text = fc.oneof(
      fc.constantFrom("", "a", "pod-1", "0", "007", "1.5", "-2", "1e3", "NaN", "Infinity", "-0", " 1", "x:y", "a,b"),
      fc.string({ maxLength: 6 }),
      fc.string({ unit: "binary", maxLength: 4 }),
      fc.stringMatching(/^[0-9]{1,18}$/),
    );
    const name = fc.oneof(fc.constantFrom("_time", "pod", "level", "__v", "__n", "0", "12", "__proto__"), text);
    const line = fc.oneof(
      { weight: 6, arbitrary: fc.array(fc.tuple(name, text), { maxLength: 5 }) },
      { weight: 1, arbitrary: fc.array(fc.tuple(name, fc.oneof(text, fc.integer())), { maxLength: 4 }) },
    );
    fc.assert(
      // A spaced line is always parsed: the same groups then come both ways into one table.
      fc.property(fc.array(fc.tuple(line, fc.boolean()), { maxLength: 12 }), (lines) => {
        const body = lines
          .map(
            ([fields, spaced]) =>
              // Written as the origin writes rows (a repeated name kept, as JSON.stringify of an object cannot).
              `{${fields.map(([n, v]) => `${JSON.stringify(n)}:${spaced ? " " : ""}${JSON.stringify(v)}`).join(",")}}`,
          )
          .join("\n");
        const values = ["__v", "__n"];
        expect(contents(readTable(body, values))).toEqual(contents(parsedTable(body, values)));
        // `__v` as a text column, beside one no line holds.
        expect(contents(readTable(body, ["__n"], ["__v", "__t"]))).toEqual(
          contents(parsedTable(body, ["__n"], ["__v", "__t"])),
        );
      }),
      { numRuns: 500, seed: 2634 },
    );
  });

  it("gives the table parsed rows give when lines repeat a few sets of names, as answers do (property)", () => {
    // Names that share prefixes, lengths and orders, so that a line nearly like the last one must not be
    // taken for it.
    const names = fc.constantFrom(
      ["_time", "pod", "__v"],
      ["_time", "pod", "__v", "__n"],
      ["_time", "pods", "__v"],
      ["_time", "po", "__v"],
      ["_time", "pod"],
      ["pod", "_time", "__v"],
      ["_time", "pod", "level", "__v"],
      ["_time", "level", "pod", "__v"],
      ["_time", "bod", "__v"],
      ["_time", "pod", "__n"],
    );
    const text = fc.oneof(
      fc.constantFrom("", "a", "b", "12", "007", "1.5", "-0", "NaN", T1, T2),
      fc.string({ maxLength: 4 }),
    );
    const line = fc.tuple(names, fc.array(text, { minLength: 4, maxLength: 4 }), fc.boolean());
    fc.assert(
      fc.property(fc.array(line, { maxLength: 16 }), (lines) => {
        const body = lines
          .map(
            ([fields, texts, numeric]) =>
              `{${fields.map((n, i) => `${JSON.stringify(n)}:${numeric && n === "__v" ? 5 : JSON.stringify(texts[i])}`).join(",")}}`,
          )
          .join("\n");
        const values = ["__v", "__n"];
        expect(contents(readTable(body, values))).toEqual(contents(parsedTable(body, values)));
        expect(contents(readTable(body, ["__n"], ["__v"]))).toEqual(contents(parsedTable(body, ["__n"], ["__v"])));
      }),
      { numRuns: 1000, seed: 2635 },
    );
  });
});

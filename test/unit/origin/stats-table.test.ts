import { describe, expect, it } from "vitest";
import { StatsTable, eachNdjsonRow, NotARow } from "../../../src/origin/stats-table";
import type { VLRow } from "../../../src/origin/rows";

const T1 = "2026-01-01T00:00:00Z";
const T2 = "2026-01-01T00:01:00Z";

function tableOf(rows: VLRow[], values = ["__v"]): StatsTable {
  const table = new StatsTable(values);
  for (const row of rows) table.add(row);
  return table;
}

describe("StatsTable", () => {
  it("keeps each distinct time and group once, and each row's numbers", () => {
    const table = tableOf([
      { _time: T1, pod: "a", __v: "3" },
      { _time: T1, pod: "b", __v: "1.5" },
      { _time: T2, pod: "a", __v: "7" },
    ]);
    expect(table.length).toBe(3);
    expect(table.times).toEqual([T1, T2]);
    expect(table.groups).toEqual([{ pod: "a" }, { pod: "b" }]);
    expect([0, 1, 2].map((i) => [table.timeIndex(i), table.groupIndex(i), table.value(i, 0)])).toEqual([
      [0, 0, 3],
      [0, 1, 1.5],
      [1, 0, 7],
    ]);
  });

  it("gives back each row as the origin sent it, numbers in their shortest text", () => {
    const rows = [
      { _time: T1, pod: "a", level: "", __c: "2", __bad: "0" },
      { _time: T2, pod: "a", level: "warn", __c: "10", __bad: "1" },
    ];
    const table = tableOf(rows, ["__c", "__bad"]);
    expect([0, 1].map((i) => table.row(i))).toEqual(rows);
  });

  it("reads a result a row lacks as 0", () => {
    const table = tableOf([{ _time: T1, pod: "a" }]);
    expect(table.value(0, 0)).toBe(0);
  });

  it("never takes two groups for one, whatever their texts hold", () => {
    const table = tableOf(
      [
        { _time: T1, a: "x1:b", __v: "1" },
        { _time: T1, a: "x", b: "", __v: "1" },
        { _time: T1, a: "x", __v: "1" },
      ],
      ["__v"],
    );
    expect(table.groups).toHaveLength(3);
  });

  it("grows past its first capacity", () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ _time: i % 2 ? T1 : T2, pod: `p${i % 7}`, __v: String(i) }));
    const table = tableOf(rows);
    expect(table.length).toBe(1000);
    expect(table.groups).toHaveLength(7);
    expect(Array.from({ length: 1000 }, (_, i) => table.row(i))).toEqual(rows);
  });

  it("appends another table's rows, mapping its times and groups onto its own", () => {
    const a = tableOf([{ _time: T1, pod: "a", __v: "1" }]);
    const b = tableOf([
      { _time: T2, pod: "b", __v: "2" },
      { _time: T1, pod: "a", __v: "3" },
    ]);
    a.append(b);
    expect(a.length).toBe(3);
    expect(a.groups).toEqual([{ pod: "a" }, { pod: "b" }]);
    expect([0, 1, 2].map((i) => a.row(i))).toEqual([
      { _time: T1, pod: "a", __v: "1" },
      { _time: T2, pod: "b", __v: "2" },
      { _time: T1, pod: "a", __v: "3" },
    ]);
  });
});

describe("eachNdjsonRow", () => {
  it("visits each line's row, skipping empty lines", () => {
    const rows: VLRow[] = [];
    eachNdjsonRow(`{"a":"1"}\n\n{"a":"2"}\n`, (row) => rows.push(row));
    expect(rows).toEqual([{ a: "1" }, { a: "2" }]);
  });

  it("refuses a line that is not JSON, or not an object", () => {
    expect(() => eachNdjsonRow(`{"a":"1"}\n{"a":`, () => {})).toThrow(SyntaxError);
    expect(() => eachNdjsonRow(`[1]`, () => {})).toThrow(NotARow);
  });
});

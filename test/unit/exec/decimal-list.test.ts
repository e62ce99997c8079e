/**
 * A quantile bucket's value list read without the general parses: every value it reads is the one
 * `Number` reads from the text, and every list it cannot read exactly so is left to the general
 * parse (undefined), never read as something else.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { plainDecimals } from "../../../src/exec/decimal-list";

const read = (list: string, count: number) => {
  const values = plainDecimals(list, count);
  return values && [...values];
};

describe("plainDecimals", () => {
  it("reads a list of plain decimals as Number reads each text", () => {
    expect(read('["21.43","7","-0.5","0","110.35","999999999.999999"]', 6)).toEqual([
      21.43, 7, -0.5, 0, 110.35, 999999999.999999,
    ]);
    expect(read("[]", 0)).toEqual([]);
    expect(Object.is(plainDecimals('["-0"]', 1)![0], -0)).toBe(true);
    expect(read('["0.1","0.2","123456789.123456"]', 3)).toEqual([0.1, 0.2, 123456789.123456]);
  });

  it("reads the list the pushed quantile asks for, its quotes removed, as the quoted one", () => {
    expect(read("[21.43,7,-0.5,0,110.35,999999999.999999]", 6)).toEqual([21.43, 7, -0.5, 0, 110.35, 999999999.999999]);
    expect(read("[1]", 1)).toEqual([1]);
    expect(Object.is(plainDecimals("[-0]", 1)![0], -0)).toBe(true);
  });

  it("leaves every other shape to the general parse", () => {
    for (const list of [
      '["1e3"]',
      '["1."]',
      '[".5"]',
      '["-"]',
      '[" 1"]',
      '["1 "]',
      '["+1"]',
      '["1.2.3"]',
      '["0x10"]',
      "[0x10]",
      '["1234567890123456"]',
      "[1234567890123456]",
      "[1e3]",
      "[1.]",
      '["1]',
      '[1"]',
      '["0.30000000000000004"]',
      '["1\\u0030"]',
      '["1", "2"]',
      "[1, 2]",
      '["1",]',
      '["1"',
      '["1","2',
      '"1"',
      "",
      '["1"]]',
    ]) {
      expect(plainDecimals(list, list.split(",").length), list).toBeUndefined();
    }
  });

  it("leaves a list of another length than the count to the general parse", () => {
    expect(plainDecimals('["1","2"]', 1)).toBeUndefined();
    expect(plainDecimals('["1","2"]', 3)).toBeUndefined();
    expect(plainDecimals("[]", 1)).toBeUndefined();
    expect(plainDecimals('["1"]', 0)).toBeUndefined();
  });

  it("reads what Number reads, for any decimal of at most 15 digits", () => {
    const decimal = fc
      .tuple(
        fc.boolean(),
        fc.stringMatching(/^[0-9]{1,9}$/),
        fc.option(fc.stringMatching(/^[0-9]{1,6}$/), { nil: undefined }),
      )
      .map(([neg, int, frac]) => `${neg ? "-" : ""}${int}${frac === undefined ? "" : `.${frac}`}`);
    fc.assert(
      fc.property(fc.array(decimal, { maxLength: 20 }), (texts) => {
        const values = plainDecimals(JSON.stringify(texts), texts.length);
        expect(values).toBeDefined();
        texts.forEach((text, i) => expect(Object.is(values![i], Number(text)), text).toBe(true));
        const unquoted = plainDecimals(`[${texts.join(",")}]`, texts.length);
        expect(unquoted && [...unquoted]).toEqual([...values!]);
      }),
      { numRuns: 2000, seed: 2604 },
    );
  });
});

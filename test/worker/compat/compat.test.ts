/**
 * The compat suite: every recorded request goes through the Worker (inside workerd) to a real
 * VictoriaLogs loaded with the dataset, and the answer is judged against what real Loki answered.
 */
import { describe, expect, it } from "vitest";
import cases from "../../fixtures/compat/cases.json";
import { type Answer, type CompatCase, judge } from "./judge";
import { EXPECTED_FAILURES } from "./expected-failures";
import { call } from "../support/request";

const goldens = import.meta.glob<Answer>("../../fixtures/compat/golden/*.json", { eager: true, import: "default" });

function goldenFor(id: string): Answer {
  const g = goldens[`../../fixtures/compat/golden/${id}.json`];
  if (!g) throw new Error(`no golden answer for ${id}`);
  return g;
}

async function ask(c: CompatCase): Promise<Answer> {
  const res = await call(c.path, c.params, { headers: c.headers });
  return res.json !== undefined ? { status: res.status, json: res.json } : { status: res.status, text: res.body };
}

const all = cases as unknown as CompatCase[];
const unknown = Object.keys(EXPECTED_FAILURES).filter((id) => !all.some((c) => c.id === id));

describe("compat with real Loki", () => {
  it("lists only cases that exist", () => {
    expect(unknown).toEqual([]);
    console.log(`compat: ${all.length} cases, ${Object.keys(EXPECTED_FAILURES).length} expected to fail`);
  });

  for (const c of all) {
    const expectedToFail = EXPECTED_FAILURES[c.id];
    it(`${c.id}${expectedToFail ? " (expected failure)" : ""}`, async () => {
      const why = judge(c, goldenFor(c.id), await ask(c));
      if (expectedToFail) {
        expect(why, `${c.id} now passes: remove it from EXPECTED_FAILURES`).toBeDefined();
      } else {
        expect(why).toBeUndefined();
      }
    });
  }
});

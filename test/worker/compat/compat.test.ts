/**
 * The compat suite: every recorded request goes through the Worker (inside workerd) to a real
 * VictoriaLogs loaded with the dataset, and the answer is judged against what real Loki answered.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import cases from "../../fixtures/compat/cases.json";
import { type Answer, type CompatCase, judge } from "./judge";
import { EXPECTED_FAILURES } from "./expected-failures";
import { GATEWAY } from "../support/gateway";

const goldens = import.meta.glob<Answer>("../../fixtures/compat/golden/*.json", { eager: true, import: "default" });

function goldenFor(id: string): Answer {
  const g = goldens[`../../fixtures/compat/golden/${id}.json`];
  if (!g) throw new Error(`no golden answer for ${id}`);
  return g;
}

async function ask(c: CompatCase): Promise<Answer> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(c.params)) for (const item of Array.isArray(v) ? v : [v]) qs.append(k, item);
  const res = await (exports as unknown as { default: Fetcher }).default.fetch(
    new Request(`http://loki.test${c.path}?${qs}`, { headers: { ...GATEWAY, ...c.headers } }),
  );
  const text = await res.text();
  try {
    return { status: res.status, json: JSON.parse(text) };
  } catch {
    return { status: res.status, text };
  }
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

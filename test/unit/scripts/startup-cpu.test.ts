/**
 * The startup budget divides the bundle's startup CPU by a reference module's (scripts/lib/startup-cpu.mjs),
 * so the reference must be a valid module that does its work at import, and must never change
 * without the budget being measured again.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { referenceModule } from "../../../scripts/lib/startup-cpu.mjs";

describe("startup reference module", () => {
  it("is the text budgets.json's startup ratio was measured against", () => {
    const digest = createHash("sha256").update(referenceModule()).digest("hex");
    // A change here changes every startup ratio: measure again and set budgets.json's limit with it.
    expect(digest).toBe("a6eeb27d8db02b0f6de3acefeabfce3fe585f64219135981d1f8b590de072b3e");
  });

  it("imports as an ES module that fills its tables and runs its functions at the top level", async () => {
    const url = `data:text/javascript;base64,${Buffer.from(referenceModule()).toString("base64")}`;
    const module = (await import(/* @vite-ignore */ url)) as {
      reference: { results: { id: string; s: number }[]; size: number; patterns: RegExp[] };
      default: { fetch: () => Response };
    };
    expect(module.reference.size).toBe(10_000);
    expect(module.reference.results).toHaveLength(150);
    expect(module.reference.results[1]).toMatchObject({ id: "f10" });
    expect(module.reference.patterns).toHaveLength(200);
    expect(module.reference.patterns[7]?.test("a7bcbd")).toBe(true);
    expect(await module.default.fetch().text()).toBe("reference");
  });
});

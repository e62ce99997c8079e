/** The startup CPU figure of the budgets (scripts/lib/cpu-profile.mjs) counts every sample but the idle ones. */
import { expect, it } from "vitest";
import { startupCpuMs } from "../../../scripts/lib/cpu-profile.mjs";

it("sums the time of non-idle samples, in milliseconds", () => {
  const profile = {
    nodes: [
      { id: 1, callFrame: { functionName: "(root)" } },
      { id: 2, callFrame: { functionName: "(idle)" } },
      { id: 3, callFrame: { functionName: "" } },
      { id: 4, callFrame: { functionName: "(program)" } },
    ],
    samples: [2, 3, 3, 4, 2],
    timeDeltas: [30_000, 1_500, 2_000, 500, 10_000],
  };
  expect(startupCpuMs(profile)).toBe(4);
});

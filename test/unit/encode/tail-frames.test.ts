/** Loki's tail frames, v1 and legacy, including dropped entries. */
import { describe, expect, it } from "vitest";
import { labelsString, tailFrameLegacy, tailFrameV1 } from "../../../src/encode/tail-frames";
import type { LogEntry } from "../../../src/engine/types";

const e = (ts: bigint, line: string): LogEntry => ({
  ts,
  line,
  stream: { job: "x", app: "a" },
  metadata: {},
  parsed: {},
});
const TS = 1_769_925_000_120_000_000n; // 2026-02-01T05:50:00.12Z

describe("tail frames", () => {
  it("v1: streams, then dropped_entries only when some were dropped", () => {
    expect(tailFrameV1({ entries: [e(TS, "l")], dropped: [] }, false)).toBe(
      `{"streams":[{"stream":{"app":"a","job":"x"},"values":[["${TS}","l"]]}]}`,
    );
    expect(
      tailFrameV1({ entries: [e(TS, "l")], dropped: [{ ts: TS + 1n, stream: { job: "x", app: "a" } }] }, false),
    ).toBe(
      `{"streams":[{"stream":{"app":"a","job":"x"},"values":[["${TS}","l"]]}],"dropped_entries":[{"timestamp":"${TS + 1n}","labels":{"app":"a","job":"x"}}]}`,
    );
  });

  it("v1 with categorize-labels: encodingFlags after dropped_entries", () => {
    const frame = tailFrameV1({ entries: [e(TS, "l")], dropped: [{ ts: TS, stream: { app: "a" } }] }, true);
    expect(Object.keys(JSON.parse(frame) as object)).toEqual(["streams", "dropped_entries", "encodingFlags"]);
  });

  it("legacy: labels strings, RFC3339Nano entries, dropped_entries null or Timestamp/Labels", () => {
    expect(tailFrameLegacy({ entries: [e(TS, "l1"), e(TS + 1n, "l2")], dropped: [] })).toBe(
      `{"streams":[{"labels":"{app=\\"a\\", job=\\"x\\"}","entries":[{"ts":"2026-02-01T05:50:00.12Z","line":"l1"},{"ts":"2026-02-01T05:50:00.120000001Z","line":"l2"}]}],"dropped_entries":null}`,
    );
    expect(tailFrameLegacy({ entries: [], dropped: [{ ts: TS - 120_000_000n, stream: { app: "a" } }] })).toBe(
      `{"streams":[],"dropped_entries":[{"Timestamp":"2026-02-01T05:50:00Z","Labels":"{app=\\"a\\"}"}]}`,
    );
  });

  it("legacy label strings sort names and quote values", () => {
    expect(labelsString({ b: 'say "hi"', a: "1" })).toBe('{a="1", b="say \\"hi\\""}');
  });
});

/**
 * The demo-data loader (scripts/lib/datasets.mjs) against a real VictoriaLogs: lines a user pushed
 * into the same origin and time range do not make it warn that the data was loaded twice, while a
 * real second load of the same demo streams still does.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadDemoData } from "../../../scripts/lib/datasets.mjs";
import { pushLokiBatches, startVictoriaLogs } from "../../../scripts/lib/victorialogs.mjs";

const END = Date.UTC(2026, 0, 15, 12);
let dataDir: string;
let vl: Awaited<ReturnType<typeof startVictoriaLogs>>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "loki-vl-demo-data-"));
  vl = await startVictoriaLogs({ dataDir });
}, 90_000);

afterAll(async () => {
  await vl?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** Runs `fn` and returns what it wrote to stderr. */
async function stderrOf(fn: () => Promise<unknown>): Promise<string> {
  let written = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    written += String(chunk);
    return true;
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return written;
}

describe("loadDemoData", () => {
  it("does not call a user's own lines in the demo range a double load", async () => {
    const ns = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
    const own = {
      streams: [
        {
          stream: { app: "my-app" },
          values: Array.from({ length: 50 }, (_, i) => [ns(END - 30 * 60_000 + i * 1000), `my line ${i}`]),
        },
      ],
    };
    await pushLokiBatches(vl.url, [JSON.stringify(own)]);

    let loaded: { entries: number } | undefined;
    const err = await stderrOf(async () => (loaded = await loadDemoData(vl.url, { end: END, hours: 1, seed: 7 })));
    expect(loaded?.entries).toBeGreaterThan(1000);
    expect(err).not.toContain("loaded twice");
  }, 90_000);

  it("still warns when the same demo streams are loaded again over the same range", async () => {
    const err = await stderrOf(() => loadDemoData(vl.url, { end: END, hours: 1, seed: 7 }));
    expect(err).toContain("(data loaded twice?)");
  }, 90_000);
});

// A throwaway VictoriaLogs for test runs (the lead's vitest globalSetup): fresh data dir under the
// OS temp dir, loaded with the chosen dataset, removed again on stop().

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCompatDataset, loadDemoData } from "../../scripts/lib/datasets.mjs";
import { startVictoriaLogs } from "../../scripts/lib/victorialogs.mjs";

/**
 * @param {{ dataset?: "compat" | "demo" | "none", demoEnd?: number, demoSeed?: number }} [options]
 *   demoEnd (ms since the epoch, default now) and demoSeed pin the demo dataset.
 * @returns {Promise<{ url: string, pid: number, loaded?: { entries: number, start: string, end: string }, stop: () => Promise<void> }>}
 */
export async function startTestOrigin({ dataset = "compat", demoEnd, demoSeed } = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), "loki-vl-origin-"));
  /** @type {Awaited<ReturnType<typeof startVictoriaLogs>> | undefined} */
  let vl;
  const stop = async () => {
    await vl?.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    vl = await startVictoriaLogs({ dataDir });
    let loaded;
    if (dataset === "compat") loaded = await loadCompatDataset(vl.url);
    else if (dataset === "demo")
      loaded = await loadDemoData(vl.url, { end: demoEnd ?? Date.now(), seed: demoSeed ?? 7 });
    else if (dataset !== "none") throw new Error(`unknown dataset ${JSON.stringify(dataset)}`);
    return { url: vl.url, pid: vl.pid, loaded, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

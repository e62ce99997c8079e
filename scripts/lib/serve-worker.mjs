// Serves the Worker locally in workerd through Miniflare, configured from wrangler.toml.
//
// Why not `wrangler dev`: wrangler 4.86's dev session attaches a DevTools inspector and forwards
// every Network event of every subrequest (one per response chunk) to its Node process as a new
// HTTP connection. A streaming origin response produces thousands of them; under load that Node
// process runs out of memory and the session dies. Miniflare runs the same bundle in the same
// runtime, with the same bindings, without the inspector.

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

/**
 * Bundles the Worker exactly as `wrangler deploy` would (offline dry run) into `outDir`. The
 * top-level (local) environment is named explicitly (`--env=`): wrangler.toml also defines
 * staging and production, and without a target wrangler warns on every run that none was chosen.
 * @param {string} root
 * @param {string} outDir
 */
export function bundleWorker(root, outDir) {
  const res = spawnSync("npx", ["wrangler", "deploy", "--dry-run", "--outdir", outDir, "--env="], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
  });
  if (res.status !== 0) throw new Error(`bundling the Worker failed (wrangler deploy --dry-run exited ${res.status})`);
  return join(outDir, "index.js");
}

/**
 * @param {{ root: string, port: number, vars?: Record<string, string>, stateDir: string }} o
 * @returns {Promise<{ url: string, dispose(): Promise<void> }>}
 */
export async function serveWorker({ root, port, vars = {}, stateDir }) {
  const scriptPath = bundleWorker(root, join(stateDir, "dist"));
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(root, "wrangler.toml"));
  const mf = new Miniflare({
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    modules: true,
    scriptPath,
    bindings: { ...workerOptions.bindings, ...vars },
    kvNamespaces: Object.keys(workerOptions.kvNamespaces ?? {}),
    durableObjects: workerOptions.durableObjects,
    host: "127.0.0.1",
    port,
    kvPersist: join(stateDir, "kv"),
    durableObjectsPersist: join(stateDir, "do"),
    cachePersist: join(stateDir, "cache"),
  });
  const url = await mf.ready;
  return { url: url.toString().replace(/\/$/, ""), dispose: () => mf.dispose() };
}

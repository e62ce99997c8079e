// Bundles a benchmark's TypeScript entry into one ES module with esbuild (already installed as
// wrangler's own bundler), for Node or for a Worker module alike.

import { build } from "esbuild";

/**
 * @param {string} entry the .ts file
 * @param {string} outfile the .mjs to write
 */
export async function bundleBench(entry, outfile) {
  await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2022",
    outfile,
    logLevel: "warning",
  });
}

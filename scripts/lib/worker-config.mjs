// The Worker's own validation of its variables (src/config.ts), run in Node before a deployment:
// a value the Worker would refuse at its first request (every route answering 500 with the
// configuration error) is refused before anything is uploaded instead. src/config.ts is TypeScript,
// so it is bundled with esbuild in memory first (a few tens of milliseconds).

import { build } from "esbuild";
import { join } from "node:path";

/**
 * A function that answers what the Worker would find wrong with `vars` (its message names the
 * variable, never the value), or undefined when it would accept them.
 * @param {string} root the repository root
 * @returns {Promise<(vars: Record<string, unknown>) => string | undefined>}
 */
export async function loadWorkerConfigCheck(root) {
  const bundle = await build({
    entryPoints: [join(root, "src/config.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    write: false,
    logLevel: "silent",
  });
  const code = bundle.outputFiles[0]?.text ?? "";
  /** @type {{ configProblem: (env: Record<string, unknown>) => Error | undefined }} */
  const config = await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
  return (vars) => config.configProblem({ ...vars })?.message;
}

// `npm run deploy -- --env staging|production [wrangler deploy options]`: deploys one of the
// environments of wrangler.toml, with the variables LOKIVL_VAR_<NAME> of the environment (and of the
// JSON object in LOKIVL_VARS_JSON, which deploy.yml fills from the GitHub variables) passed as
// `--var NAME:value`. It refuses, before wrangler uploads anything, a deployment without --env (the
// local configuration), a variable the Worker does not read or that is a secret, a value the Worker's
// own validation (src/config.ts) refuses, an origin a Worker cannot reach, and the all-zero KV
// placeholder. Rules: scripts/lib/deploy-plan.mjs.

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_readConfig } from "wrangler";
import {
  DeployHelp,
  DeployRefusal,
  deployProblems,
  deployVars,
  parseDeployArgs,
  workerVariables,
  wranglerDeployArgs,
} from "./lib/deploy-plan.mjs";
import { loadWorkerConfigCheck } from "./lib/worker-config.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** @param {string} message */
function refuse(message) {
  process.stderr.write(`[deploy] refused: ${message.replaceAll("\n", "\n[deploy] ")}\n`);
  process.exit(2);
}

try {
  const { env, config, rest } = parseDeployArgs(process.argv.slice(2));
  const known = workerVariables(readFileSync(join(root, "src/config.ts"), "utf8"));
  const overrides = deployVars(process.env, known);
  // wrangler's own reading of the file, environment selected: what `wrangler deploy --env` would upload.
  const wranglerConfig = unstable_readConfig({ config: resolve(root, config ?? "wrangler.toml"), env });
  const vars = { ...wranglerConfig.vars, ...Object.fromEntries(overrides) };
  const workerCheck = await loadWorkerConfigCheck(root);
  const problems = deployProblems({ env, vars, kvNamespaces: wranglerConfig.kv_namespaces, workerCheck });
  if (problems.length > 0) refuse(`wrangler.toml's [env.${env}] cannot be deployed:\n- ${problems.join("\n- ")}`);
  if (overrides.size > 0) process.stdout.write(`[deploy] variables set here: ${[...overrides.keys()].join(", ")}\n`);
  const result = spawnSync("npx", ["wrangler", ...wranglerDeployArgs(env, overrides, rest)], {
    cwd: root,
    stdio: "inherit",
  });
  if (result.error) refuse(`could not run wrangler: ${result.error.message}`);
  process.exit(result.status ?? 1);
} catch (error) {
  if (error instanceof DeployHelp) {
    process.stdout.write(`${error.message}\n`);
    process.exit(0);
  }
  if (error instanceof DeployRefusal) refuse(error.message);
  throw error;
}

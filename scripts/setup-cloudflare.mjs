// `npm run setup:cloudflare`: first-time Cloudflare setup for the deployed environments. For each of
// staging and production it reuses the KV cache namespace if `wrangler kv namespace list` shows one,
// else creates it, and writes its id into wrangler.toml; then it prints the `wrangler secret put`
// commands to run (AUTH_TOKEN for one tenant, or TENANTS with how to make its token digests). Safe to run again. Needs `wrangler login` or CLOUDFLARE_API_TOKEN (and
// CLOUDFLARE_ACCOUNT_ID when the token sees several accounts).

import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ENVIRONMENTS,
  findNamespace,
  KV_BINDING,
  KV_NAMESPACE,
  parseCreatedNamespaceId,
  parseNamespaceList,
  secretCommands,
  setKvNamespaceId,
  tenantsHelp,
} from "./lib/cloudflare-setup.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const configPath = join(root, "wrangler.toml");

/** @param {string[]} args @returns {string} wrangler's stdout; exits on failure with its stderr shown */
function wrangler(args) {
  const result = spawnSync("npx", ["wrangler", ...args], {
    cwd: root,
    encoding: "utf8",
    stdio: ["inherit", "pipe", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  if (result.error || result.status !== 0) {
    process.stderr.write(
      `[setup] wrangler ${args.join(" ")} failed${result.error ? `: ${result.error.message}` : ""}\n`,
    );
    process.exit(result.status || 1);
  }
  return result.stdout;
}

const existing = parseNamespaceList(wrangler(["kv", "namespace", "list"]));
let toml = readFileSync(configPath, "utf8");
for (const env of ENVIRONMENTS) {
  const found = findNamespace(existing, env);
  const id = found
    ? found.id
    : parseCreatedNamespaceId(wrangler(["kv", "namespace", "create", KV_NAMESPACE, "--env", env]));
  process.stdout.write(`[setup] ${env}: KV namespace ${found ? "reused" : "created"}: ${id}\n`);
  toml = setKvNamespaceId(toml, env, KV_BINDING, id);
}
writeFileSync(configPath, toml);
process.stdout.write(`[setup] wrote the KV namespace ids into wrangler.toml: commit it.\n`);
process.stdout.write(
  "[setup] set ORIGIN_URL per environment: in wrangler.toml ([env.staging.vars], [env.production.vars]), or as\n" +
    "[setup] the variable LOKIVL_VAR_ORIGIN_URL of the GitHub environments staging and production (deploy.yml)\n" +
    "[setup] or of the shell running `npm run deploy -- --env <env>`;\n" +
    "[setup] then put the secrets each environment needs (wrangler prompts for the value):\n",
);
for (const line of secretCommands()) process.stdout.write(`  ${line}\n`);
for (const line of tenantsHelp()) process.stdout.write(`[setup] ${line}\n`);

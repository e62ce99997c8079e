// Runs the Worker (Miniflare, see lib/serve-worker.mjs) until SIGINT/SIGTERM.
// Usage: node scripts/serve.mjs --port 3100 --var ORIGIN_URL:http://127.0.0.1:9428 [--var K:V ...]
// The Worker's variables and secrets are also taken from the environment (names below); a --var
// argument wins over the environment. Secrets belong in the environment: arguments show in `ps`.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { workerVariables } from "./lib/deploy-plan.mjs";
import { serveWorker } from "./lib/serve-worker.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Every variable and secret the Worker reads, from the `Env` interface of src/config.ts. */
const { vars: workerVars, secrets: workerSecrets } = workerVariables(readFileSync(join(root, "src/config.ts"), "utf8"));
const WORKER_VARS = [...workerVars, ...workerSecrets];
const args = process.argv.slice(2);
let port = 3100;
/** @type {Record<string, string>} */
const vars = {};
for (const name of WORKER_VARS) {
  const value = process.env[name];
  if (value !== undefined) vars[name] = value;
}
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--port") port = Number(args[++i]);
  else if (args[i] === "--var") {
    const kv = args[++i] ?? "";
    const at = kv.indexOf(":");
    if (at <= 0) throw new Error(`--var expects NAME:value, got ${JSON.stringify(kv)}`);
    vars[kv.slice(0, at)] = kv.slice(at + 1);
  } else throw new Error(`unknown argument ${args[i]}`);
}

const worker = await serveWorker({ root, port, vars, stateDir: join(root, ".wrangler", "serve") });
process.stdout.write(`[serve] Worker on ${worker.url}\n`);
const stop = async () => {
  await worker.dispose().catch(() => {});
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

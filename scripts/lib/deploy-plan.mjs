// The logic of `npm run deploy` (scripts/deploy.mjs), as pure functions so that every refusal is
// unit-tested without a Cloudflare account: which environment is deployed, which variables the
// deployment takes from the environment of the command (LOKIVL_VAR_<NAME>), and why a configuration
// that cannot work (the local top level, a loopback origin, a placeholder KV id) is refused before
// wrangler uploads anything.

/** Environments the project deploys (wrangler.toml [env.*], deploy.yml). */
export const DEPLOY_ENVIRONMENTS = /** @type {const} */ (["staging", "production"]);

/** Prefix of the variables that become `wrangler deploy --var NAME:value`. */
export const VAR_PREFIX = "LOKIVL_VAR_";

/**
 * Name of the variable holding a JSON object of more such variables: deploy.yml passes
 * `${{ toJSON(vars) }}` in it, so every repository or environment variable named LOKIVL_VAR_<NAME>
 * reaches the deployment without the workflow listing them.
 */
export const VARS_JSON = "LOKIVL_VARS_JSON";

/**
 * Secrets the Worker reads. A `--var` is plain text: wrangler prints it, the dashboard shows it, and
 * CI logs keep it, so these go through `wrangler secret put` only. src/config.ts marks the same
 * names "Secret:"; the list is kept here as well so that a parsing slip cannot let one through.
 */
export const SECRET_NAMES = /** @type {const} */ ([
  "ORIGIN_AUTH_HEADER",
  "AUTH_TOKEN",
  "TENANTS",
  "ADMIN_TOKEN",
  "TELEMETRY_KEY",
]);

/** A refusal: the deployment does not start, and the message says what to do instead. */
export class DeployRefusal extends Error {}

/** `--help`: the usage is printed and nothing is deployed. */
export class DeployHelp extends Error {}

const USAGE =
  "usage: npm run deploy -- --env staging|production [wrangler deploy options]\n" +
  "  The top level of wrangler.toml is the local configuration (origin 127.0.0.1, no real KV namespace):\n" +
  "  it is never deployed. Variables come from wrangler.toml's [env.<name>.vars] and from\n" +
  `  ${VAR_PREFIX}<NAME>=value in the environment (README "Deploying").`;

/**
 * The environment to deploy and the rest of the arguments, passed on to wrangler unchanged.
 * @param {readonly string[]} argv
 * @returns {{ env: string, config: string | undefined, rest: string[] }}
 */
export function parseDeployArgs(argv) {
  /** @type {string | undefined} */
  let env;
  /** @type {string | undefined} */
  let config;
  /** @type {string[]} */
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = /** @type {string} */ (argv[i]);
    const m = /^(--env|-e|--config|-c)(?:=(.*))?$/.exec(arg);
    if (!m) {
      if (arg === "--help" || arg === "-h") throw new DeployHelp(USAGE);
      rest.push(arg);
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new DeployRefusal(`${m[1]} needs a value\n${USAGE}`);
    if (m[1] === "--env" || m[1] === "-e") env = value;
    else {
      config = value;
      rest.push("--config", value);
    }
  }
  if (env === undefined || env === "") {
    throw new DeployRefusal(`refusing to deploy without --env: that would deploy the local configuration\n${USAGE}`);
  }
  if (!(/** @type {readonly string[]} */ (DEPLOY_ENVIRONMENTS).includes(env))) {
    throw new DeployRefusal(`unknown environment "${env}": deploy to ${DEPLOY_ENVIRONMENTS.join(" or ")}\n${USAGE}`);
  }
  return { env, config, rest };
}

/**
 * The variables a Worker reads and which of them are secrets, from the `Env` interface of
 * src/config.ts (its string members; a doc comment starting "Secret:" marks a secret), so a new
 * variable is deployable as soon as the Worker reads it.
 * @param {string} configSource the text of src/config.ts
 * @returns {{ vars: Set<string>, secrets: Set<string> }}
 */
export function workerVariables(configSource) {
  const body = /export interface Env \{([\s\S]*?)\n\}/.exec(configSource)?.[1];
  if (body === undefined) throw new Error("src/config.ts has no `export interface Env { ... }`");
  const vars = new Set();
  const secrets = new Set(SECRET_NAMES);
  // The doc comment right above a member, one line or several.
  let comment = "";
  let open = false;
  for (const line of body.split("\n")) {
    const member = /^\s*([A-Z][A-Z0-9_]*)\?:\s*string;/.exec(line);
    if (member) {
      const name = /** @type {string} */ (member[1]);
      (/^\s*\/\*\*[\s*]*Secret:/.test(comment) ? secrets : vars).add(name);
    }
    if (/^\s*\/\*\*/.test(line)) comment = line;
    else if (open) comment += `\n${line}`;
    else comment = "";
    open = comment !== "" && !line.includes("*/");
  }
  for (const name of secrets) vars.delete(name);
  return { vars, secrets };
}

/**
 * The `--var` pairs of a deployment: every LOKIVL_VAR_<NAME> of the process environment and of the
 * JSON object in LOKIVL_VARS_JSON (the process environment wins). Refused: a name the Worker does
 * not read (a typo would otherwise deploy silently without it), a secret, an empty value.
 * @param {Record<string, string | undefined>} environment
 * @param {{ vars: Set<string>, secrets: Set<string> }} known
 * @returns {Map<string, string>}
 */
export function deployVars(environment, known) {
  /** @type {Record<string, unknown>} */
  let fromJson = {};
  const json = environment[VARS_JSON];
  if (json !== undefined && json.trim() !== "") {
    try {
      fromJson = JSON.parse(json);
    } catch {
      throw new DeployRefusal(`${VARS_JSON} is not valid JSON`);
    }
    if (typeof fromJson !== "object" || fromJson === null || Array.isArray(fromJson)) {
      throw new DeployRefusal(`${VARS_JSON} must be a JSON object`);
    }
  }
  /** @type {Map<string, string>} */
  const out = new Map();
  const problems = [];
  for (const [key, value] of [...Object.entries(fromJson), ...Object.entries(environment)]) {
    if (!key.startsWith(VAR_PREFIX)) continue;
    const name = key.slice(VAR_PREFIX.length);
    if (known.secrets.has(name)) {
      problems.push(`${key}: ${name} is a secret: put it with \`npx wrangler secret put ${name} --env <env>\``);
    } else if (!known.vars.has(name)) {
      problems.push(`${key}: the Worker reads no variable ${name} (see README "Configuration")`);
    } else if (typeof value !== "string" || value.trim() === "") {
      problems.push(`${key} is empty: unset it to keep wrangler.toml's value`);
    } else out.set(name, value);
  }
  if (problems.length > 0) throw new DeployRefusal(problems.join("\n"));
  return out;
}

/** Hostnames reserved for examples and documentation (RFC 2606, RFC 6761): a placeholder, never an origin. */
const PLACEHOLDER_HOST = /(^|\.)(example\.(com|net|org)|example|test|invalid)$/;

/**
 * Why a Worker cannot reach `hostname`, or undefined: Workers reach public addresses only, so a
 * loopback, private, link-local or local-only name is a configuration meant for `npm start`.
 * @param {string} hostname as URL.hostname gives it (IPv6 in brackets)
 * @returns {string | undefined}
 */
export function unreachableHost(hostname) {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return "a loopback name";
  if (/(^|\.)(local|internal|lan|home\.arpa)$/.test(host)) return "a name that only resolves on a local network";
  if (PLACEHOLDER_HOST.test(host)) return "a placeholder from the documentation";
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    if (a === 127) return "a loopback address";
    if (a === 0) return "an unspecified address";
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "a private address";
    if (a === 100 && b >= 64 && b <= 127) return "a carrier-grade NAT address";
    if (a === 169 && b === 254) return "a link-local address";
    return undefined;
  }
  if (host.startsWith("[")) {
    const v6 = host.slice(1, -1);
    if (v6 === "::1") return "a loopback address";
    if (v6 === "::") return "an unspecified address";
    if (/^f[cd][0-9a-f]{0,2}:/.test(v6)) return "a private address";
    if (/^fe[89ab][0-9a-f]?:/.test(v6)) return "a link-local address";
    // An IPv4-mapped address: the WHATWG URL parser writes it in hex (::ffff:7f00:1 for 127.0.0.1).
    const mapped = /^::ffff:(?:([0-9a-f]{1,4}):([0-9a-f]{1,4})|(\d+\.\d+\.\d+\.\d+))$/.exec(v6);
    if (mapped?.[3]) return unreachableHost(mapped[3]);
    if (mapped) {
      const [hi, lo] = [Number.parseInt(mapped[1] ?? "", 16), Number.parseInt(mapped[2] ?? "", 16)];
      return unreachableHost(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
    }
  }
  return undefined;
}

/**
 * What is wrong with the configuration `env` would deploy, after the `--var` overrides; empty when
 * it can be deployed.
 * `workerCheck`, when given, is the Worker's own validation (scripts/lib/worker-config.mjs).
 * @param {{
 *   env: string,
 *   vars: Record<string, unknown>,
 *   kvNamespaces: { binding: string, id?: string }[],
 *   workerCheck?: (vars: Record<string, unknown>) => string | undefined,
 * }} target
 * @returns {string[]}
 */
export function deployProblems({ env, vars, kvNamespaces, workerCheck }) {
  const problems = [];
  const refused = workerCheck?.(vars);
  if (refused !== undefined) {
    problems.push(
      `the Worker would refuse these variables and answer every route with "configuration error: ${refused}": fix it in [env.${env}.vars] or its ${VAR_PREFIX}<NAME>`,
    );
  }
  const origin = vars.ORIGIN_URL;
  const setOrigin = `set ORIGIN_URL in [env.${env}.vars] of wrangler.toml, or ${VAR_PREFIX}ORIGIN_URL (a GitHub variable of the "${env}" environment for deploy.yml)`;
  if (typeof origin !== "string" || origin.trim() === "") {
    problems.push(`ORIGIN_URL is not set: ${setOrigin}`);
  } else {
    /** @type {URL | undefined} */
    let url;
    try {
      url = new URL(origin);
    } catch {
      problems.push(`ORIGIN_URL is not a URL: ${setOrigin}`);
    }
    if (url && url.protocol !== "https:" && url.protocol !== "http:") {
      problems.push(`ORIGIN_URL must be an https:// URL: ${setOrigin}`);
    } else if (url) {
      // Vars are plain text in wrangler's output, the dashboard and CI logs; the value is not repeated here.
      if (url.username !== "" || url.password !== "") {
        problems.push(
          "ORIGIN_URL holds credentials, which a variable would show in plain text: put the Authorization " +
            `value in the ORIGIN_AUTH_HEADER secret (npx wrangler secret put ORIGIN_AUTH_HEADER --env ${env})`,
        );
      }
      const why = unreachableHost(url.hostname);
      if (why) problems.push(`ORIGIN_URL's host ${url.hostname} is ${why}, which a Worker cannot reach: ${setOrigin}`);
    }
  }
  const cache = kvNamespaces.find((ns) => ns.binding === "CACHE_KV");
  if (!cache?.id || /^0+$/.test(cache.id)) {
    problems.push(
      `the CACHE_KV namespace of [env.${env}] is ${cache?.id ? "the all-zero placeholder" : "missing"}: run \`npm run setup:cloudflare\` (it creates the namespaces and writes their ids into wrangler.toml) and commit wrangler.toml`,
    );
  }
  return problems;
}

/**
 * The `wrangler deploy` arguments: the environment, one `--var NAME:value` per override (wrangler
 * splits at the first ':', so a URL value stays whole), then the caller's own options.
 * @param {string} env
 * @param {Map<string, string>} vars
 * @param {string[]} rest
 */
export function wranglerDeployArgs(env, vars, rest) {
  return ["deploy", "--env", env, ...[...vars].flatMap(([name, value]) => ["--var", `${name}:${value}`]), ...rest];
}

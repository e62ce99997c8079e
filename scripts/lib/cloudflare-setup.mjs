// The logic of `npm run setup:cloudflare`, as pure functions over wrangler's output and the text of
// wrangler.toml, so that it is tested without a Cloudflare account. scripts/setup-cloudflare.mjs runs
// wrangler and wires these together.

/** Environments the project deploys (wrangler.toml [env.*], deploy.yml). */
export const ENVIRONMENTS = /** @type {const} */ (["staging", "production"]);

/** Binding name of the cache namespace (src/config.ts reads env.CACHE_KV). */
export const KV_BINDING = "CACHE_KV";

/** Namespace name passed to `wrangler kv namespace create`. */
export const KV_NAMESPACE = "loki-vl-worker-cache";

/**
 * Secrets an environment may need (README "Configuration"). AUTH_TOKEN and TENANTS exclude each
 * other (src/auth/policy.ts): one token for the one tenant TENANT, or one credential per tenant.
 */
export const SECRETS = /** @type {const} */ ([
  { name: "ORIGIN_AUTH_HEADER", meaning: "Authorization header sent to VictoriaLogs, if it needs one" },
  {
    name: "AUTH_TOKEN",
    meaning: "either: one token for the one tenant TENANT (Bearer, or Basic-auth password with any user)",
  },
  {
    name: "TENANTS",
    meaning: "or: one credential per tenant, each reading only its own (JSON below)",
  },
]);

/**
 * A TENANTS value with one tenant, for the user to fill in: Grafana then sends Basic auth with user
 * NAME and the token as password (or `Bearer <token>`), and reads tenant AccountID:ProjectID only.
 */
export const TENANTS_EXAMPLE =
  '{"grafana": {"tenant": "0:0", "token_sha256": ["<sha256 of the token, 64 hex digits>"]}}';

/** How to make a token and the digest TENANTS stores (the token itself is never stored). */
export function tenantsHelp() {
  return [
    "TENANTS stores SHA-256 digests of the tokens, never the tokens; make a token and its digest with:",
    '  TOKEN=$(openssl rand -hex 32); echo "token: $TOKEN"; printf %s "$TOKEN" | sha256sum',
    `and put, for each tenant (several digests per tenant while a token is rotated): ${TENANTS_EXAMPLE}`,
  ];
}

/**
 * Title wrangler gives the namespace it creates: `wrangler kv namespace create NAME --env ENV`
 * prefixes the environment ("ENV-NAME"), which is also how a later run finds it in the list.
 * @param {string} env
 */
export function namespaceTitle(env) {
  return `${env}-${KV_NAMESPACE}`;
}

/**
 * Parses `wrangler kv namespace list`: a JSON array of `{ id, title, supports_url_encoding }`,
 * possibly after warnings wrangler prints first.
 * @param {string} stdout
 * @returns {{ id: string, title: string }[]}
 */
export function parseNamespaceList(stdout) {
  // The array starts on a line of its own ("[" or "[]"); a warning line such as "[WARNING] ..." does not.
  const start = stdout.search(/^\s*\[\s*($|\])/m);
  const end = stdout.lastIndexOf("]");
  if (start < 0 || end < start) throw new Error("wrangler kv namespace list printed no JSON array");
  const parsed = JSON.parse(stdout.slice(start, end + 1));
  if (!Array.isArray(parsed)) throw new Error("wrangler kv namespace list did not print an array");
  return parsed
    .filter((n) => n && typeof n.id === "string" && typeof n.title === "string")
    .map((n) => ({ id: n.id, title: n.title }));
}

/**
 * The id of the namespace `wrangler kv namespace create` reports, from the configuration snippet it
 * prints: TOML (`id = "…"`) for a wrangler.toml project, JSON (`"id": "…"`) for a wrangler.json one.
 * @param {string} stdout
 */
export function parseCreatedNamespaceId(stdout) {
  const m = /(?:^|\s)"?id"?\s*[=:]\s*"([0-9a-f]{32})"/m.exec(stdout);
  if (!m?.[1]) throw new Error("wrangler kv namespace create printed no namespace id");
  return m[1];
}

/**
 * Rewrites the id of the `binding` KV namespace in `[[env.<env>.kv_namespaces]]` of wrangler.toml,
 * touching nothing else (comments and layout stay as they are).
 * @param {string} toml
 * @param {string} env
 * @param {string} binding
 * @param {string} id
 */
export function setKvNamespaceId(toml, env, binding, id) {
  if (!/^[0-9a-f]{32}$/.test(id)) throw new Error(`not a KV namespace id: ${id}`);
  const lines = toml.split("\n");
  const header = `[[env.${env}.kv_namespaces]]`;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== header) continue;
    // The table runs until the next header line.
    let end = i + 1;
    while (end < lines.length && !/^\s*\[/.test(lines[end] ?? "")) end++;
    const table = lines.slice(i + 1, end);
    if (!table.some((l) => new RegExp(`^\\s*binding\\s*=\\s*"${binding}"`).test(l))) continue;
    const idLine = table.findIndex((l) => /^\s*id\s*=/.test(l));
    if (idLine < 0) throw new Error(`${header} for ${binding} has no id line`);
    lines[i + 1 + idLine] = `id = "${id}"`;
    return lines.join("\n");
  }
  throw new Error(`wrangler.toml has no ${header} with binding "${binding}"`);
}

/**
 * The namespace to use for `env`: an existing one with the expected title, else undefined
 * (then it must be created).
 * @param {{ id: string, title: string }[]} namespaces
 * @param {string} env
 */
export function findNamespace(namespaces, env) {
  return namespaces.find((n) => n.title === namespaceTitle(env));
}

/** The commands that put each environment's secrets, for the user to run (values never pass through here). */
export function secretCommands() {
  return ENVIRONMENTS.flatMap((env) =>
    SECRETS.map((s) => `npx wrangler secret put ${s.name} --env ${env}    # ${s.meaning}`),
  );
}

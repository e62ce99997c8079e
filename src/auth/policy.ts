/**
 * Who may read which tenant: parses the tenancy variables (TENANCY, TENANT, TENANT_MAP, AUTH_TOKEN,
 * TENANTS) into one policy. The policy is decided here once, so the request path only applies it.
 *
 * Modes, strictest first:
 * - "credentials" (TENANTS set): every request presents a credential, and the credential names its
 *   tenant; X-Scope-OrgID may only repeat that tenant.
 * - "single" (the default): one tenant (TENANT, 0:0 unless set) is served, to holders of AUTH_TOKEN
 *   when it is set, else to anyone; X-Scope-OrgID may only name that tenant.
 * - "header" (TENANCY=header): X-Scope-OrgID picks the tenant. Only for a Worker behind a gateway
 *   that authenticates callers and sets the header itself; TENANT_MAP then restricts the choice.
 */
import { ConfigError } from "../core/config-error";
import type { Tenant } from "../core/tenant";

/** A tenant name (Basic-auth user) and the SHA-256 digests of the tokens that unlock it. */
export interface TenantCredential {
  name: string;
  tenant: Tenant;
  /** Several digests so a token can be rotated: add the new one, move clients, drop the old one. */
  tokenDigests: Uint8Array[];
  /**
   * Further tenant names (as X-Scope-OrgID spells them) this credential may read, alone or in a
   * multi-tenant query (`X-Scope-OrgID: a|b`): the entry's optional `tenants` list.
   */
  alsoReads: string[];
}

export type TenancyPolicy =
  | { mode: "credentials"; tenants: TenantCredential[]; tenantMap: TenantMap }
  | { mode: "single"; tenant: Tenant; token?: string; tenantMap: TenantMap }
  | { mode: "header"; tenantMap: TenantMap };

/** X-Scope-OrgID names → tenants; when non-empty it is also the list of tenants that may be named. */
export type TenantMap = Map<string, Tenant>;

export interface TenancyVars {
  TENANCY?: string;
  TENANT?: string;
  TENANT_MAP?: string;
  AUTH_TOKEN?: string;
  TENANTS?: string;
}

const TENANT_ID = /^(\d{1,10})(?::(\d{1,10}))?$/;
const UINT32_MAX = 0xffffffff;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** "AccountID" or "AccountID:ProjectID", each a uint32; undefined for anything else. */
export function parseTenantId(text: string): Tenant | undefined {
  const m = TENANT_ID.exec(text);
  if (!m) return undefined;
  const accountId = Number(m[1]);
  const projectId = Number(m[2] ?? "0");
  if (accountId > UINT32_MAX || projectId > UINT32_MAX) return undefined;
  return { accountId, projectId };
}

export function sameTenant(a: Tenant, b: Tenant): boolean {
  return a.accountId === b.accountId && a.projectId === b.projectId;
}

export function readTenancyPolicy(vars: TenancyVars): TenancyPolicy {
  const tenancy = (vars.TENANCY ?? "single").trim().toLowerCase();
  if (tenancy !== "single" && tenancy !== "header") {
    throw new ConfigError('TENANCY must be "single" or "header"');
  }
  const tenantMap = parseTenantMap(vars.TENANT_MAP);
  const token = secretVar("AUTH_TOKEN", vars.AUTH_TOKEN);
  const tenantsText = secretVar("TENANTS", vars.TENANTS);
  const tenants = tenantsText === undefined ? undefined : parseTenants(tenantsText);
  if (tenancy === "header" && (token || tenants)) {
    // The header cannot both choose the tenant and be bound by a credential: refuse the mix.
    throw new ConfigError("TENANCY=header trusts X-Scope-OrgID and cannot be combined with AUTH_TOKEN or TENANTS");
  }
  if (tenants && token) throw new ConfigError("set AUTH_TOKEN or TENANTS, not both");
  if (tenants) return { mode: "credentials", tenants, tenantMap };
  if (tenancy === "header") return { mode: "header", tenantMap };
  const tenant = vars.TENANT === undefined ? { accountId: 0, projectId: 0 } : parseTenantId(vars.TENANT.trim());
  if (!tenant) throw new ConfigError('TENANT must be "AccountID" or "AccountID:ProjectID"');
  return { mode: "single", tenant, token, tenantMap };
}

/**
 * A secret variable's value, undefined only when the variable is absent. A secret that is set but
 * blank (an empty `wrangler secret put`, a stray newline) is a mistake, and reading it as "no
 * credential required" would open the deployment to everyone: it is refused instead.
 */
export function secretVar(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "") throw new ConfigError(`${name} is set but empty`);
  return value;
}

function parseJsonObject(name: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message quotes the text; a secret's text must not reach a response or a log.
    throw new ConfigError(`${name} is not valid JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(`${name} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

function parseTenantMap(text: string | undefined): TenantMap {
  const map: TenantMap = new Map();
  if (text === undefined) return map;
  // A map that is set restricts header mode to the tenants it lists; an empty one would restrict
  // nothing, so it is refused rather than read as "any tenant".
  if (text.trim() === "") throw new ConfigError("TENANT_MAP is set but empty");
  for (const [i, [name, value]] of Object.entries(parseJsonObject("TENANT_MAP", text)).entries()) {
    const tenant = typeof value === "string" ? parseTenantId(value) : undefined;
    // Which entry, by position: configuration errors never quote the configured text.
    if (!tenant) throw new ConfigError(`TENANT_MAP: entry ${i + 1} must map to "AccountID:ProjectID"`);
    map.set(name, tenant);
  }
  if (map.size === 0) throw new ConfigError("TENANT_MAP lists no tenant");
  return map;
}

function parseTenants(text: string): TenantCredential[] {
  const tenants: TenantCredential[] = [];
  /** Token digest → the position of the entry it opens. */
  const owners = new Map<string, number>();
  let position = 0;
  for (const [name, entry] of Object.entries(parseJsonObject("TENANTS", text))) {
    // Entries are named by position: TENANTS is a secret, names included, and /ready tells anyone
    // who asks what is wrong with the configuration.
    const where = `TENANTS entry ${++position}`;
    // The name is the Basic-auth user, which cannot hold ':'; '|' would read as a multi-tenant id.
    if (name === "" || /[:|\s]/.test(name)) {
      throw new ConfigError(`${where}: the tenant name must be non-empty, without ':', '|' or spaces`);
    }
    if (typeof entry !== "object" || entry === null) throw new ConfigError(`${where} must be an object`);
    const {
      tenant: id,
      token_sha256: hashes,
      tenants: others,
    } = entry as { tenant?: unknown; token_sha256?: unknown; tenants?: unknown };
    const tenant = typeof id === "string" ? parseTenantId(id) : undefined;
    if (!tenant) throw new ConfigError(`${where}: tenant must be "AccountID:ProjectID"`);
    const list = typeof hashes === "string" ? [hashes] : hashes;
    if (!Array.isArray(list) || list.length === 0) {
      throw new ConfigError(`${where}: token_sha256 must list at least one SHA-256 hex digest`);
    }
    const tokenDigests = list.map((hash) => {
      const hex = typeof hash === "string" ? hash.toLowerCase() : "";
      if (!SHA256_HEX.test(hex))
        throw new ConfigError(`${where}: token_sha256 holds a value that is not 64 hex digits`);
      // A token that opened two tenants would make a Bearer token ambiguous.
      const owner = owners.get(hex);
      if (owner !== undefined && owner !== position) {
        throw new ConfigError(`TENANTS entries ${owner} and ${position} share a token`);
      }
      owners.set(hex, position);
      return hexBytes(hex);
    });
    tenants.push({ name, tenant, tokenDigests, alsoReads: alsoReadsOf(where, others) });
  }
  if (tenants.length === 0) throw new ConfigError("TENANTS lists no tenant");
  return tenants;
}

/** An entry's optional `tenants`: names without '|' (each is one tenant of a multi-tenant id). */
function alsoReadsOf(where: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((n) => typeof n === "string" && n !== "" && !/[|\s]/.test(n))) {
    throw new ConfigError(`${where}: tenants must list tenant names, each non-empty, without '|' or spaces`);
  }
  return value as string[];
}

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

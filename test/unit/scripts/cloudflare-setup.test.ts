/**
 * The first-time Cloudflare setup (scripts/setup-cloudflare.mjs) on the output shapes wrangler 4.86
 * prints, and on the project's real wrangler.toml: found namespaces are reused, created ones parsed,
 * and exactly the environment's KV id line rewritten.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  ENVIRONMENTS,
  findNamespace,
  namespaceTitle,
  parseCreatedNamespaceId,
  parseNamespaceList,
  secretCommands,
  setKvNamespaceId,
  TENANTS_EXAMPLE,
  tenantsHelp,
} from "../../../scripts/lib/cloudflare-setup.mjs";
import { readTenancyPolicy } from "../../../src/auth/policy";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const wranglerToml = readFileSync(join(root, "wrangler.toml"), "utf8");

// `wrangler kv namespace create loki-vl-worker-cache --env staging` in a wrangler.toml project.
const createdToml = `
 ⛅️ wrangler 4.86.0
───────────────────
Resource location: remote
🌀 Creating namespace with title "staging-loki-vl-worker-cache"
✨ Success!
To access your new KV Namespace in your Worker, add the following snippet to your configuration file in the "staging" environment:
[[kv_namespaces]]
binding = "loki_vl_worker_cache"
id = "0f2ac74b498b48028cb68387c421e279"
`;
// The same in a wrangler.json project.
const createdJson = `🌀 Creating namespace with title "production-loki-vl-worker-cache"
✨ Success!
To access your new KV Namespace in your Worker, add the following snippet to your configuration file in the "production" environment:
{
  "kv_namespaces": [
    {
      "binding": "loki_vl_worker_cache",
      "id": "e29b263ab50e42ce9b637fa8370175e8"
    }
  ]
}`;
// `wrangler kv namespace list`.
const list = `[
  {
    "id": "06779da6940b431db6e566b4846d64db",
    "title": "production-loki-vl-worker-cache",
    "supports_url_encoding": true
  },
  {
    "id": "0f2ac74b498b48028cb68387c421e279",
    "title": "other-worker-cache",
    "supports_url_encoding": true
  }
]`;

/** The CACHE_KV id in [[env.<env>.kv_namespaces]], read independently of the code under test. */
function tomlKvId(toml: string, env: string): string | undefined {
  const block = toml.split(`[[env.${env}.kv_namespaces]]`)[1]?.split(/\n\s*\[/)[0] ?? "";
  return /binding = "CACHE_KV"\nid = "([0-9a-f]+)"/.exec(block.trim())?.[1];
}

describe("wrangler output parsing", () => {
  it("names a namespace the way wrangler titles it with --env", () => {
    expect(namespaceTitle("staging")).toBe("staging-loki-vl-worker-cache");
  });
  it("reads the id of a created namespace from a TOML or a JSON snippet", () => {
    expect(parseCreatedNamespaceId(createdToml)).toBe("0f2ac74b498b48028cb68387c421e279");
    expect(parseCreatedNamespaceId(createdJson)).toBe("e29b263ab50e42ce9b637fa8370175e8");
  });
  it("refuses output with no id", () => {
    expect(() => parseCreatedNamespaceId("✘ [ERROR] A request to the Cloudflare API failed.")).toThrow(
      /no namespace id/,
    );
  });
  it("lists namespaces, even after a warning line", () => {
    expect(parseNamespaceList(`▲ [WARNING] something\n${list}`)).toEqual([
      { id: "06779da6940b431db6e566b4846d64db", title: "production-loki-vl-worker-cache" },
      { id: "0f2ac74b498b48028cb68387c421e279", title: "other-worker-cache" },
    ]);
    expect(() => parseNamespaceList("not logged in")).toThrow(/no JSON array/);
  });
  it("reuses only a namespace titled for the environment", () => {
    const namespaces = parseNamespaceList(list);
    expect(findNamespace(namespaces, "production")?.id).toBe("06779da6940b431db6e566b4846d64db");
    expect(findNamespace(namespaces, "staging")).toBeUndefined();
  });
});

describe("wrangler.toml rewriting", () => {
  it("the project's wrangler.toml has a CACHE_KV namespace in each deployed environment", () => {
    for (const env of ENVIRONMENTS) expect(tomlKvId(wranglerToml, env), env).toMatch(/^[0-9a-f]{32}$/);
  });
  it("writes an environment's id and leaves everything else byte for byte", () => {
    const id = "06779da6940b431db6e566b4846d64db";
    const out = setKvNamespaceId(wranglerToml, "production", "CACHE_KV", id);
    expect(tomlKvId(out, "production")).toBe(id);
    expect(tomlKvId(out, "staging")).toBe(tomlKvId(wranglerToml, "staging"));
    const changed = out.split("\n").filter((line, i) => line !== wranglerToml.split("\n")[i]);
    expect(changed).toEqual([`id = "${id}"`]);
  });
  it("is idempotent", () => {
    const id = "0f2ac74b498b48028cb68387c421e279";
    const once = setKvNamespaceId(wranglerToml, "staging", "CACHE_KV", id);
    expect(setKvNamespaceId(once, "staging", "CACHE_KV", id)).toBe(once);
  });
  it("refuses a missing environment or a malformed id", () => {
    expect(() => setKvNamespaceId(wranglerToml, "qa", "CACHE_KV", "0f2ac74b498b48028cb68387c421e279")).toThrow(
      /no \[\[env\.qa\.kv_namespaces\]\]/,
    );
    expect(() => setKvNamespaceId(wranglerToml, "staging", "CACHE_KV", "abc")).toThrow(/not a KV namespace id/);
  });
});

it("prints a secret put command per secret and environment, with no value in it", () => {
  expect(secretCommands()).toEqual([
    expect.stringMatching(/^npx wrangler secret put ORIGIN_AUTH_HEADER --env staging\s/),
    expect.stringMatching(
      /^npx wrangler secret put AUTH_TOKEN --env staging\s+# either: one token for the one tenant TENANT/,
    ),
    expect.stringMatching(/^npx wrangler secret put TENANTS --env staging\s+# or: one credential per tenant/),
    expect.stringMatching(/^npx wrangler secret put ORIGIN_AUTH_HEADER --env production\s/),
    expect.stringMatching(/^npx wrangler secret put AUTH_TOKEN --env production\s/),
    expect.stringMatching(/^npx wrangler secret put TENANTS --env production\s/),
  ]);
});

describe("the TENANTS help", () => {
  const help = tenantsHelp().join("\n");
  it("prints a command that makes a token and its SHA-256 digest", () => {
    expect(help).toContain("TOKEN=$(openssl rand -hex 32)");
    expect(help).toContain('printf %s "$TOKEN" | sha256sum');
  });
  it("prints a TENANTS example the Worker accepts once its digest is filled in", () => {
    expect(help).toContain(TENANTS_EXAMPLE);
    const token = "0123456789abcdef".repeat(4);
    const digest = createHash("sha256").update(token).digest("hex");
    const filled = TENANTS_EXAMPLE.replace(/<sha256 of the token[^>]*>/, digest);
    const policy = readTenancyPolicy({ TENANTS: filled });
    expect(policy.mode).toBe("credentials");
    if (policy.mode !== "credentials") return;
    expect(policy.tenants.map((t) => [t.name, t.tenant, Buffer.from(t.tokenDigests[0]!).toString("hex")])).toEqual([
      ["grafana", { accountId: 0, projectId: 0 }, digest],
    ]);
    // The placeholder itself is refused, so an unedited paste cannot deploy an open Worker.
    expect(() => readTenancyPolicy({ TENANTS: TENANTS_EXAMPLE })).toThrow(/not 64 hex digits/);
  });
});

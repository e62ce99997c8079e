/**
 * `npm run deploy` (scripts/deploy.mjs): which environment it deploys, which variables it takes from
 * LOKIVL_VAR_<NAME>, and the configurations it refuses before wrangler uploads anything, on the
 * project's real wrangler.toml read by wrangler itself and on src/config.ts's real variable list.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_readConfig } from "wrangler";
import { describe, expect, it } from "vitest";
import {
  DeployHelp,
  DeployRefusal,
  deployProblems,
  deployVars,
  parseDeployArgs,
  unreachableHost,
  workerVariables,
  wranglerDeployArgs,
} from "../../../scripts/lib/deploy-plan.mjs";
import { loadWorkerConfigCheck } from "../../../scripts/lib/worker-config.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const known = workerVariables(readFileSync(join(root, "src/config.ts"), "utf8"));
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};
const KV_ID = "0f2ac74b498b48028cb68387c421e279";

describe("parseDeployArgs", () => {
  it("takes the environment in either form and passes every other option on", () => {
    expect(parseDeployArgs(["--env", "staging"])).toEqual({ env: "staging", config: undefined, rest: [] });
    expect(parseDeployArgs(["--env=production", "--dry-run", "--outdir", "/tmp/x"])).toEqual({
      env: "production",
      config: undefined,
      rest: ["--dry-run", "--outdir", "/tmp/x"],
    });
    expect(parseDeployArgs(["-e", "staging", "-c", "other.toml"])).toEqual({
      env: "staging",
      config: "other.toml",
      rest: ["--config", "other.toml"],
    });
  });
  it("refuses no --env, an empty one (wrangler's top level) and an environment the project does not have", () => {
    expect(() => parseDeployArgs([])).toThrow(/without --env: that would deploy the local configuration/);
    expect(() => parseDeployArgs(["--dry-run"])).toThrow(DeployRefusal);
    expect(() => parseDeployArgs(["--env="])).toThrow(/without --env/);
    expect(() => parseDeployArgs(["--env"])).toThrow(/--env needs a value/);
    expect(() => parseDeployArgs(["--env", "qa"])).toThrow(/unknown environment "qa": deploy to staging or production/);
  });
  it("answers --help with the usage", () => {
    expect(() => parseDeployArgs(["--help"])).toThrow(DeployHelp);
    expect(() => parseDeployArgs(["--env", "staging", "-h"])).toThrow(
      /^usage: npm run deploy -- --env staging\|production/,
    );
  });
});

describe("workerVariables", () => {
  it("lists the variables src/config.ts reads, the secrets apart", () => {
    for (const name of ["ORIGIN_URL", "TENANCY", "TENANT", "SPLIT_INTERVAL", "MAX_SUBREQUESTS", "CACHE_FRESHNESS"])
      expect(known.vars.has(name), name).toBe(true);
    for (const name of ["ORIGIN_AUTH_HEADER", "AUTH_TOKEN", "TENANTS", "ADMIN_TOKEN", "TELEMETRY_KEY"]) {
      expect(known.secrets.has(name), name).toBe(true);
      expect(known.vars.has(name), name).toBe(false);
    }
    // Bindings are not variables.
    for (const name of ["CACHE_KV", "COALESCER", "TAIL_SLOTS"]) expect(known.vars.has(name), name).toBe(false);
  });
  it("reads a secret from its doc comment, and refuses a file without the Env interface", () => {
    const source = [
      "export interface Env {",
      "  /** Secret: new. */",
      "  NEW_KEY?: string;",
      "  /** plain */",
      "  NEW_VAR?: string;",
      "  /**",
      "   * Secret: on several lines.",
      "   */",
      "  LONG_SECRET?: string;",
      "  /** A variable whose comment is long",
      "   * and mentions Secret: later. */",
      "  LONG_VAR?: string;",
      "  KV?: KVNamespace;",
      "}",
    ].join("\n");
    const found = workerVariables(source);
    expect([...found.vars]).toEqual(["NEW_VAR", "LONG_VAR"]);
    expect(found.secrets.has("NEW_KEY")).toBe(true);
    expect(found.secrets.has("LONG_SECRET")).toBe(true);
    expect(() => workerVariables("const x = 1;")).toThrow(/no `export interface Env/);
  });
});

describe("deployVars", () => {
  it("takes LOKIVL_VAR_<NAME> from the environment and from LOKIVL_VARS_JSON, the environment winning", () => {
    const vars = deployVars(
      {
        PATH: "/usr/bin",
        LOKIVL_VAR_ORIGIN_URL: "https://vl.logs.acme.io",
        LOKIVL_VARS_JSON: JSON.stringify({
          LOKIVL_VAR_ORIGIN_URL: "https://ignored.acme.io",
          LOKIVL_VAR_MAX_SUBREQUESTS: "40",
          OTHER_VARIABLE: "not ours",
        }),
      },
      known,
    );
    expect(Object.fromEntries(vars)).toEqual({ ORIGIN_URL: "https://vl.logs.acme.io", MAX_SUBREQUESTS: "40" });
    expect(deployVars({ LOKIVL_VARS_JSON: "" }, known).size).toBe(0);
  });
  it("refuses a secret, a variable the Worker does not read, an empty value, and JSON that is not an object", () => {
    expect(() => deployVars({ LOKIVL_VAR_AUTH_TOKEN: "s3cret-value" }, known)).toThrow(
      /AUTH_TOKEN is a secret: put it with `npx wrangler secret put AUTH_TOKEN --env <env>`/,
    );
    expect(() => deployVars({ LOKIVL_VARS_JSON: '{"LOKIVL_VAR_TENANTS":"{}"}' }, known)).toThrow(/TENANTS is a secret/);
    expect(() => deployVars({ LOKIVL_VAR_ORIGN_URL: "https://vl.acme.io" }, known)).toThrow(
      /the Worker reads no variable ORIGN_URL/,
    );
    expect(() => deployVars({ LOKIVL_VAR_SPLIT_INTERVAL: " " }, known)).toThrow(/LOKIVL_VAR_SPLIT_INTERVAL is empty/);
    expect(() => deployVars({ LOKIVL_VARS_JSON: "{" }, known)).toThrow(/LOKIVL_VARS_JSON is not valid JSON/);
    expect(() => deployVars({ LOKIVL_VARS_JSON: "[]" }, known)).toThrow(/must be a JSON object/);
  });
  it("never repeats a secret's value in its refusal", () => {
    try {
      deployVars({ LOKIVL_VAR_ADMIN_TOKEN: "s3cret-value" }, known);
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain("s3cret-value");
    }
  });
});

describe("unreachableHost", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["localhost", "a loopback name"],
    ["vl.localhost", "a loopback name"],
    ["[::1]", "a loopback address"],
    ["0.0.0.0", "an unspecified address"],
    ["10.1.2.3", "a private address"],
    ["172.20.0.5", "a private address"],
    ["192.168.1.10", "a private address"],
    ["100.64.0.1", "a carrier-grade NAT address"],
    ["169.254.169.254", "a link-local address"],
    ["[fd12:3456::1]", "a private address"],
    ["[fe80::1]", "a link-local address"],
    ["[::ffff:127.0.0.1]", "a loopback address"],
    [new URL("http://[::ffff:10.0.0.1]/").hostname, "a private address"],
    [new URL("http://2130706433/").hostname, "a loopback address"],
    ["victorialogs.example.com", "a placeholder from the documentation"],
    ["example.org", "a placeholder from the documentation"],
    ["vl.test", "a placeholder from the documentation"],
    ["vl.internal", "a name that only resolves on a local network"],
    ["nas.local", "a name that only resolves on a local network"],
  ])("%s is %s", (host, why) => expect(unreachableHost(host)).toBe(why));
  it.each(["vl.logs.acme.io", "203.0.113.9", "172.32.0.1", "[2606:4700::1]", "examples.com", "myexample.com"])(
    "%s is reachable",
    (host) => expect(unreachableHost(host)).toBeUndefined(),
  );
});

describe("deployProblems", () => {
  const good = {
    env: "staging",
    vars: { ORIGIN_URL: "https://vl.logs.acme.io" },
    kvNamespaces: [{ binding: "CACHE_KV", id: KV_ID }],
  };
  it("accepts a public origin and a real KV id", () => expect(deployProblems(good)).toEqual([]));
  it("refuses a loopback, private or placeholder origin, one with credentials, and a missing one", () => {
    const origin = (ORIGIN_URL: unknown) => deployProblems({ ...good, vars: { ORIGIN_URL } });
    expect(origin("http://127.0.0.1:9428")).toEqual([
      expect.stringMatching(
        /^ORIGIN_URL's host 127\.0\.0\.1 is a loopback address, which a Worker cannot reach: set ORIGIN_URL in \[env\.staging\.vars\] of wrangler\.toml, or LOKIVL_VAR_ORIGIN_URL/,
      ),
    ]);
    expect(origin("https://victorialogs-staging.example.com")).toEqual([expect.stringMatching(/placeholder/)]);
    expect(origin("http://10.0.0.8:9428")).toEqual([expect.stringMatching(/a private address/)]);
    expect(origin("http://[::ffff:7f00:1]:9428")).toEqual([expect.stringMatching(/a loopback address/)]);
    expect(origin(undefined)).toEqual([expect.stringMatching(/^ORIGIN_URL is not set/)]);
    expect(origin("vl.acme.io")).toEqual([expect.stringMatching(/^ORIGIN_URL is not a URL/)]);
    expect(origin("ftp://vl.acme.io")).toEqual([expect.stringMatching(/must be an https:\/\/ URL/)]);
    const withCredentials = origin("https://reader:p4ssw0rd@vl.acme.io");
    expect(withCredentials).toEqual([expect.stringMatching(/ORIGIN_URL holds credentials.*ORIGIN_AUTH_HEADER/)]);
    expect(withCredentials.join()).not.toContain("p4ssw0rd");
  });
  it("refuses the all-zero KV placeholder and a missing CACHE_KV", () => {
    expect(deployProblems({ ...good, kvNamespaces: [{ binding: "CACHE_KV", id: "0".repeat(32) }] })).toEqual([
      expect.stringMatching(
        /CACHE_KV namespace of \[env\.staging\] is the all-zero placeholder: run `npm run setup:cloudflare`/,
      ),
    ]);
    expect(deployProblems({ ...good, kvNamespaces: [] })).toEqual([expect.stringMatching(/is missing/)]);
  });
});

describe("the Worker's own validation, before the upload", () => {
  it("refuses what src/config.ts refuses, naming the variable and not the value", async () => {
    const workerCheck = await loadWorkerConfigCheck(root);
    const kvNamespaces = [{ binding: "CACHE_KV", id: KV_ID }];
    const origin = { ORIGIN_URL: "https://vl.logs.acme.io" };
    expect(deployProblems({ env: "staging", vars: origin, kvNamespaces, workerCheck })).toEqual([]);
    expect(
      deployProblems({ env: "staging", vars: { ...origin, SPLIT_INTERVAL: "30s" }, kvNamespaces, workerCheck }),
    ).toEqual([
      'the Worker would refuse these variables and answer every route with "configuration error: SPLIT_INTERVAL must be at least 1m": fix it in [env.staging.vars] or its LOKIVL_VAR_<NAME>',
    ]);
    const tenancy = deployProblems({
      env: "production",
      vars: { ...origin, TENANCY: "everyone-secret-word" },
      kvNamespaces,
      workerCheck,
    });
    expect(tenancy).toEqual([expect.stringMatching(/configuration error: TENANCY must be "single" or "header"/)]);
    expect(tenancy.join()).not.toContain("everyone-secret-word");
  });
});

describe("the project's configuration", () => {
  it("the top level (the local configuration) is refused for its loopback origin and its KV placeholder", () => {
    const top = unstable_readConfig({ config: join(root, "wrangler.toml") });
    expect(deployProblems({ env: "staging", vars: top.vars, kvNamespaces: top.kv_namespaces })).toEqual([
      expect.stringMatching(/127\.0\.0\.1 is a loopback address/),
      expect.stringMatching(/all-zero placeholder/),
    ]);
  });
  it.each(["staging", "production"])(
    "[env.%s] as committed is refused until its origin and KV id are set, then deploys with the origin from LOKIVL_VAR_ORIGIN_URL",
    (env) => {
      const config = unstable_readConfig({ config: join(root, "wrangler.toml"), env });
      expect(config.placement).toEqual({ mode: "smart" });
      expect(deployProblems({ env, vars: config.vars, kvNamespaces: config.kv_namespaces })).toHaveLength(2);
      const overrides = deployVars({ LOKIVL_VAR_ORIGIN_URL: "https://vl.logs.acme.io" }, known);
      const vars = { ...config.vars, ...Object.fromEntries(overrides) };
      const kvNamespaces = config.kv_namespaces.map((ns: { binding: string; id?: string }) => ({ ...ns, id: KV_ID }));
      expect(deployProblems({ env, vars, kvNamespaces })).toEqual([]);
      expect(wranglerDeployArgs(env, overrides, ["--dry-run"])).toEqual([
        "deploy",
        "--env",
        env,
        "--var",
        "ORIGIN_URL:https://vl.logs.acme.io",
        "--dry-run",
      ]);
    },
  );
  it("npm run deploy goes through scripts/deploy.mjs, never straight to wrangler", () => {
    expect(packageJson.scripts.deploy).toMatch(/node scripts\/deploy\.mjs$/);
  });
  it("a bare `node scripts/deploy.mjs` exits 2 with the refusal and runs no wrangler", () => {
    const run = spawnSync(process.execPath, [join(root, "scripts/deploy.mjs")], { cwd: root, encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^\[deploy\] refused: refusing to deploy without --env/);
    expect(run.stdout).toBe("");
  });
});

describe("placement", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.split("### Placement\n")[1]?.split(/\n##/)[0] ?? "";
  const snippet = /```toml\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  // Each hint of the README's snippet, uncommented in turn, in place of the environment's Smart Placement.
  const hints = snippet
    .split("\n")
    .map((line) => /^(?:#\s*)?((?:region|hostname|host) = "[^"]+")/.exec(line)?.[1])
    .filter((hint): hint is string => hint !== undefined);
  const withPlacement = (placement: string) =>
    readFileSync(join(root, "wrangler.toml"), "utf8")
      .replace('main = "src/index.ts"', `main = ${JSON.stringify(join(root, "src/index.ts"))}`)
      .replace('[env.production.placement]\nmode = "smart"', `[env.production.placement]\n${placement}`);
  const read = (toml: string) => {
    const dir = mkdtempSync(join(tmpdir(), "lokivl-placement-"));
    try {
      writeFileSync(join(dir, "wrangler.toml"), toml);
      return unstable_readConfig({ config: join(dir, "wrangler.toml"), env: "production" }).placement;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it("both deployed environments use Smart Placement", () => {
    for (const env of ["staging", "production"])
      expect(unstable_readConfig({ config: join(root, "wrangler.toml"), env }).placement, env).toEqual({
        mode: "smart",
      });
  });
  it("the README's region, hostname and host hints are configurations wrangler accepts", () => {
    expect(hints.map((h) => h.split(" ")[0])).toEqual(["region", "hostname", "host"]);
    for (const hint of hints) {
      const [key, value] = hint.split(" = ") as [string, string];
      expect(read(withPlacement(hint)), hint).toEqual({ [key]: JSON.parse(value) });
    }
  });
  it('and wrangler refuses a hint beside mode = "smart", as the README says', () => {
    expect(() => read(withPlacement(`mode = "smart"\n${hints[0]}`))).toThrow(/placement\.mode/);
  });
});

/**
 * The GitHub Actions workflows in .github/workflows keep the project's CI and deploy rules: each
 * rule of workflow-rules.ts is shown to catch a bad example, then applied to the real files.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  checkDeployNeedsTests,
  checkDeployThroughScript,
  checkFiles,
  checkNpmScripts,
  checkPinnedActions,
  checkSecretsNotEchoed,
  checkSecretsNotInRun,
  checkStrictShell,
  deployTargets,
  engineMajors,
  nodeVersions,
  parseWorkflow,
} from "./workflow-rules";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const workflowDir = join(root, ".github/workflows");
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
  engines: { node: string };
};
const scripts = packageJson.scripts;
// Node's release lines in maintenance or active LTS (22 until April 2027, 24 until April 2028);
// 20 left maintenance in April 2026 and is tested still, as the oldest line engines admits.
const MAINTAINED_LTS = ["22", "24"];
const TESTED_NODE = ["20", ...MAINTAINED_LTS];
const exists = (path: string) => existsSync(join(root, path));
const files = readdirSync(workflowDir).filter((f) => /\.ya?ml$/.test(f));
const read = (name: string) => readFileSync(join(workflowDir, name), "utf8");

describe("workflow rules catch what they are for", () => {
  const bad = parseWorkflow(`
jobs:
  test:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v4
      - run: npm run no-such-script && node scripts/missing.mjs
  deploy:
    runs-on: ubuntu-24.04
    steps:
      - run: |
          echo hi
          CLOUDFLARE_API_TOKEN=\${{ secrets.CLOUDFLARE_API_TOKEN }} npx wrangler deploy --env staging
`);
  it("an npm script missing from package.json", () => {
    expect(checkNpmScripts(bad, scripts)).toEqual(['test: "npm no-such-script" is not a script in package.json']);
  });
  it("a called file that does not exist", () => {
    expect(checkFiles(bad, exists)).toEqual(["test: scripts/missing.mjs does not exist"]);
  });
  it("an action on a tag, and a SHA without its version", () => {
    expect(checkPinnedActions("      - uses: actions/checkout@v4\n")).toHaveLength(1);
    expect(checkPinnedActions("  uses: actions/cache@5a3ec84eff668545956fd18022155c47e93e2684\n")).toHaveLength(1);
    expect(checkPinnedActions("  uses: actions/cache@5a3ec84eff668545956fd18022155c47e93e2684 # v4.2.3\n")).toEqual([]);
    expect(checkPinnedActions("    uses: ./.github/workflows/ci.yml\n")).toEqual([]);
  });
  it("a deploy job that does not wait for the tests", () => {
    expect(checkDeployNeedsTests(bad)).toEqual(["deploy deploys without needing the test job"]);
  });
  it("a secret pasted into run text", () => {
    expect(checkSecretsNotInRun(bad)).toEqual(["deploy: a secret is interpolated into run text"]);
  });
  it("a secret printed from the environment", () => {
    const echoing = parseWorkflow(`
jobs:
  deploy:
    steps:
      - env:
          CLOUDFLARE_API_TOKEN: \${{ secrets.CLOUDFLARE_API_TOKEN }}
          STAGE: staging
        run: |
          set -euo pipefail
          echo "deploying to $STAGE"
          echo "token: \${CLOUDFLARE_API_TOKEN}" | base64
`);
    expect(checkSecretsNotEchoed(echoing)).toEqual([
      'deploy: prints CLOUDFLARE_API_TOKEN: echo "token: ${CLOUDFLARE_API_TOKEN}" | base64',
    ]);
  });
  it("a run step without strict shell options", () => {
    expect(checkStrictShell(bad)).toHaveLength(2);
  });
  it("a deploy that bypasses scripts/deploy.mjs, or does not hand it the GitHub variables", () => {
    expect(checkDeployThroughScript(bad)).toEqual(["deploy: runs wrangler deploy without scripts/deploy.mjs"]);
    const withoutVars = parseWorkflow(`
jobs:
  staging:
    steps:
      - env:
          LOKIVL_VARS_JSON: \${{ vars.LOKIVL_VAR_ORIGIN_URL }}
        run: |
          set -euo pipefail
          npm run deploy -- --env staging
  production:
    steps:
      - run: npm run deploy -- --env production
`);
    expect(checkDeployThroughScript(withoutVars)).toEqual([
      "staging: deploys without LOKIVL_VARS_JSON: ${{ toJSON(vars) }}",
      "production: deploys without LOKIVL_VARS_JSON: ${{ toJSON(vars) }}",
    ]);
  });
  it("reads Node versions from setup-node, a matrix expanded", () => {
    const wf = parseWorkflow(`
jobs:
  test:
    strategy:
      matrix:
        node: ["20", 22]
    steps:
      - uses: actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020 # v4.4.0
        with:
          node-version: \${{ matrix.node }}
  deploy:
    steps:
      - uses: actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020 # v4.4.0
        with:
          node-version: "24"
`);
    expect(nodeVersions(wf)).toEqual({ test: ["20", "22"], deploy: ["24"] });
  });
  it("reads the Node lines an engines range admits", () => {
    expect(engineMajors(">=20.19", 24)).toEqual([20, 21, 22, 23, 24]);
    expect(engineMajors("^20.19.0 || ^22.12.0 || >=24.0.0", 25)).toEqual([20, 22, 24, 25]);
    expect(() => engineMajors("20.x", 24)).toThrow(/not understood/);
  });
});

describe("the project's workflows", () => {
  it("exist: ci.yml and deploy.yml", () => {
    expect(files.sort()).toEqual(["ci.yml", "deploy.yml"]);
  });
  for (const name of files) {
    describe(name, () => {
      const text = read(name);
      const wf = parseWorkflow(text);
      it("runs only npm scripts that package.json defines", () => expect(checkNpmScripts(wf, scripts)).toEqual([]));
      it("calls only files that exist", () => expect(checkFiles(wf, exists)).toEqual([]));
      it("pins every action to a commit SHA with its version", () => expect(checkPinnedActions(text)).toEqual([]));
      it("deploys only after the tests", () => expect(checkDeployNeedsTests(wf)).toEqual([]));
      it("passes secrets only through env/with", () => expect(checkSecretsNotInRun(wf)).toEqual([]));
      it("never prints a secret", () => expect(checkSecretsNotEchoed(wf)).toEqual([]));
      it("runs every shell step with set -euo pipefail", () => expect(checkStrictShell(wf)).toEqual([]));
      it("deploys only through scripts/deploy.mjs, with the GitHub variables", () =>
        expect(checkDeployThroughScript(wf)).toEqual([]));
    });
  }

  it("ci.yml runs .ci/run, which runs npm test", () => {
    const wf = parseWorkflow(read("ci.yml"));
    const runs = Object.values(wf.jobs).flatMap((j) => (j.steps ?? []).map((s) => s.run ?? ""));
    expect(runs.some((r) => /(^|\s)\.ci\/run\b/.test(r))).toBe(true);
    expect(readFileSync(join(root, ".ci/run"), "utf8")).toMatch(/^npm test$/m);
  });

  it("deploy.yml goes to staging first and to production behind the approval environment", () => {
    const wf = parseWorkflow(read("deploy.yml"));
    expect(deployTargets(wf)).toEqual({ staging: "staging", production: "production" });
    const production = wf.jobs.production as { needs: string[]; environment: { name: string }; if: string };
    expect(production.needs).toContain("staging");
    expect(production.environment.name).toBe("production");
    expect(production.if).toContain("refs/tags/v");
  });
});

describe("Node versions", () => {
  it("ci.yml runs the tests on Node 20 and on each maintained LTS line", () => {
    expect(nodeVersions(parseWorkflow(read("ci.yml")))).toEqual({ test: TESTED_NODE });
  });
  it("deploy.yml deploys with a maintained LTS line", () => {
    const versions = nodeVersions(parseWorkflow(read("deploy.yml")));
    expect(Object.keys(versions).sort()).toEqual(["production", "staging"]);
    for (const [job, list] of Object.entries(versions)) {
      expect(list.length, job).toBe(1);
      expect(MAINTAINED_LTS, job).toContain(list[0]);
    }
  });
  it("package.json's engines admits exactly the even lines CI tests, from 20 on", () => {
    const newest = Math.max(...TESTED_NODE.map(Number));
    const admitted = engineMajors(packageJson.engines.node, newest).filter((major) => major % 2 === 0);
    expect(admitted.map(String)).toEqual(TESTED_NODE);
  });
});

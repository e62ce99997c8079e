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
  checkFiles,
  checkNpmScripts,
  checkPinnedActions,
  checkSecretsNotEchoed,
  checkSecretsNotInRun,
  checkStrictShell,
  deployTargets,
  parseWorkflow,
} from "./workflow-rules";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const workflowDir = join(root, ".github/workflows");
const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> })
  .scripts;
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

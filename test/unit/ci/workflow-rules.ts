/**
 * Rules every GitHub Actions workflow of the project must keep, as pure functions over the parsed
 * workflow and its raw text, so that each rule is tested on a bad example as well as on the real files.
 * Each returns the list of problems found (empty when the workflow is sound).
 */
import { parse } from "yaml";

export interface Step {
  uses?: string;
  run?: string;
  env?: Record<string, unknown>;
  with?: Record<string, unknown>;
}
export interface Job {
  needs?: string | string[];
  strategy?: { matrix?: Record<string, unknown> };
  uses?: string;
  steps?: Step[];
  environment?: string | { name: string };
}
export interface Workflow {
  jobs: Record<string, Job>;
}

export function parseWorkflow(text: string): Workflow {
  return parse(text) as Workflow;
}

const runSteps = (wf: Workflow): { job: string; run: string }[] =>
  Object.entries(wf.jobs).flatMap(([job, j]) =>
    (j.steps ?? []).filter((s) => typeof s.run === "string").map((s) => ({ job, run: s.run as string })),
  );

// npm's own commands that need no entry in package.json.
const NPM_BUILTINS = new Set(["ci", "install", "i", "exec", "pack", "publish", "version", "config"]);

/** Every `npm run X` / `npm X` names a script that package.json defines (or an npm built-in). */
export function checkNpmScripts(wf: Workflow, scripts: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const { job, run } of runSteps(wf)) {
    for (const m of run.matchAll(/\bnpm\s+(?:run(?:-script)?\s+)?([a-z][\w:.-]*)/g)) {
      const name = m[1] as string;
      if (name === "run" || NPM_BUILTINS.has(name)) continue;
      if (!(name in scripts)) problems.push(`${job}: "npm ${name}" is not a script in package.json`);
    }
  }
  return problems;
}

/** Every repository file a step runs or imports (scripts/…, .ci/…, a local reusable workflow) exists. */
export function checkFiles(wf: Workflow, exists: (path: string) => boolean): string[] {
  const problems: string[] = [];
  const paths: { job: string; path: string }[] = [];
  for (const { job, run } of runSteps(wf))
    for (const m of run.matchAll(/(?:^|[\s"'`(])\.?\/?((?:\.ci|scripts|bench)\/[\w./-]+)/g))
      paths.push({ job, path: m[1] as string });
  for (const [job, j] of Object.entries(wf.jobs))
    if (j.uses?.startsWith("./")) paths.push({ job, path: j.uses.slice(2) });
  for (const { job, path } of paths) if (!exists(path)) problems.push(`${job}: ${path} does not exist`);
  return problems;
}

/**
 * Every third-party action is pinned to a full commit SHA with its exact version in a comment, so
 * a moved tag cannot change what runs with the deploy credentials.
 */
export function checkPinnedActions(text: string): string[] {
  const problems: string[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s*(?:-\s+)?uses:\s*(\S+)(.*)$/.exec(line);
    if (!m) continue;
    const [, ref, rest] = m as unknown as [string, string, string];
    if (ref.startsWith("./")) continue;
    if (!/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/.test(ref) || !/#\s*v\d+\.\d+\.\d+\b/.test(rest))
      problems.push(`action not pinned to a commit SHA with its version: ${line.trim()}`);
  }
  return problems;
}

const needsOf = (j: Job): string[] => (j.needs === undefined ? [] : Array.isArray(j.needs) ? j.needs : [j.needs]);

const isTestJob = (j: Job): boolean =>
  j.uses === "./.github/workflows/ci.yml" || (j.steps ?? []).some((s) => /(^|\s)\.ci\/run\b/.test(s.run ?? ""));

const isDeployJob = (j: Job): boolean =>
  (j.steps ?? []).some((s) => /\bwrangler\s+deploy\b|\bnpm\s+run\s+deploy\b/.test(s.run ?? ""));

/** Every job that deploys waits, directly or through other jobs, for the job that runs the tests. */
export function checkDeployNeedsTests(wf: Workflow): string[] {
  const reaches = (name: string, seen: Set<string>): boolean => {
    if (seen.has(name)) return false;
    seen.add(name);
    return needsOf(wf.jobs[name] ?? {}).some((n) => (wf.jobs[n] && isTestJob(wf.jobs[n])) || reaches(n, seen));
  };
  return Object.entries(wf.jobs)
    .filter(([, j]) => isDeployJob(j))
    .filter(([name]) => !reaches(name, new Set()))
    .map(([name]) => `${name} deploys without needing the test job`);
}

/**
 * Secrets reach steps only through `env` or `with`: a `${{ secrets.X }}` inside `run` text is
 * pasted into the script before the shell sees it (and can end up in logs or in an injected command).
 */
export function checkSecretsNotInRun(wf: Workflow): string[] {
  return runSteps(wf)
    .filter(({ run }) => /\$\{\{[^}]*\bsecrets\./.test(run))
    .map(({ job }) => `${job}: a secret is interpolated into run text`);
}

/** No step prints a variable that holds a secret (GitHub masks known values, not transformed ones). */
export function checkSecretsNotEchoed(wf: Workflow): string[] {
  const problems: string[] = [];
  for (const [job, j] of Object.entries(wf.jobs)) {
    for (const step of j.steps ?? []) {
      const secretVars = Object.entries(step.env ?? {})
        .filter(([, v]) => typeof v === "string" && /\$\{\{[^}]*\bsecrets\./.test(v))
        .map(([k]) => k);
      for (const line of (step.run ?? "").split("\n"))
        for (const name of secretVars)
          if (/\b(echo|printf|cat)\b/.test(line) && new RegExp(`\\$\\{?${name}\\b`).test(line))
            problems.push(`${job}: prints ${name}: ${line.trim()}`);
    }
  }
  return problems;
}

/** Every `run` step starts with `set -euo pipefail`, so a failing command never passes silently. */
export function checkStrictShell(wf: Workflow): string[] {
  return runSteps(wf)
    .filter(({ run }) => !run.trimStart().startsWith("set -euo pipefail"))
    .map(({ job, run }) => `${job}: run step without set -euo pipefail: ${run.trim().split("\n")[0]}`);
}

/** Jobs that deploy, with the wrangler environment each deploys to (from `--env NAME`). */
export function deployTargets(wf: Workflow): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, j] of Object.entries(wf.jobs)) {
    if (!isDeployJob(j)) continue;
    const run = (j.steps ?? []).map((s) => s.run ?? "").join("\n");
    out[name] = /--env\s+([\w-]+)/.exec(run)?.[1];
  }
  return out;
}

/**
 * Every deploying step goes through `npm run deploy` (scripts/deploy.mjs, which refuses the local
 * configuration and unreachable origins) rather than `wrangler deploy` itself, and hands it the
 * GitHub variables (LOKIVL_VARS_JSON: `${{ toJSON(vars) }}`), so LOKIVL_VAR_<NAME> reaches the Worker.
 */
export function checkDeployThroughScript(wf: Workflow): string[] {
  const problems: string[] = [];
  for (const [job, j] of Object.entries(wf.jobs)) {
    for (const step of j.steps ?? []) {
      const run = step.run ?? "";
      if (/\bwrangler\s+deploy\b/.test(run)) problems.push(`${job}: runs wrangler deploy without scripts/deploy.mjs`);
      if (!/\bnpm\s+run\s+deploy\b/.test(run)) continue;
      const json = step.env?.LOKIVL_VARS_JSON;
      if (typeof json !== "string" || !/^\$\{\{\s*toJSON\(vars\)\s*\}\}$/.test(json.trim()))
        problems.push(`${job}: deploys without LOKIVL_VARS_JSON: \${{ toJSON(vars) }}`);
    }
  }
  return problems;
}

/** The Node versions each job sets up with actions/setup-node, a `${{ matrix.X }}` expanded to its list. */
export function nodeVersions(wf: Workflow): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [job, j] of Object.entries(wf.jobs)) {
    for (const step of j.steps ?? []) {
      if (!step.uses?.startsWith("actions/setup-node@")) continue;
      const version = String(step.with?.["node-version"] ?? "");
      const fromMatrix = /^\$\{\{\s*matrix\.([\w-]+)\s*\}\}$/.exec(version)?.[1];
      const values = fromMatrix === undefined ? [version] : j.strategy?.matrix?.[fromMatrix];
      out[job] = [...(out[job] ?? []), ...(Array.isArray(values) ? values.map(String) : [])];
    }
  }
  return out;
}

/**
 * The Node major versions an `engines.node` range admits at their latest release, for ranges made
 * of `^X.Y.Z` and `>=X.Y.Z` parts joined by `||` (the forms package.json uses); `>=` reaches `upTo`.
 */
export function engineMajors(range: string, upTo: number): number[] {
  const majors = new Set<number>();
  for (const part of range.split("||").map((p) => p.trim())) {
    const m = /^(\^|>=)\s*(\d+)(?:\.\d+){0,2}$/.exec(part);
    if (!m) throw new Error(`engines.node part not understood: ${part}`);
    const major = Number(m[2]);
    if (m[1] === "^") majors.add(major);
    else for (let v = major; v <= upTo; v++) majors.add(v);
  }
  return [...majors].sort((a, b) => a - b);
}

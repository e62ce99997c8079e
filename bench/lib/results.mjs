// A benchmark's results in bench/results: the report (Markdown), its chart (SVG) and the
// measurements themselves (JSON), so that the report can be written again from them.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * @param {string} root the repository's root
 * @param {string} name the files' name without extension
 * @param {{ markdown: (cases: any[], meta: any) => string, svg: (cases: any[], meta: any) => string }} report
 * @param {any[]} cases
 * @param {object} meta
 */
export async function writeResults(root, name, report, cases, meta) {
  const dir = join(root, "bench", "results");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${name}.md`), report.markdown(cases, meta));
  await writeFile(join(dir, `${name}.svg`), report.svg(cases, meta));
  await writeFile(join(dir, `${name}.json`), JSON.stringify({ meta, cases }, null, 1) + "\n");
}

/**
 * Writes the report and chart again from the measurements of the last run (BENCH_REPORT_ONLY=1),
 * without measuring; `amend` may fill in what older measurements lack.
 * @param {string} root
 * @param {string} name
 * @param {{ markdown: (cases: any[], meta: any) => string, svg: (cases: any[], meta: any) => string }} report
 * @param {(meta: any) => void} [amend]
 */
export async function rewriteResults(root, name, report, amend) {
  const dir = join(root, "bench", "results");
  const { meta, cases } = JSON.parse(await readFile(join(dir, `${name}.json`), "utf8"));
  amend?.(meta);
  await writeFile(join(dir, `${name}.md`), report.markdown(cases, meta));
  await writeFile(join(dir, `${name}.svg`), report.svg(cases, meta));
}

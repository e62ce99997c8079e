// The import graph of src/ at the level of layers (scripts/layers.mjs), for reviewing the layering:
// which layer imports which (and how many imports), the groups of modules that import each other in
// a loop, and every import that points up or sideways. `npm run lint:layers` refuses those; this
// prints the whole picture, before and after a change. `--files` lists the imports behind each
// layer edge too.
//
//   node scripts/import-graph.mjs [--files]

import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LAYERS, layerOf, levelOf } from "./layers.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const listFiles = process.argv.includes("--files");

/** @typedef {{ source: string, dependencies: { resolved: string }[] }} CruisedModule */

/** @returns {CruisedModule[]} */
function cruise() {
  // dependency-cruiser's own JSON reporter, without the rules: the graph as it is, violations included.
  const bin = join(root, "node_modules", ".bin", "depcruise");
  const args = ["src", "--no-config", "--ts-pre-compilation-deps", "--ts-config", "tsconfig.json"];
  const json = execFileSync(bin, [...args, "--output-type", "json"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(json).modules;
}

/** @param {string} path */
const layerName = (path) => layerOf(path)?.name ?? "(no layer)";

/** Modules that import each other in a loop: the strongly connected components with two or more modules. */
/** @param {Map<string, string[]>} graph */
function loops(graph) {
  let next = 0;
  /** @type {Map<string, number>} */ const index = new Map();
  /** @type {Map<string, number>} */ const low = new Map();
  /** @type {string[]} */ const stack = [];
  const onStack = new Set();
  /** @type {string[][]} */ const found = [];
  /** @param {string} v */
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    /** @type {string[]} */ const group = [];
    let w;
    do {
      w = /** @type {string} */ (stack.pop());
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const modules = cruise().filter((m) => m.source.startsWith("src/"));
/** @type {Map<string, string[]>} */
const graph = new Map(
  modules.map((m) => [m.source, m.dependencies.map((d) => d.resolved).filter((r) => r.startsWith("src/"))]),
);

/** @type {Map<string, string[]>} layer edge "a -> b" → the imports behind it */
const edges = new Map();
/** @type {string[]} */
const upward = [];
for (const [from, targets] of graph) {
  for (const to of targets) {
    const a = layerOf(from);
    const b = layerOf(to);
    if (a === b) continue;
    const key = `${layerName(from)} -> ${layerName(to)}`;
    edges.set(key, [...(edges.get(key) ?? []), `${from} -> ${to}`]);
    if (!a || !b || levelOf(b) >= levelOf(a)) upward.push(`${key}: ${from} -> ${to}`);
  }
}

const order = (/** @type {string} */ key) => key.split(" -> ").map((name) => LAYERS.findIndex((l) => l.name === name));
const keys = [...edges.keys()].sort((x, y) => {
  const [xa, xb] = order(x);
  const [ya, yb] = order(y);
  return xa - ya || xb - yb;
});
const twoWay = keys.filter((k) => {
  const [a, b] = k.split(" -> ");
  return order(k)[0] < order(k)[1] && edges.has(`${b} -> ${a}`);
});
const groups = loops(graph);

console.log(`layers, bottom first: ${LAYERS.map((l) => l.name).join(", ")}`);
console.log(`\nlayer edges: ${keys.length}`);
for (const k of keys) {
  console.log(`  ${k}  ${edges.get(k)?.length}`);
  if (listFiles) for (const f of edges.get(k) ?? []) console.log(`      ${f}`);
}
console.log(
  `\ntwo-way layer pairs: ${twoWay.length}${twoWay.map((k) => `\n  ${k.replace(" -> ", " <-> ")}`).join("")}`,
);
console.log(`\nmodules importing each other in a loop: ${groups.length} group(s)`);
for (const g of groups) console.log(`  ${g.join(" ")}`);
console.log(`\nupward or sideways imports: ${upward.length}${upward.map((u) => `\n  ${u}`).join("")}`);

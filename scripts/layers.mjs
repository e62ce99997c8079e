// The layers of src/, bottom first. A module may import modules of its own layer and of the layers
// below it, never one above it nor a sibling on its own level, so that a layer can be read, tested
// and changed knowing only what is under it. README.md ("Architecture") explains each layer.
// .dependency-cruiser.mjs turns this table into lint rules; scripts/import-graph.mjs prints the
// import graph against it.
/** @typedef {{ name: string, path: string, holds: string, level?: string }} Layer */

/** @type {Layer[]} */
export const LAYERS = [
  { name: "core", path: "^src/core/", holds: "errors by kind, tenant, time window, Go's runtime semantics" },
  { name: "util", path: "^src/util/", holds: "bounded caches, IP address matching" },
  { name: "logql", path: "^src/logql/", holds: "the language: lexer, parser, AST, validation" },
  { name: "engine", path: "^src/engine/", holds: "pipeline, templates, metric evaluation, patterns" },
  { name: "plan", path: "^src/plan/", holds: "LogQL to LogsQL translation and push-down decisions" },
  { name: "origin", path: "^src/origin/", holds: "the VictoriaLogs client" },
  { name: "auth", path: "^src/auth/", holds: "credentials and the tenancy policy" },
  // Configuration reads the defaults of the layers below it (limits, derived fields, tenancy); the
  // cache wiring, the Durable Objects and everything from the encoders up may read it.
  { name: "config", path: "^src/config\\.ts$", holds: "the validated bindings" },
  // The cache wraps the origin client; the encoders write Loki's answers. Neither needs the other.
  { name: "cache", level: "cache+encode", path: "^src/cache/", holds: "results cache and coalescing" },
  { name: "encode", level: "cache+encode", path: "^src/encode/", holds: "Loki's JSON and frame shapes" },
  { name: "exec", path: "^src/exec/", holds: "query execution: windows, merges, admission, tail" },
  { name: "http", path: "^src/http/", holds: "request context, parameters, statuses, telemetry" },
  { name: "routes", path: "^src/routes/", holds: "one module per Loki endpoint group" },
  { name: "app", path: "^src/(app|index)\\.ts$", holds: "the hono app and the Worker's entry point" },
];

/** Layers that share a level (`level`) are siblings: neither may import the other. */
export const LEVELS = [...new Set(LAYERS.map((l) => l.level ?? l.name))];

/** @param {Layer} layer */
export function levelOf(layer) {
  return LEVELS.indexOf(layer.level ?? layer.name);
}

/**
 * The layer a path (relative to the repository, `src/...`) belongs to, if any.
 * @param {string} path
 */
export function layerOf(path) {
  return LAYERS.find((l) => new RegExp(l.path).test(path));
}

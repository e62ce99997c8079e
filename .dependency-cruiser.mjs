// Import boundaries of src/, checked by `npm run lint:layers` (part of `npm run lint`): no cycles,
// each layer of scripts/layers.mjs imports only the layers below it, src/core imports nothing else,
// and the generated parser is reached only through src/logql/parser.ts.
import { LAYERS, levelOf } from "./scripts/layers.mjs";

const anyOf = (layers) => layers.map((l) => `(${l.path})`).join("|");

const layerRules = LAYERS.filter((layer) =>
  LAYERS.some((other) => levelOf(other) >= levelOf(layer) && other !== layer),
).map((layer) => {
  const above = LAYERS.filter((other) => other !== layer && levelOf(other) >= levelOf(layer));
  return {
    name: `layer-${layer.name}`,
    severity: "error",
    comment: `${layer.name} may import only the layers below it, not ${above.map((l) => l.name).join(", ")}`,
    from: { path: layer.path },
    to: { path: anyOf(above) },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "modules that import each other in a loop can only be understood and changed together",
      from: { path: "^src/" },
      to: { circular: true },
    },
    ...layerRules,
    {
      name: "core-is-self-contained",
      severity: "error",
      comment: "src/core is the bottom: it imports nothing outside itself, not even a package",
      from: { path: "^src/core/" },
      to: { pathNot: "^src/core/" },
    },
    {
      name: "unplaced-module",
      severity: "error",
      comment: "every module of src belongs to a layer: add new folders to scripts/layers.mjs",
      from: { path: "^src/", pathNot: anyOf(LAYERS) },
      to: {},
    },
    {
      name: "generated-parser-through-parser-ts",
      severity: "error",
      comment: "the generated parser is built from grammar/ and wrapped by src/logql/parser.ts; use that",
      from: { pathNot: "^src/logql/(parser\\.ts$|generated/)" },
      to: { path: "^src/logql/generated/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports count: a layer that needs a type from above depends on that layer as much.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

// Lint rules: ESLint's and typescript-eslint's recommended sets, minus the few that fight this
// codebase's deliberate idioms (non-null assertions after explicit checks, assignments in
// conditions for map-or-create, control characters in parser regexes).
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", ".wrangler/", "src/logql/generated/", "test/fixtures/", "bench/results/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser, ...globals.serviceworker } },
    rules: {
      "no-control-regex": "off",
      "no-cond-assign": ["error", "except-parens"],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    // k6 scripts run in k6's runtime, which provides these.
    files: ["bench/**/k6/**"],
    languageOptions: { globals: { __ENV: "readonly", __VU: "readonly", __ITER: "readonly" } },
  },
  {
    files: ["test/**", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);

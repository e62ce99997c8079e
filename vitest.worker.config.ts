import { defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";

// End-to-end tests: the Worker runs inside workerd (the real Workers runtime) with the bindings from
// wrangler.toml, against a real VictoriaLogs that the global setup starts and loads.
export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      main: "./src/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: { ORIGIN_URL: inject("originUrl"), ORIGIN_TIMEOUT_MS: "30000" },
      },
    })),
  ],
  test: {
    include: ["test/worker/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // The Worker's per-request log lines (one per request, thousands per run) are for Workers Logs;
    // test/worker/telemetry.test.ts checks them. Keep the test output readable.
    onConsoleLog: (log) => !log.startsWith('{"message":"request"'),
  },
});

import { defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { CANARIES } from "./test/support/canaries.mjs";

// End-to-end tests: the Worker runs inside workerd (the real Workers runtime) with the bindings from
// wrangler.toml, against a real VictoriaLogs that the global setup starts and loads. The tests act
// as the authenticating gateway TENANCY=header expects: every request names its tenant with
// X-Scope-OrgID (test/worker/support/gateway.ts; without it the Worker answers 401 no org id, as
// Loki does), and the tenancy tests set the other modes per request. Every file runs with a canary
// origin secret that the console scan (test/support/console-scan.ts) must never find in the
// Worker's output.
export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      main: "./src/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          ORIGIN_URL: inject("originUrl"),
          ORIGIN_TIMEOUT_MS: "30000",
          TENANCY: "header",
          ORIGIN_AUTH_HEADER: CANARIES.ORIGIN_AUTH_HEADER,
          // The compat corpus' Loki ran without service-name and level discovery (its loki.yaml);
          // test/worker/derived-fields.test.ts turns both on per request.
          DISCOVER_LOG_LEVELS: "false",
          DISCOVER_SERVICE_NAME: "",
        },
      },
    })),
  ],
  test: {
    include: ["test/worker/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/console-scan.ts"],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // The Worker's per-request log lines (one per request, thousands per run) are for Workers Logs;
    // test/worker/telemetry.test.ts checks them. Keep the test output readable.
    onConsoleLog: (log) => !log.startsWith('{"message":"request"'),
  },
});

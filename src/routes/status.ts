/**
 * Readiness and build information. buildinfo reports a Loki 3.x version so Grafana enables
 * categorize-labels and the features that come with it. `/ready` fails (503) while the
 * configuration is invalid, naming what is wrong but never a value, so a deployment's health check
 * catches a mistake before users do; `/ready?origin=1` also checks the origin, for a caller holding
 * the credentials a query needs.
 */
import { Hono } from "hono";
import { type Env, configOf, configProblem } from "../config";
import { authenticate } from "../auth/credentials";
import { errorResponse } from "../http/errors";
import { resolveTenant } from "../http/tenant";
import { checkOrigin } from "../origin/probe";

export const BUILD_INFO = {
  version: "3.5.0",
  revision: "loki-vl-worker",
  branch: "main",
  buildUser: "",
  buildDate: "",
  goVersion: "",
};

export const statusRoutes = new Hono<{ Bindings: Env }>()
  .get("/ready", async (c) => {
    const env = c.env ?? {};
    const problem = configProblem(env);
    if (problem) return errorResponse(503, `configuration error: ${problem.message}`);
    if (c.req.query("origin") === undefined) return c.text("ready\n");
    // The check reads the caller's tenant with the origin's credentials: only for a caller who may
    // query that tenant, authenticated exactly as a query is.
    const config = configOf(env);
    const bound = await authenticate(config.tenancy, c.req.header("Authorization") ?? null);
    const tenant = resolveTenant(config.tenancy, bound, c.req.header("X-Scope-OrgID") ?? null);
    const origin = await checkOrigin(config, tenant);
    const ok = origin.reachable && origin.credentialsAccepted === true && origin.answersLogsQL === true;
    return new Response(JSON.stringify({ status: ok ? "success" : "error", origin }), {
      status: ok ? 200 : 503,
      headers: { "Content-Type": "application/json; charset=UTF-8", "Cache-Control": "no-store" },
    });
  })
  .get("/loki/api/v1/status/buildinfo", (c) => c.json(BUILD_INFO))
  .get("/api/prom/status/buildinfo", (c) => c.json(BUILD_INFO));

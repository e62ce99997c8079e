/**
 * The hono application: middleware (auth, request context) around thin route modules. Every failure
 * becomes Loki's text/plain error with Loki's status; nothing escapes as an unhandled exception.
 */
import { Hono } from "hono";
import { type Env, ConfigError, configOf } from "./config";
import { RequestError } from "./core/errors";
import { errorResponse, statusOf } from "./http/errors";
import { redactSecrets, secretsOf } from "./http/redact";
import { authenticate } from "./auth/credentials";
import { LogQLParseError } from "./logql/errors";
import { buildLokiRequest, type LokiRequest } from "./http/context";
import { observe } from "./http/observe";
import { waitUntilOf } from "./http/wait-until";
import type { RequestTelemetry } from "./http/telemetry";
import { statusRoutes } from "./routes/status";
import { queryRoutes } from "./routes/query";
import { metaRoutes } from "./routes/meta";
import { formatRoutes } from "./routes/format";
import { indexRoutes } from "./routes/index-stats";
import { tailRoutes } from "./routes/tail";
import { drilldownRoutes } from "./routes/drilldown";
import { rulesRoutes } from "./routes/rules";
import { adminRoutes } from "./routes/admin";
import { landingRoutes } from "./routes/landing";

type AppEnv = { Bindings: Env; Variables: { loki: LokiRequest; telemetry: RequestTelemetry } };

export function createApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.route("/", statusRoutes);
  // Before authentication: static text that says what this is and where logs go instead.
  app.route("/", landingRoutes);

  app.use("/loki/api/*", observe, lokiContext);
  app.use("/api/prom/*", observe, lokiContext);
  app.use("/prometheus/api/*", observe, lokiContext);
  app.route("/", queryRoutes);
  app.route("/", metaRoutes);
  app.route("/", formatRoutes);
  app.route("/", indexRoutes);
  app.route("/", tailRoutes);
  app.route("/", drilldownRoutes);
  app.route("/", rulesRoutes);
  app.route("/", adminRoutes);

  app.notFound(() => errorResponse(404, "404 page not found\n"));
  app.onError((err, c) => toErrorResponse(err, secretsOf(c.env ?? {})));
  return app;
}

const lokiContext = async (
  c: {
    req: { raw: Request };
    env: Env;
    executionCtx: ExecutionContext;
    set: (k: "loki", v: LokiRequest) => void;
    get: (k: "telemetry") => RequestTelemetry;
  },
  next: () => Promise<void>,
) => {
  const config = configOf(c.env);
  const bound = await authenticate(config.tenancy, c.req.raw.headers.get("Authorization"));
  c.set("loki", await buildLokiRequest(c.req.raw, config, bound, waitUntilOf(c), c.get("telemetry")));
  await next();
};

export function toErrorResponse(err: unknown, secrets: string[] = []): Response {
  // Every layer's failures are RequestErrors: Loki's message, and a kind that picks the status.
  if (err instanceof RequestError) return errorResponse(statusOf(err), redactSecrets(err.message, secrets));
  if (err instanceof LogQLParseError) return errorResponse(400, err.message);
  if (err instanceof ConfigError) return errorResponse(500, `configuration error: ${err.message}`);
  console.error("unhandled error", redactSecrets(errorSummary(err), secrets));
  return errorResponse(500, "internal error");
}

/**
 * What an unexpected error leaves in the log: its kind and where it was thrown, never its message
 * (nor the message line of its stack), which may quote what the client sent (a query, a parameter).
 */
function errorSummary(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const frames = (err.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 8)
    .map((line) => line.trim());
  return [err.name, ...frames].join(" | ");
}

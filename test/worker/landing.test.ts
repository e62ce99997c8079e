/**
 * What a browser or a log shipper gets: `/` explains the Worker in plain text (no configuration,
 * no tenant data, no credentials needed), and Loki's push endpoints answer Loki's 404 with a body
 * that says this is a read API and where VictoriaLogs takes pushes.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { GATEWAY } from "./support/gateway";
import { fetchWorker } from "./support/request";

const SECRET_ORIGIN = "https://vl-user:s3cret-origin-password@victorialogs.internal.example:9428";

type Init = { method?: string; headers?: Record<string, string>; body?: string };

/** Sent with exactly the headers given: the landing page and push answers are checked without a tenant too. */
async function call(path: string, init: Init = {}, extraEnv: Partial<Env> = {}) {
  const res = await fetchWorker(path, {}, { ...init, noGateway: true, env: extraEnv });
  return { status: res.status, type: res.headers.get("Content-Type"), body: await res.text() };
}

const PUSH_BODY = JSON.stringify({ streams: [{ stream: { app: "x" }, values: [["1769990400000000000", "hi"]] }] });

describe("/", () => {
  it("answers 200 text/plain saying what this is, /ready and where the docs are, without credentials", async () => {
    const a = await call("/");
    expect(a.status).toBe(200);
    expect(a.type).toBe("text/plain; charset=utf-8");
    expect(a.body).toMatch(/^loki-vl-worker: Grafana Loki's read API, answered from VictoriaLogs\.\n/);
    expect(a.body).toContain("/ready ");
    expect(a.body).toContain("https://grafana.com/docs/loki/latest/reference/loki-http-api/");
    expect(a.body).toContain("README");
  });

  it("names no configuration: the same text whatever the origin and its credentials", async () => {
    const plain = await call("/");
    const configured = await call("/", {}, { ORIGIN_URL: SECRET_ORIGIN, AUTH_TOKEN: "tok-123456" } as Partial<Env>);
    expect(configured.body).toBe(plain.body);
    expect(configured.body).not.toContain("s3cret");
    expect(configured.body).not.toContain("victorialogs.internal");
    expect(configured.body).not.toContain("tok-123456");
  });

  it("HEAD answers like GET without a body", async () => {
    const a = await call("/", { method: "HEAD" });
    expect(a.status).toBe(200);
    expect(a.body).toBe("");
  });

  it("other unknown paths keep Loki's bare 404", async () => {
    const a = await call("/nothing/here", { headers: GATEWAY });
    expect(a.status).toBe(404);
    expect(a.body).toBe("404 page not found\n");
  });
});

describe("push endpoints", () => {
  for (const path of ["/loki/api/v1/push", "/api/prom/push", "/otlp/v1/logs"]) {
    it(`POST ${path} answers 404 saying this is a read API and where VictoriaLogs takes pushes`, async () => {
      for (const headers of [
        { ...GATEWAY, "Content-Type": "application/json" },
        { "Content-Type": "application/json" },
      ]) {
        const a = await call(path, { method: "POST", headers, body: PUSH_BODY });
        expect(a.status, a.body).toBe(404);
        expect(a.type).toBe("text/plain; charset=utf-8");
        expect(a.body).toMatch(/^404 page not found: loki-vl-worker serves Loki's read API only/);
        expect(a.body).toContain("/insert/loki/api/v1/push");
        expect(a.body).toContain("/insert/opentelemetry/v1/logs");
      }
    });
  }

  it("never names the configured origin", async () => {
    const a = await call("/loki/api/v1/push", { method: "POST", headers: GATEWAY, body: PUSH_BODY }, {
      ORIGIN_URL: SECRET_ORIGIN,
    } as Partial<Env>);
    expect(a.status).toBe(404);
    expect(a.body).not.toContain("victorialogs.internal");
    expect(a.body).not.toContain("s3cret");
  });
});

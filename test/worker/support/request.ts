/**
 * Requests to the Worker as the workerd suites make them: through the gateway (GATEWAY headers, so
 * header tenancy accepts them) unless a test names other headers, with the query parameters
 * encoded, and the answer read once into status, text and (when it is JSON) the parsed body.
 *
 * Without `env` the request goes to the Worker as configured for the tests (its own bindings and
 * execution context). With `env` the Worker's fetch is called directly with those variables over
 * the test configuration (`CACHE: "off"`, `PUSHDOWN: "off"`, a limit): what a deployment with
 * those settings would answer.
 */
import { env as testEnv, exports } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../../src/index";
import type { Env } from "../../../src/config";
import { GATEWAY } from "./gateway";

/** Query parameters; a list is sent as the parameter repeated (`match[]=a&match[]=b`). */
export type Params = Record<string, string | readonly string[]>;

export interface CallOptions {
  /** Headers sent over the gateway's (an `X-Scope-OrgID` here replaces the gateway's tenant). */
  headers?: Record<string, string>;
  /** Send these headers instead of the gateway's (for requests that must arrive without a tenant). */
  noGateway?: boolean;
  /** Variables over the test configuration; the Worker's fetch is then called directly. */
  env?: Partial<Env>;
  /** With `env`: wait for the work the answer left running (cache writes) before returning. */
  settle?: boolean;
  method?: string;
  body?: BodyInit;
}

export interface Answer {
  status: number;
  headers: Headers;
  /** The body as sent. */
  body: string;
  /** The body parsed, when it is JSON; undefined otherwise. Each test reads it by the shape it expects. */
  json: any;
}

const BASE = "http://loki.test";

export function url(path: string, params: Params = {}): string {
  const qs = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const one of typeof value === "string" ? [value] : value) qs.append(name, one);
  }
  const query = qs.toString();
  return `${BASE}${path}${query ? `?${query}` : ""}`;
}

/** The Worker's raw response (for tests that read it as a stream or check its headers first). */
export async function fetchWorker(path: string, params: Params = {}, opts: CallOptions = {}): Promise<Response> {
  const headers = opts.noGateway ? { ...opts.headers } : { ...GATEWAY, ...opts.headers };
  const init: RequestInit = {
    method: opts.method ?? "GET",
    headers,
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  };
  if (opts.env === undefined) {
    return (exports as unknown as { default: Fetcher }).default.fetch(url(path, params), init);
  }
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(url(path, params), init) as Request<unknown, IncomingRequestCfProperties>,
    { ...(testEnv as Env), ...opts.env },
    ctx,
  );
  if (!opts.settle) return res;
  const body = await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return new Response(body, res);
}

/** Any path: the answer's status, text and parsed JSON. */
export async function call(path: string, params: Params = {}, opts: CallOptions = {}): Promise<Answer> {
  const res = await fetchWorker(path, params, opts);
  const body = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, body, json };
}

export const query = (params: Params, opts?: CallOptions) => call("/loki/api/v1/query", params, opts);
export const queryRange = (params: Params, opts?: CallOptions) => call("/loki/api/v1/query_range", params, opts);
export const labels = (params: Params = {}, opts?: CallOptions) => call("/loki/api/v1/labels", params, opts);
export const labelValues = (name: string, params: Params = {}, opts?: CallOptions) =>
  call(`/loki/api/v1/label/${encodeURIComponent(name)}/values`, params, opts);
export const series = (params: Params, opts?: CallOptions) => call("/loki/api/v1/series", params, opts);

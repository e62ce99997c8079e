/**
 * Everything a route needs about one request, built once by middleware: configuration, merged
 * GET/POST parameters, the tenant-scoped origin client, the clock and the response flavour.
 */
import type { Config } from "../config";
import { OriginClient, type Tenant } from "../origin/client";
import { originConfigOf, originTransport } from "../cache/wire";
import { type RawParams, rawParamsFrom } from "./params";
import { resolveTenant } from "./tenant";

export interface LokiRequest {
  config: Config;
  params: RawParams;
  client: OriginClient;
  nowNs: bigint;
  /** X-Loki-Response-Encoding-Flags: categorize-labels */
  categorize: boolean;
  signal: AbortSignal;
  startedAt: number;
}

/** `boundTenant`: the tenant the caller's credential is bound to (auth/credentials.ts), if any. */
export async function buildLokiRequest(req: Request, config: Config, boundTenant?: Tenant): Promise<LokiRequest> {
  const url = new URL(req.url);
  let form: URLSearchParams | undefined;
  if (req.method === "POST") {
    const type = req.headers.get("Content-Type") ?? "";
    if (type.includes("application/x-www-form-urlencoded")) form = new URLSearchParams(await req.text());
    else if (type.includes("multipart/form-data")) {
      form = new URLSearchParams();
      for (const [k, v] of await req.formData()) if (typeof v === "string") form.append(k, v);
    }
  }
  const tenant = resolveTenant(config.tenancy, boundTenant, req.headers.get("X-Scope-OrgID"));
  const flags = req.headers.get("X-Loki-Response-Encoding-Flags") ?? "";
  return {
    config,
    params: rawParamsFrom(url.searchParams, form),
    client: new OriginClient(originConfigOf(config), tenant, req.signal, originTransport(config)),
    nowNs: BigInt(Date.now()) * 1_000_000n,
    categorize: flags.split(",").some((f) => f.trim() === "categorize-labels"),
    signal: req.signal,
    startedAt: Date.now(),
  };
}

export function jsonResponse(body: string, status = 200): Response {
  return new Response(body, { status, headers: { "Content-Type": "application/json; charset=UTF-8" } });
}

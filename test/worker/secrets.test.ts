/**
 * Secrets sweep: with canary values in every secret (origin header, origin URL credentials, client
 * tokens, the TENANTS secret itself), every route and every error path — bad auth, bad tenant,
 * parse errors, origin down, an origin answering 401/500 with the credentials it received echoed
 * back — is exercised through the real Worker, and nothing it answered (status line aside: bodies
 * and headers) holds a canary in any encoding. Console output is scanned by test/support/console-scan.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { toErrorResponse } from "../../src/app";
import { secretsOf } from "../../src/http/redact";
import { consoleLines } from "../support/console-scan";
import type { Env } from "../../src/config";
import { CANARIES, findLeaks } from "../support/secret-scan";
import { fetchWorker } from "./support/request";

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const TENANTS = JSON.stringify({
  "team-a": {
    tenant: "0:0",
    token_sha256: [await sha256Hex(CANARIES.TENANT_A_TOKEN), await sha256Hex(CANARIES.TENANT_A_ROTATED)],
  },
  "team-b": { tenant: "42:0", token_sha256: [await sha256Hex(CANARIES.TENANT_B_TOKEN)] },
});

/** Everything that must never be answered: the canaries, the stored hashes, the TENANTS secret. */
const SECRETS: Record<string, string> = {
  ...CANARIES,
  TENANTS,
  TENANT_A_HASH: await sha256Hex(CANARIES.TENANT_A_TOKEN),
  TENANT_B_HASH: await sha256Hex(CANARIES.TENANT_B_TOKEN),
  URL_BASIC_PAIR: `cnry-urluser:${CANARIES.ORIGIN_URL_PASSWORD}`,
};

const ORIGIN = inject("originUrl");
const ECHOING = inject("echoingOriginUrl");
const withUrlCredentials = (base: string) =>
  base.replace("://", `://cnry-urluser:${encodeURIComponent(CANARIES.ORIGIN_URL_PASSWORD)}@`);

const CREDENTIALS: Partial<Env> = { TENANCY: undefined, TENANTS, ORIGIN_AUTH_HEADER: CANARIES.ORIGIN_AUTH_HEADER };
const A = { Authorization: `Basic ${btoa(`team-a:${CANARIES.TENANT_A_TOKEN}`)}` };
const B = { Authorization: `Bearer ${CANARIES.TENANT_B_TOKEN}` };

const WINDOW = "start=1769904000&end=1769925600";
const SEL = encodeURIComponent('{app="nginx"}');
const ROUTES = [
  `/loki/api/v1/query_range?query=${SEL}&${WINDOW}&limit=5`,
  `/loki/api/v1/query?query=${encodeURIComponent(`count_over_time(${'{app="nginx"}'}[5m])`)}&time=1769925600`,
  `/loki/api/v1/labels?${WINDOW}`,
  `/loki/api/v1/label/app/values?${WINDOW}`,
  `/loki/api/v1/series?match[]=${SEL}&${WINDOW}`,
  `/loki/api/v1/index/stats?query=${SEL}&${WINDOW}`,
  `/loki/api/v1/index/volume?query=${SEL}&${WINDOW}`,
  `/loki/api/v1/index/volume_range?query=${SEL}&${WINDOW}&step=3600`,
  `/loki/api/v1/format_query?query=${SEL}`,
  `/loki/api/v1/detected_labels?query=${SEL}&${WINDOW}`,
  `/loki/api/v1/detected_fields?query=${SEL}&${WINDOW}`,
  `/loki/api/v1/detected_field/method/values?query=${SEL}&${WINDOW}`,
  `/loki/api/v1/patterns?query=${SEL}&${WINDOW}`,
  "/loki/api/v1/drilldown-limits",
  `/loki/api/v1/tail?query=${SEL}`,
  `/api/prom/query?query=${SEL}&${WINDOW}`,
  `/api/prom/label?${WINDOW}`,
  "/loki/api/v1/status/buildinfo",
  "/ready",
  "/no/such/route",
];

interface Answer {
  status: number;
  text: string;
}

async function call(path: string, overrides: Partial<Env>, headers: Record<string, string> = {}): Promise<Answer> {
  // Sent as each caller sends it: the anonymous one without the gateway's tenant.
  const res = await fetchWorker(path, {}, { headers, noGateway: true, env: overrides });
  const head = [...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n");
  return { status: res.status, text: `${head}\n\n${await res.text()}` };
}

function expectNoLeak(answer: Answer, what: string): void {
  expect(findLeaks(answer.text, SECRETS), `${what} answered ${answer.status}`).toEqual([]);
}

describe("no secret in any answer", () => {
  it("every route, as tenant A, as tenant B and anonymously", async () => {
    const statuses = new Map<string, number[]>();
    for (const path of ROUTES) {
      for (const [who, headers] of [
        ["A", A],
        ["B", B],
        ["anonymous", {}],
      ] as const) {
        const answer = await call(path, CREDENTIALS, headers);
        expectNoLeak(answer, `${who} ${path}`);
        statuses.set(path, [...(statuses.get(path) ?? []), answer.status]);
      }
    }
    // The sweep reached the routes: A's and B's data routes answered, anonymous ones were refused.
    expect(statuses.get(ROUTES[0]!)).toEqual([200, 200, 401]);
    expect(statuses.get(`/loki/api/v1/labels?${WINDOW}`)).toEqual([200, 200, 401]);
    expect(statuses.get("/ready")).toEqual([200, 200, 200]);
  });

  it("bad credentials and bad tenants", async () => {
    const cases: [Partial<Env>, Record<string, string>, number][] = [
      [CREDENTIALS, { Authorization: `Basic ${btoa(`team-b:${CANARIES.TENANT_A_TOKEN}`)}` }, 401],
      [CREDENTIALS, { Authorization: `Bearer ${CANARIES.TENANT_A_TOKEN}x` }, 401],
      [CREDENTIALS, { Authorization: `Bearer ${CANARIES.AUTH_TOKEN}` }, 401],
      [CREDENTIALS, { ...B, "X-Scope-OrgID": "team-a" }, 403],
      // A multi-tenant id naming tenants this credential may not read: refused like a single one.
      [CREDENTIALS, { ...A, "X-Scope-OrgID": "1|2" }, 403],
      [{ TENANCY: undefined, AUTH_TOKEN: CANARIES.AUTH_TOKEN }, { Authorization: "Bearer wrong" }, 401],
      [
        { TENANCY: undefined, AUTH_TOKEN: CANARIES.AUTH_TOKEN },
        { Authorization: `Bearer ${CANARIES.AUTH_TOKEN}` },
        200,
      ],
      [{ TENANCY: undefined, AUTH_TOKEN: CANARIES.AUTH_TOKEN }, { "X-Scope-OrgID": "7" }, 401],
    ];
    for (const [overrides, headers, status] of cases) {
      const answer = await call(ROUTES[0]!, overrides, headers);
      expect(answer.status).toBe(status);
      expectNoLeak(answer, JSON.stringify(Object.keys(headers)));
    }
  });

  it("parse errors and bad parameters", async () => {
    for (const path of [
      `/loki/api/v1/query_range?query=${encodeURIComponent('{app="nginx"')}&${WINDOW}`,
      `/loki/api/v1/query?query=${encodeURIComponent("sum(")}&time=1769925600`,
      `/loki/api/v1/query_range?query=${SEL}&start=nope`,
      `/loki/api/v1/query_range?query=${SEL}&${WINDOW}&limit=-1`,
    ]) {
      const answer = await call(path, CREDENTIALS, A);
      expect(answer.status).toBe(400);
      expectNoLeak(answer, path);
    }
  });

  it("configuration errors do not echo the secret they could not read", async () => {
    const broken = `{"team-a": {"tenant": "0:0", "token_sha256": "${CANARIES.TENANT_A_TOKEN}"`;
    const answer = await call(ROUTES[0]!, { ...CREDENTIALS, TENANTS: broken }, A);
    expect(answer.status).toBe(500);
    expect(answer.text).toContain("configuration error: TENANTS is not valid JSON");
    expectNoLeak(answer, "malformed TENANTS");
  });

  it("an unreachable origin with credentials in its URL", async () => {
    for (const path of ROUTES.slice(0, 8)) {
      const overrides = { ...CREDENTIALS, CACHE: "off", ORIGIN_URL: withUrlCredentials("http://127.0.0.1:1") };
      const answer = await call(path, overrides, A);
      expect(answer.status, path).toBe(502);
      expectNoLeak(answer, path);
    }
  });

  it("an origin answering 401 or 500 that echoes the credentials it was sent", async () => {
    let relayed = 0;
    for (const status of [401, 403, 500, 503]) {
      for (const headerSecret of [
        { ORIGIN_AUTH_HEADER: CANARIES.ORIGIN_AUTH_HEADER },
        { ORIGIN_AUTH_HEADER: undefined },
      ]) {
        for (const path of ROUTES.slice(0, 8)) {
          const overrides = {
            ...CREDENTIALS,
            ...headerSecret,
            CACHE: "off",
            ORIGIN_URL: withUrlCredentials(`${ECHOING}/${status}`),
          };
          const answer = await call(path, overrides, A);
          expect(answer.status, `${status} ${path}`).toBe(502);
          expectNoLeak(answer, `origin ${status} ${path}`);
          if (answer.text.includes("Authorization")) relayed++;
        }
      }
    }
    // The origin's text never reaches an answer at all (only its status is named), so neither
    // can what it echoed.
    expect(relayed).toBe(0);
  });

  it("the real origin still answers with the canary origin header configured", async () => {
    const answer = await call(ROUTES[0]!, { ...CREDENTIALS, ORIGIN_URL: ORIGIN }, A);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text.slice(answer.text.indexOf("\n\n") + 2)).data.result.length).toBeGreaterThan(0);
  });

  it("an unexpected exception is logged and answered without the secret it carried", async () => {
    const secrets = secretsOf({ ...(env as Env), ...CREDENTIALS, AUTH_TOKEN: CANARIES.AUTH_TOKEN });
    const res = toErrorResponse(
      new Error(`boom near ${CANARIES.AUTH_TOKEN} and ${CANARIES.ORIGIN_AUTH_HEADER}`),
      secrets,
    );
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("internal error");
    const logged = consoleLines().find((line) => line.startsWith("unhandled error"));
    // Its kind and where it was thrown; the message (which may quote the request) not at all.
    expect(logged).toMatch(/^unhandled error Error \| at /);
    expect(logged).not.toContain("boom");
    expect(logged).not.toContain(CANARIES.AUTH_TOKEN);
  });
});

describe("console scan", () => {
  it("records what code in this runtime writes to the console", () => {
    console.info("console-scan probe line");
    expect(consoleLines().at(-1)).toBe("console-scan probe line");
  });
});

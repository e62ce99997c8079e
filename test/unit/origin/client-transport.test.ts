import { describe, expect, it } from "vitest";
import { OriginClient, type JsonRequest, type JsonTransport } from "../../../src/origin/client";
import { RequestError } from "../../../src/core/errors";
import { statusOf } from "../../../src/http/errors";

const WINDOW = { start: 1714557600000000000n, end: 1714561200000000000n };
const CONFIG = { baseUrl: "http://vl:9428", authorization: "Basic c2VjcmV0", timeoutMs: 1000 };

function recording(answer: { status: number; body: string }) {
  const seen: JsonRequest[] = [];
  const transport: JsonTransport = async (r) => {
    seen.push(r);
    return answer;
  };
  return { seen, transport };
}

describe("OriginClient over an injected JsonTransport", () => {
  it("sends values() through the transport with tenant, window, path and form, never credentials", async () => {
    const t = recording({ status: 200, body: '{"values":[{"value":"app","hits":3}]}' });
    const client = new OriginClient(CONFIG, { accountId: 3, projectId: 4 }, undefined, t.transport);
    const res = await client.values("stream_field_values", "*", WINDOW, { field: "app" });
    expect(res).toEqual({ values: [{ value: "app", hits: 3 }] });
    expect(t.seen).toHaveLength(1);
    const r = t.seen[0]!;
    expect(r.path).toBe("/select/logsql/stream_field_values");
    expect(r.tenant).toEqual({ accountId: 3, projectId: 4 });
    expect(r.window).toEqual(WINDOW);
    expect(r.form).toEqual([
      ["query", "_time:[2024-05-01T10:00:00.000000000Z, 2024-05-01T11:00:00.000000000Z) *"],
      ["start", "2024-05-01T10:00:00.000000000Z"],
      ["end", "2024-05-01T11:00:00.000000000Z"],
      ["field", "app"],
    ]);
    expect(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain("c2VjcmV0");
  });

  it("keeps the transport when narrowed to another signal", async () => {
    const t = recording({ status: 200, body: '{"hits":[]}' });
    const client = new OriginClient(CONFIG, { accountId: 0, projectId: 0 }, undefined, t.transport);
    await client.withSignal(new AbortController().signal).hits("*", WINDOW, { step: "60s" });
    expect(t.seen.map((r) => r.path)).toEqual(["/select/logsql/hits"]);
  });

  it("maps error statuses as for direct requests", async () => {
    const answeredFor = async (status: number) => {
      const client = new OriginClient(
        CONFIG,
        { accountId: 0, projectId: 0 },
        undefined,
        recording({ status, body: "x" }).transport,
      );
      const err = await client.statsQueryRange("*", WINDOW, "60s").catch((e: unknown) => e);
      return err instanceof RequestError ? statusOf(err) : "not a RequestError";
    };
    expect(await answeredFor(400)).toBe(502);
    expect(await answeredFor(422)).toBe(502);
    expect(await answeredFor(401)).toBe(502);
    expect(await answeredFor(408)).toBe(504);
    expect(await answeredFor(503)).toBe(502);
  });

  it("names the origin's status but never echoes its body", async () => {
    const body = "query parse error near secret-internal-host:9428 <html>";
    const messageOf = async (status: number) => {
      const client = new OriginClient(
        CONFIG,
        { accountId: 0, projectId: 0 },
        undefined,
        recording({ status, body }).transport,
      );
      return ((await client.values("field_names", "*", WINDOW).catch((e: unknown) => e)) as RequestError).message;
    };
    expect(await messageOf(400)).toBe("origin rejected the planned query (HTTP 400)");
    expect(await messageOf(503)).toBe("origin failed (HTTP 503)");
    expect(await messageOf(401)).toBe("origin rejected the request's credentials (HTTP 401)");
  });

  it("rejects a 200 that is not the endpoint's JSON as 502, without quoting it", async () => {
    const errorOf = async (body: string) => {
      const client = new OriginClient(
        CONFIG,
        { accountId: 0, projectId: 0 },
        undefined,
        recording({ status: 200, body }).transport,
      );
      return (await client.values("stream_field_names", "*", WINDOW).catch((e: unknown) => e)) as RequestError;
    };
    const html = await errorOf("<html><body>proxy-page</body></html>");
    expect(statusOf(html)).toBe(502);
    expect(html.message).toBe("origin sent an invalid answer: not JSON from /select/logsql/stream_field_names");
    const cut = await errorOf('{"values":[{"value":"app","hi');
    expect([statusOf(cut), cut.message]).toEqual([
      502,
      "origin sent an invalid answer: not JSON from /select/logsql/stream_field_names",
    ]);
    const wrong = await errorOf('{"values":[{"value":1}]}');
    expect([statusOf(wrong), wrong.message]).toEqual([
      502,
      "origin sent an invalid answer: not the expected JSON shape from /select/logsql/stream_field_names",
    ]);
  });

  it("reports a transport that never answers as a 504 after the timeout", async () => {
    const hang: JsonTransport = (_r, signal) =>
      new Promise((_res, rej) => signal.addEventListener("abort", () => rej(signal.reason)));
    const client = new OriginClient({ ...CONFIG, timeoutMs: 20 }, { accountId: 0, projectId: 0 }, undefined, hang);
    const err = await client.values("field_names", "*", WINDOW).catch((e: unknown) => e);
    expect(statusOf(err as RequestError)).toBe(504);
  });

  it("reports the caller's own cancellation as 499", async () => {
    const hang: JsonTransport = (_r, signal) =>
      new Promise((_res, rej) => signal.addEventListener("abort", () => rej(signal.reason)));
    const ac = new AbortController();
    const client = new OriginClient(CONFIG, { accountId: 0, projectId: 0 }, ac.signal, hang);
    const p = client.values("field_names", "*", WINDOW).catch((e: unknown) => e);
    ac.abort();
    expect(statusOf((await p) as RequestError)).toBe(499);
  });
});

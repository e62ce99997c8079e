/**
 * Live tail follows ingestion: lines pushed to the real VictoriaLogs while a tail is open arrive
 * exactly once, whatever their timestamp and whether their stream is new, and nothing else
 * arrives — including a burst, and across an outage of the origin connection. Each case works in a
 * tenant of its own, so the pushed lines are the only data the tail can see besides what it must
 * ignore.
 */
import { env, exports } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import worker from "../../src/index";
import type { Env } from "../../src/config";

const ORIGIN = inject("originUrl");
const PROXY = inject("outageProxyUrl");
const defaultWorker = (exports as unknown as { default: Fetcher }).default;
/** Lines must arrive this soon after the last push (a new stream takes VictoriaLogs up to ~11 s). */
const ARRIVAL_BOUND_MS = 25_000;

type Line = [ts: bigint, line: string];

async function push(tenant: number, app: string, lines: Line[]): Promise<void> {
  const res = await fetch(`${ORIGIN}/insert/loki/api/v1/push?disable_message_parsing=1`, {
    method: "POST",
    headers: { "Content-Type": "application/json", AccountID: String(tenant), ProjectID: "0" },
    body: JSON.stringify({ streams: [{ stream: { app }, values: lines.map(([ts, l]) => [String(ts), l]) }] }),
  });
  expect(res.status).toBe(204);
}

const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A tail's received entries as "ts line" strings, in arrival order. */
class TailClient {
  readonly got: string[] = [];
  readonly frames: Record<string, unknown>[] = [];
  /** When the last entry arrived, ms since the epoch. */
  lastArrival = 0;
  closed: string | undefined;
  constructor(readonly ws: WebSocket) {
    ws.accept();
    ws.addEventListener("message", (ev) => {
      const frame = JSON.parse(String(ev.data)) as { streams: { values: [string, string][] }[] };
      this.frames.push(frame);
      for (const s of frame.streams) for (const [ts, line] of s.values) this.got.push(`${ts} ${line}`);
      this.lastArrival = Date.now();
    });
    ws.addEventListener("close", (ev) => {
      this.closed = `${ev.code} ${ev.reason}`;
    });
  }

  async waitFor(count: number, boundMs: number): Promise<void> {
    const deadline = Date.now() + boundMs;
    while (this.got.length < count && Date.now() < deadline && !this.closed) await sleep(100);
  }
}

async function openTail(tenant: number, app: string, extra: Record<string, string> = {}, overrides?: Partial<Env>) {
  const qs = new URLSearchParams({ query: `{app="${app}"}`, start: String(nowNs()), ...extra });
  const req = new Request(`http://loki.test/loki/api/v1/tail?${qs}`, {
    headers: { Upgrade: "websocket", "X-Scope-OrgID": `${tenant}:0` },
  });
  const res = overrides
    ? await worker.fetch(
        req as Request<unknown, IncomingRequestCfProperties>,
        { ...(env as Env), ...overrides },
        createExecutionContext(),
      )
    : await defaultWorker.fetch(req);
  expect(res.status).toBe(101);
  const client = new TailClient(res.webSocket!);
  // Let the tail take its snapshot of what already exists before anything is pushed.
  await sleep(2000);
  return client;
}

function lines(app: string, n: number, firstTs: bigint, stepNs = 1_000_000n): Line[] {
  return Array.from({ length: n }, (_, i) => [firstTs + BigInt(i) * stepNs, `${app} line ${i}`] as Line);
}

const asGot = (ls: Line[]) => ls.map(([ts, l]) => `${ts} ${l}`);

/** Every pushed line exactly once, nothing else, also after a quiet period for late duplicates. */
async function expectExactly(tail: TailClient, want: Line[]): Promise<void> {
  await tail.waitFor(want.length, ARRIVAL_BOUND_MS);
  await sleep(3000);
  tail.ws.close(1000, "done");
  expect(tail.closed).toBeUndefined();
  expect([...tail.got].sort()).toEqual(asGot(want).sort());
}

describe("live tail follows ingestion", () => {
  it("a new stream: every line pushed during the tail arrives once", async () => {
    const app = `tail-new-${Date.now()}`;
    const tail = await openTail(9101, app);
    const firstPush = Date.now();
    const pushed: Line[] = [];
    for (let i = 0; i < 4; i++) {
      const batch = lines(`${app}-${i}`, 3, nowNs()).map(([ts, l]) => [ts, l] as Line);
      await push(9101, app, batch);
      pushed.push(...batch);
      await sleep(700);
    }
    await expectExactly(tail, pushed);
    // A new stream waits for VictoriaLogs' stream index (measured up to ~11 s), not for the tail.
    expect(tail.lastArrival - firstPush).toBeLessThan(ARRIVAL_BOUND_MS);
  });

  it("an existing stream with delay_for=3: only the lines pushed during the tail, once", async () => {
    // Stamped 4 s before their push, as a shipper's batch is: older than the delayed edge.
    const app = `tail-old-${Date.now()}`;
    await push(9102, app, lines(`${app}-before`, 5, nowNs() - 5_000_000_000n));
    await sleep(3000);
    const tail = await openTail(9102, app, { delay_for: "3" });
    const pushed: Line[] = [];
    for (let i = 0; i < 4; i++) {
      const batch = lines(`${app}-${i}`, 3, nowNs() - 4_000_000_000n);
      await push(9102, app, batch);
      pushed.push(...batch);
      await sleep(500);
    }
    await expectExactly(tail, pushed);
  });

  it("lines stamped 20 s in the past arrive once, within seconds of being pushed", async () => {
    const app = `tail-late-${Date.now()}`;
    await push(9103, app, lines(`${app}-seed`, 1, nowNs()));
    await sleep(3000);
    const tail = await openTail(9103, app);
    const pushed = lines(app, 12, nowNs() - 20_000_000_000n);
    const pushedAt = Date.now();
    await push(9103, app, pushed);
    await expectExactly(tail, pushed);
    // Visible about 1 s after the push, then at most one poll (1 s) and its query.
    expect(tail.lastArrival - pushedAt).toBeLessThan(4000);
  });

  it("a burst of 600 lines arrives once, in frames of at most 100 entries", async () => {
    const app = `tail-burst-${Date.now()}`;
    await push(9104, app, lines(`${app}-seed`, 1, nowNs()));
    await sleep(3000);
    const tail = await openTail(9104, app);
    const pushed = lines(app, 600, nowNs() - 1_000_000_000n, 1000n);
    await push(9104, app, pushed);
    await expectExactly(tail, pushed);
    for (const f of tail.frames) {
      const n = (f.streams as { values: unknown[] }[]).reduce((a, s) => a + s.values.length, 0);
      expect(n).toBeLessThanOrEqual(100);
      expect(f).not.toHaveProperty("dropped_entries");
    }
  });

  it("an outage of the origin connection loses and repeats nothing", async () => {
    const app = `tail-outage-${Date.now()}`;
    const tail = await openTail(9105, app, {}, { ORIGIN_URL: PROXY });
    const before = lines(`${app}-a`, 6, nowNs());
    await push(9105, app, before);
    await tail.waitFor(6, ARRIVAL_BOUND_MS);
    expect(tail.got.length).toBe(6);
    const outage = await fetch(`${PROXY}/__outage?ms=5000`, { method: "POST" });
    expect(await outage.text()).toBe("ok");
    const during = lines(`${app}-b`, 6, nowNs());
    await push(9105, app, during);
    await sleep(2500);
    const after = lines(`${app}-c`, 6, nowNs());
    await push(9105, app, after);
    await expectExactly(tail, [...before, ...during, ...after]);
  });

  it("/api/prom/tail answers in Loki's legacy frame shape", async () => {
    const app = `tail-legacy-${Date.now()}`;
    const qs = new URLSearchParams({ query: `{app="${app}"}`, start: String(nowNs()) });
    const res = await defaultWorker.fetch(`http://loki.test/api/prom/tail?${qs}`, {
      headers: { Upgrade: "websocket", "X-Scope-OrgID": "9106:0" },
    });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const frame = new Promise<string>((resolve) => ws.addEventListener("message", (ev) => resolve(String(ev.data))));
    await sleep(2000);
    const wholeSecondMs = Math.floor(Date.now() / 1000) * 1000 - 3000;
    await push(9106, app, [[BigInt(wholeSecondMs) * 1_000_000n + 123_400_000n, "legacy line"]]);
    const rfc3339 = new Date(wholeSecondMs).toISOString().replace(".000Z", ".1234Z");
    const got = await Promise.race([frame, sleep(ARRIVAL_BOUND_MS).then(() => "timeout")]);
    ws.close(1000, "done");
    expect(got).toBe(
      `{"streams":[{"labels":"{app=\\"${app}\\"}","entries":[{"ts":"${rfc3339}","line":"legacy line"}]}],"dropped_entries":null}`,
    );
  });
});

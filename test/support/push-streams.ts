/**
 * Pushes Loki streams into a tenant of the test VictoriaLogs, then waits until `ready` says the
 * Worker sees them: new streams answer stream filters only once VictoriaLogs flushes its stream
 * index (about 10 s), so a test that asked at once would see nothing.
 */
import { expect, inject } from "vitest";

export async function pushStreams(
  tenant: string,
  streams: unknown[],
  /** True when the pushed data answers in full; otherwise a text saying what is still missing. */
  ready: () => Promise<true | string>,
): Promise<void> {
  const [accountId, projectId] = tenant.split(":");
  const res = await fetch(`${inject("originUrl")}/insert/loki/api/v1/push?disable_message_parsing=1`, {
    method: "POST",
    headers: { "Content-Type": "application/json", AccountID: accountId!, ProjectID: projectId ?? "0" },
    body: JSON.stringify({ streams }),
  });
  expect(res.status).toBe(204);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = await ready();
    if (state === true) return;
    if (Date.now() > deadline) throw new Error(`pushed data not searchable after 60 s: ${state}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

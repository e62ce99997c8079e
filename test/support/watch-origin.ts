/**
 * Counts requests to the origin where they leave the runtime: global fetch is wrapped (the Worker,
 * the Durable Object and the tests share one isolate in the test pool), so every request to the
 * origin — whoever makes it — is seen. Optionally holds each one, so concurrent callers overlap.
 */
import { afterEach } from "vitest";

export interface OriginCall {
  path: string;
  accountId: string | null;
  /** The form's query, start and end (empty when absent). */
  query: string;
  start: string;
  end: string;
}

let restore = () => {};
afterEach(() => restore());

/**
 * The calls made to `originBase` from now until the end of the current test. `before`, when given,
 * runs before each call is sent (with the fetch the runtime had before the watch, for requests of
 * its own), so a test can change the origin's data between a caller's requests; what it returns, if
 * anything, is the answer instead (an origin refusing what an older version cannot run).
 */
export function watchOrigin(
  originBase: string,
  delayMs = 0,
  before?: (call: OriginCall, fetch: typeof globalThis.fetch) => Promise<Response | void>,
): OriginCall[] {
  const calls: OriginCall[] = [];
  const real = globalThis.fetch;
  restore = () => (globalThis.fetch = real);
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.startsWith(originBase)) {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      const form = new URLSearchParams(typeof init?.body === "string" ? init.body : String(init?.body ?? ""));
      const call = {
        path: new URL(url).pathname,
        accountId: headers.get("AccountID"),
        query: form.get("query") ?? "",
        start: form.get("start") ?? "",
        end: form.get("end") ?? "",
      };
      calls.push(call);
      const answer = before ? await before(call, real) : undefined;
      if (answer) return answer;
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    }
    return real(input, init);
  }) as typeof fetch;
  return calls;
}

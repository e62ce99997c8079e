/**
 * The operator's origin check: one small LogsQL query, sent exactly as queries are (origin URL,
 * credentials, the caller's tenant), and what its answer says about the three things a query needs:
 * the origin answers at all, it accepts the configured credentials, and it speaks LogsQL. Only
 * fixed descriptions and the HTTP status are reported: the origin's own text may quote anything.
 */
import type { Tenant } from "../core/tenant";

export interface OriginCheck {
  /** An HTTP answer arrived within the timeout. */
  reachable: boolean;
  /** The origin did not refuse the credentials (401/403); null when nothing answered. */
  credentialsAccepted: boolean | null;
  /** The answer is the one row a LogsQL `stats` query returns; null when nothing answered. */
  answersLogsQL: boolean | null;
  /** The origin's HTTP status, when it answered. */
  httpStatus?: number;
  elapsedMs: number;
  /** What went wrong, in words that hold no value from the configuration or the origin. */
  problem?: string;
}

export interface ProbeTarget {
  originUrl: string;
  originAuthorization?: string;
  originTimeoutMs: number;
}

/**
 * Counts the last minute's rows: cheap on any origin, and only a LogsQL engine answers it with
 * exactly one JSON row holding a decimal count (an HTML page or another API's JSON does not).
 */
const PROBE_QUERY = "_time:1m | stats count() as rows";
/** The one-row answer is tiny; a longer body is not it, and is not read further. */
const MAX_ANSWER_BYTES = 4096;

export async function checkOrigin(target: ProbeTarget, tenant: Tenant): Promise<OriginCheck> {
  const started = performance.now();
  const elapsed = () => Number((performance.now() - started).toFixed(1));
  const headers: Record<string, string> = {
    "Content-Type": "application/x-www-form-urlencoded",
    AccountID: String(tenant.accountId),
    ProjectID: String(tenant.projectId),
  };
  if (target.originAuthorization !== undefined) headers.Authorization = target.originAuthorization;
  const timeout = AbortSignal.timeout(target.originTimeoutMs);
  let res: Response;
  try {
    res = await fetch(`${target.originUrl}/select/logsql/query`, {
      method: "POST",
      body: new URLSearchParams({ query: PROBE_QUERY }),
      headers,
      signal: timeout,
    });
  } catch {
    return {
      reachable: false,
      credentialsAccepted: null,
      answersLogsQL: null,
      elapsedMs: elapsed(),
      problem: timeout.aborted
        ? "the origin did not answer within ORIGIN_TIMEOUT_MS"
        : "the origin could not be reached (connection failed)",
    };
  }
  const httpStatus = res.status;
  if (httpStatus === 401 || httpStatus === 403) {
    await res.body?.cancel().catch(() => {});
    return {
      reachable: true,
      credentialsAccepted: false,
      answersLogsQL: false,
      httpStatus,
      elapsedMs: elapsed(),
      problem: `the origin refused the credentials (HTTP ${httpStatus}): check ORIGIN_AUTH_HEADER`,
    };
  }
  if (httpStatus !== 200) {
    await res.body?.cancel().catch(() => {});
    return {
      reachable: true,
      credentialsAccepted: true,
      answersLogsQL: false,
      httpStatus,
      elapsedMs: elapsed(),
      problem: `the origin answered a LogsQL query with HTTP ${httpStatus}`,
    };
  }
  const logsql = isCountRow(await readPrefix(res, MAX_ANSWER_BYTES));
  return {
    reachable: true,
    credentialsAccepted: true,
    answersLogsQL: logsql,
    httpStatus,
    elapsedMs: elapsed(),
    ...(logsql ? {} : { problem: "the origin's answer is not a LogsQL result: is ORIGIN_URL a VictoriaLogs?" }),
  };
}

/** Up to `max` bytes of the body as text; undefined when there are more. */
async function readPrefix(res: Response, max: number): Promise<string | undefined> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) return undefined;
      chunks.push(value);
    }
  } catch {
    return undefined;
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function isCountRow(text: string | undefined): boolean {
  if (text === undefined) return false;
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  if (lines.length !== 1) return false;
  try {
    const row: unknown = JSON.parse(lines[0]!);
    return (
      typeof row === "object" &&
      row !== null &&
      typeof (row as { rows?: unknown }).rows === "string" &&
      /^\d+$/.test((row as { rows: string }).rows)
    );
  } catch {
    return false;
  }
}

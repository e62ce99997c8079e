// Types for fault-proxy.mjs, for TypeScript callers (vitest globalSetup).
export const FAULT_BODY_MARKER: string;

export interface FaultProxy {
  /** Base URL to use as ORIGIN_URL, e.g. http://127.0.0.1:41235 */
  url: string;
  /** POST {"kind": ...} here to choose the fault; GET reports it and how many requests it hit. */
  controlUrl: string;
  /** Closes both servers and every connection they hold. */
  stop(): Promise<void>;
}

export function startFaultProxy(options: { target: string }): Promise<FaultProxy>;

// Types for outage-proxy.mjs, for TypeScript callers (vitest globalSetup).
export function startOutageProxy(targetUrl: string): Promise<{ url: string; stop(): Promise<void> }>;

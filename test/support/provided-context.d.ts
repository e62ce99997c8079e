// Values the global setup (Node) hands to tests running inside workerd.
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the real VictoriaLogs started for this run. */
    originUrl: string;
    /** The fault-injecting proxy in front of that VictoriaLogs (see fault-proxy.mjs). */
    faultProxyUrl: string;
    /** Where tests choose the proxy's fault. */
    faultControlUrl: string;
    /** The same origin behind a proxy that resets connections on `POST /__outage?ms=N`. */
    outageProxyUrl: string;
    /** Base URL of an origin that fails with the status in its first path segment, echoing credentials. */
    echoingOriginUrl: string;
  }
}

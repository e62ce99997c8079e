// Values the global setup (Node) hands to tests running inside workerd.
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the real VictoriaLogs started for this run. */
    originUrl: string;
    /** The same origin behind a proxy that resets connections on `POST /__outage?ms=N`. */
    outageProxyUrl: string;
  }
}

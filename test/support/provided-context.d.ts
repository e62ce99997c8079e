// Values the global setup (Node) hands to tests running inside workerd.
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the real VictoriaLogs started for this run. */
    originUrl: string;
    /** Base URL of an origin that fails with the status in its first path segment, echoing credentials. */
    echoingOriginUrl: string;
  }
}

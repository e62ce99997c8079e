/**
 * The origin client's settings, read from the Worker's configuration: the same for every request
 * and for the coalescer, which asks the origin on their behalf with the Worker's own credentials.
 */
import type { Config } from "../config";
import type { OriginConfig } from "./client";

export function originConfigOf(config: Config): OriginConfig {
  return {
    baseUrl: config.originUrl,
    authorization: config.originAuthorization,
    timeoutMs: config.originTimeoutMs,
    derivedFields: config.derivedFields,
  };
}

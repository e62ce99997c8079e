/**
 * A deployment's configuration is unusable. The message names the variable and the problem, never
 * the variable's value: the values of secrets must not reach a response body or a log line.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/**
 * The last guard between a secret and an error body: error messages can carry text the origin sent
 * back (a proxy in front of it may echo the request's Authorization header), so every message is
 * scrubbed of the configured secrets, in the forms they travel in, before it is answered.
 */
const REDACTED = "<redacted>";
/** Shorter values (a user name such as "admin") would blank out ordinary words, and are not secrets. */
const MIN_SECRET_LENGTH = 6;

/** The variables of Env (config.ts) that hold secrets. */
export interface SecretVars {
  ORIGIN_URL?: string;
  ORIGIN_AUTH_HEADER?: string;
  AUTH_TOKEN?: string;
  TENANTS?: string;
  TELEMETRY_KEY?: string;
  ADMIN_TOKEN?: string;
}

/** The secret values of this deployment and the encoded forms in which they leave the Worker. */
export function secretsOf(env: SecretVars): string[] {
  const found: string[] = [];
  const add = (value: string | undefined) => {
    if (value && value.length >= MIN_SECRET_LENGTH) found.push(value);
  };
  add(env.AUTH_TOKEN);
  add(env.TENANTS);
  add(env.TELEMETRY_KEY);
  add(env.ADMIN_TOKEN);
  const header = env.ORIGIN_AUTH_HEADER?.trim();
  if (header) {
    add(header);
    const credential = header.slice(header.indexOf(" ") + 1).trim();
    add(credential);
    if (/^basic /i.test(header)) {
      const decoded = decodeBase64(credential);
      add(decoded);
      if (decoded) add(decoded.slice(decoded.indexOf(":") + 1));
    }
  }
  try {
    const url = new URL(env.ORIGIN_URL ?? "");
    const password = decodeURIComponent(url.password);
    add(url.password);
    add(password);
    if (url.username || url.password) add(btoa(`${decodeURIComponent(url.username)}:${password}`));
  } catch {
    // An unparsable ORIGIN_URL is reported without its value (config.ts) and used for nothing.
  }
  return found;
}

export function redactSecrets(message: string, secrets: string[]): string {
  let out = message;
  // Longest first, so a secret that contains another is removed whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join(REDACTED);
  return out;
}

function decodeBase64(text: string): string | undefined {
  try {
    return atob(text);
  } catch {
    return undefined;
  }
}

/**
 * Strict secret scanner for test output: a secret counts as leaked when its text, any 12-character
 * piece of it (a truncated echo), its URL-encoded form, or its base64/base64url encoding appears —
 * the latter at each of the three byte alignments, so the secret is found inside a longer encoded
 * value too (a relayed `Basic base64(user:secret)` header).
 */
export { CANARIES } from "./canaries.mjs";

const PIECE = 12;

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Every form of `secret` whose presence counts as a leak. */
export function leakForms(secret: string): string[] {
  const forms = new Set<string>([secret, encodeURIComponent(secret)]);
  for (let offset = 0; offset < 3; offset++) {
    // Encoded after `offset` other bytes, the secret's first and last groups mix with its
    // neighbours; the groups between depend on the secret alone.
    const encoded = base64("\0".repeat(offset) + secret).replace(/=+$/, "");
    const whole = Math.floor((offset + new TextEncoder().encode(secret).length) / 3) * 4;
    const core = encoded.slice(offset === 0 ? 0 : 4, whole);
    forms.add(core);
    forms.add(core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  for (let i = 0; i + PIECE <= secret.length; i++) forms.add(secret.slice(i, i + PIECE));
  return [...forms].filter((f) => f.length >= Math.min(PIECE, secret.length));
}

/** The secrets (by label) found in `text`, in any of their leak forms. */
export function findLeaks(text: string, secrets: Record<string, string>): string[] {
  const leaked: string[] = [];
  for (const [label, secret] of Object.entries(secrets)) {
    if (leakForms(secret).some((form) => text.includes(form))) leaked.push(label);
  }
  return leaked;
}

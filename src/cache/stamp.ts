/**
 * Every stored entry carries two times in a first line of its own: when it stops being valid, and
 * when the origin was asked for it. Readers check both, so the policy's lifetime holds in every tier
 * (the isolate's memory keeps no time at all, KV keeps an entry at least 60 s, the Cache API keeps
 * it as long as it likes within max-age), and a purge can tell entries asked before it from those
 * asked after.
 */
import type { TimeWindow } from "../core/time-window";
import { type PurgeRecord, voidedBy } from "./purges";

const TAG = "e1";

export interface Stamp {
  /** Epoch ms after which the entry is a miss. */
  expiresAtMs: number;
  /** Epoch ms when the origin was asked for what the entry holds (a purge after it voids the entry). */
  askedAtMs: number;
}

export function stamped(body: string, stamp: Stamp): string {
  return `${TAG} ${Math.floor(stamp.expiresAtMs)} ${Math.floor(stamp.askedAtMs)}\n${body}`;
}

/** The body and its stamp, or undefined for text that is not a stamped entry (a miss). */
export function unstamped(text: string): { body: string; stamp: Stamp } | undefined {
  const newline = text.indexOf("\n");
  if (newline < 0 || newline > 64) return undefined;
  const parts = text.slice(0, newline).split(" ");
  if (parts.length !== 3 || parts[0] !== TAG || !/^\d+$/.test(parts[1]!) || !/^\d+$/.test(parts[2]!)) return undefined;
  return { body: text.slice(newline + 1), stamp: { expiresAtMs: Number(parts[1]), askedAtMs: Number(parts[2]) } };
}

/** What a reader checks an entry against. */
export interface Validity {
  nowMs: () => number;
  /** The tenant's purges, asked only when an entry was found (a KV list at most every few seconds). */
  purges?: () => Promise<readonly PurgeRecord[]>;
}

/** The body of a stored entry for `window` that is still valid, else undefined (a miss). */
export async function validBody(
  text: string | null | undefined,
  window: TimeWindow,
  validity: Validity,
): Promise<string | undefined> {
  if (typeof text !== "string") return undefined;
  const entry = unstamped(text);
  if (!entry || validity.nowMs() >= entry.stamp.expiresAtMs) return undefined;
  if (validity.purges) {
    let records: readonly PurgeRecord[];
    try {
      records = await validity.purges();
    } catch {
      // The purge log could not be read: an entry that may have been purged is not served.
      return undefined;
    }
    if (voidedBy(records, window, entry.stamp.askedAtMs)) return undefined;
  }
  return entry.body;
}

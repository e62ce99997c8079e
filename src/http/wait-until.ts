/** The request's `waitUntil`, for work that may finish after the response. */

/** The execution context's waitUntil; hono throws when there is none (app.fetch called bare). */
export function waitUntilOf(c: {
  executionCtx: { waitUntil(work: Promise<unknown>): void };
}): ((work: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx;
    return (work) => ctx.waitUntil(work);
  } catch {
    return undefined;
  }
}

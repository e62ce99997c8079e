/**
 * Work that needs what a request computed but not the client's wait: encoding a result for the
 * caches. Queued while the answer is produced and run once it is out (the streamed body written to
 * its end, cancelled, or failed; or, for an answer without a streamed body, once the response
 * exists), a timer turn later so the last chunk reaches the client first. The runtime's waitUntil
 * keeps the isolate alive for it.
 */
export class AfterAnswer {
  private tasks: (() => void)[] = [];
  private held = false;
  private released = false;

  constructor(private readonly waitUntil: (work: Promise<unknown>) => void) {}

  /** Queues `task`; once the answer is out, schedules it at once. */
  add(task: () => void): void {
    if (this.released) this.schedule([task]);
    else this.tasks.push(task);
  }

  /** The answer's body is still being written: the queue waits for {@link release}. */
  hold(): void {
    this.held = true;
  }

  /** Called when the route has answered: releases the queue unless a streamed body holds it. */
  answered(): void {
    if (!this.held) this.release();
  }

  /** The answer is out: runs the queued tasks (once). */
  release(): void {
    if (this.released) return;
    this.released = true;
    const tasks = this.tasks;
    this.tasks = [];
    if (tasks.length > 0) this.schedule(tasks);
  }

  private schedule(tasks: (() => void)[]): void {
    this.waitUntil(
      new Promise<void>((resolve) =>
        setTimeout(() => {
          for (const task of tasks) {
            try {
              task();
            } catch {
              // A cache write that cannot be prepared is skipped; the answer has gone out already.
            }
          }
          resolve();
        }, 0),
      ),
    );
  }
}

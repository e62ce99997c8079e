import { describe, expect, it } from "vitest";
import { AfterAnswer } from "../../../src/http/after-answer";

function queue() {
  const kept: Promise<unknown>[] = [];
  const after = new AfterAnswer((work) => kept.push(work));
  return { after, settle: () => Promise.all(kept), kept };
}

describe("AfterAnswer", () => {
  it("runs queued work a timer turn after the answer, not while it is produced", async () => {
    const { after, settle } = queue();
    const ran: string[] = [];
    after.add(() => ran.push("a"));
    after.add(() => ran.push("b"));
    await Promise.resolve();
    expect(ran).toEqual([]);
    after.answered();
    expect(ran).toEqual([]); // not synchronously: the answer goes out first
    await settle();
    expect(ran).toEqual(["a", "b"]);
  });

  it("waits for a streamed body that holds the queue, then runs it once", async () => {
    const { after, settle, kept } = queue();
    const ran: number[] = [];
    after.add(() => ran.push(1));
    after.hold();
    after.answered();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(ran).toEqual([]);
    expect(kept).toHaveLength(0);
    after.release();
    after.release();
    await settle();
    expect(ran).toEqual([1]);
    // Work queued after the answer is out runs at once (a timer turn later).
    after.add(() => ran.push(2));
    await settle();
    expect(ran).toEqual([1, 2]);
  });

  it("keeps going when a task throws", async () => {
    const { after, settle } = queue();
    const ran: number[] = [];
    after.add(() => {
      throw new Error("cannot encode");
    });
    after.add(() => ran.push(1));
    after.answered();
    await settle();
    expect(ran).toEqual([1]);
  });
});

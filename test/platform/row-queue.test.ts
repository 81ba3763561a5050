import { describe, expect, it } from "vitest";
import { RowQueue } from "../../src/platform/db/row-queue.js";
import { DatabaseBusyError } from "../../src/platform/errors.js";

/** A transaction the test finishes by hand, recording when it started. */
function heldTransaction(name: string, log: string[]) {
  let finish: (value: string) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return {
    run: () => {
      log.push(`start ${name}`);
      return done;
    },
    finish: () => finish(name),
    fail: (error: Error) => fail(error),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("RowQueue", () => {
  it("runs the transactions of one key one at a time, in the order they came", async () => {
    const queue = new RowQueue();
    const log: string[] = [];
    const [a, b, c] = ["a", "b", "c"].map((name) => heldTransaction(name, log)) as [ReturnType<typeof heldTransaction>, ReturnType<typeof heldTransaction>, ReturnType<typeof heldTransaction>];
    const results = [queue.run("order:1", a.run), queue.run("order:1", b.run), queue.run("order:1", c.run)];
    await settle();
    expect(log).toEqual(["start a"]);
    a.finish();
    await settle();
    expect(log).toEqual(["start a", "start b"]);
    b.finish();
    await settle();
    expect(log).toEqual(["start a", "start b", "start c"]);
    c.finish();
    expect(await Promise.all(results)).toEqual(["a", "b", "c"]);
  });

  it("lets the next transaction of the key run when one fails, and gives the failure to its caller only", async () => {
    const queue = new RowQueue();
    const log: string[] = [];
    const failing = heldTransaction("failing", log);
    const failed = queue.run("cart:x", failing.run);
    const next = queue.run("cart:x", async () => "next");
    failing.fail(new Error("rolled back"));
    await expect(failed).rejects.toThrow("rolled back");
    expect(await next).toBe("next");
    // A transaction that throws before it returns a promise releases the key too.
    await expect(queue.run("cart:x", () => Promise.reject(new Error("at once")))).rejects.toThrow("at once");
    expect(await queue.run("cart:x", async () => "after")).toBe("after");
  });

  it("runs transactions of different keys at once", async () => {
    const queue = new RowQueue();
    const log: string[] = [];
    const [one, other] = [heldTransaction("one", log), heldTransaction("other", log)];
    const results = [queue.run("order:1", one.run), queue.run("order:2", other.run)];
    await settle();
    expect(log).toEqual(["start one", "start other"]);
    other.finish();
    expect(await results[1]).toBe("other");
    one.finish();
    expect(await results[0]).toBe("one");
  });

  it("a transaction that waited its maxWait gives up with a 503 database_busy; the ones behind it still wait for the one ahead", async () => {
    const queue = new RowQueue(300);
    const log: string[] = [];
    const [ahead, behind, last] = [heldTransaction("ahead", log), heldTransaction("behind", log), heldTransaction("last", log)];
    const aheadResult = queue.run("order:1", ahead.run);
    const gaveUp = queue.run("order:1", async () => {
      log.push("start gave-up");
      return "gave-up";
    });
    // Queued while the one before it still waits; it waits 150 ms longer than that one.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const behindResult = queue.run("order:1", behind.run);
    await expect(gaveUp).rejects.toThrow(DatabaseBusyError);
    await expect(gaveUp).rejects.toMatchObject({ status: 503, code: "database_busy", message: "The database did not finish in time, retry shortly", headers: { "retry-after": "5" } });
    // Queued after the one before it gave up.
    const lastResult = queue.run("order:1", last.run);
    await settle();
    expect(log).toEqual(["start ahead"]);
    ahead.finish();
    await settle();
    expect(log).toEqual(["start ahead", "start behind"]);
    behind.finish();
    await settle();
    expect(log).toEqual(["start ahead", "start behind", "start last"]);
    last.finish();
    expect(await Promise.all([aheadResult, behindResult, lastResult])).toEqual(["ahead", "behind", "last"]);
  });

  it("starts a transaction at once when its key's queue has run out", async () => {
    const queue = new RowQueue();
    await queue.run("order:1", async () => "first");
    await settle();
    const log: string[] = [];
    const next = heldTransaction("next", log);
    const result = queue.run("order:1", next.run);
    expect(log).toEqual(["start next"]);
    next.finish();
    expect(await result).toBe("next");
  });
});

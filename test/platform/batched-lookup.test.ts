import { describe, expect, it } from "vitest";
import { batchedLookup } from "../../src/platform/db/batched-lookup.js";

interface Row {
  key: string;
  value: number;
}

/** A load over a fixed table that records the keys of every call. */
function recordingLoad(table: Row[], failWith?: Error) {
  const calls: string[][] = [];
  const load = async (keys: string[]) => {
    calls.push(keys);
    if (failWith) throw failWith;
    return table.filter((row) => keys.includes(row.key));
  };
  return { calls, load };
}

const TABLE: Row[] = [
  { key: "a", value: 1 },
  { key: "b", value: 2 },
  { key: "c", value: 3 },
];

describe("batchedLookup", () => {
  it("loads the keys asked for in one turn together, once each, and answers each caller with its own row", async () => {
    const { calls, load } = recordingLoad(TABLE);
    const lookup = batchedLookup(load, (row: Row) => row.key);
    const answers = await Promise.all([lookup("a"), lookup("c"), lookup("missing"), lookup("a")]);
    expect(answers).toEqual([{ key: "a", value: 1 }, { key: "c", value: 3 }, undefined, { key: "a", value: 1 }]);
    expect(calls).toEqual([["a", "c", "missing"]]);
  });

  it("loads lookups of later turns in batches of their own", async () => {
    const { calls, load } = recordingLoad(TABLE);
    const lookup = batchedLookup(load, (row: Row) => row.key);
    expect(await lookup("a")).toEqual({ key: "a", value: 1 });
    expect(await lookup("b")).toEqual({ key: "b", value: 2 });
    expect(calls).toEqual([["a"], ["b"]]);
  });

  it("loads a batch at once when it reaches the most keys a batch may have", async () => {
    const { calls, load } = recordingLoad(TABLE);
    const lookup = batchedLookup(load, (row: Row) => row.key, 2);
    const answers = await Promise.all([lookup("a"), lookup("b"), lookup("c")]);
    expect(answers.map((row) => row?.value)).toEqual([1, 2, 3]);
    expect(calls).toEqual([["a", "b"], ["c"]]);
  });

  it("fails every lookup of a batch whose load failed, and the next batch loads again", async () => {
    const failure = new Error("database unavailable");
    const failing = batchedLookup(recordingLoad(TABLE, failure).load, (row: Row) => row.key);
    const settled = await Promise.allSettled([failing("a"), failing("b")]);
    expect(settled).toEqual([
      { status: "rejected", reason: failure },
      { status: "rejected", reason: failure },
    ]);

    let fail = true;
    const recovering = batchedLookup(async (keys: string[]) => {
      if (fail) {
        fail = false;
        throw failure;
      }
      return TABLE.filter((row) => keys.includes(row.key));
    }, (row: Row) => row.key);
    await expect(recovering("a")).rejects.toBe(failure);
    expect(await recovering("a")).toEqual({ key: "a", value: 1 });
  });

  it("fails the batch, not the process, when the load throws before returning a promise", async () => {
    const failure = new Error("bad keys");
    const throwing = batchedLookup((): Promise<Row[]> => {
      throw failure;
    }, (row: Row) => row.key);
    await expect(throwing("a")).rejects.toBe(failure);
  });
});

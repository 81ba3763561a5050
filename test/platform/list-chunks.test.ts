import { describe, expect, it } from "vitest";
import { jsonArrayText } from "../../src/platform/http/envelope.js";
import { chunksOfSize, readInChunks } from "../../src/platform/http/pagination.js";

const MIB = 1 << 20;

describe("chunksOfSize", () => {
  it("keeps the ids' order and puts small rows together in one chunk", () => {
    expect(chunksOfSize([3, 1, 2], new Map([[1, 10], [2, 10], [3, 10]]))).toEqual([[3, 1, 2]]);
  });

  it("starts a chunk once the one before holds 1 MiB; a row past it is a chunk alone", () => {
    const sizes = new Map([[1, MIB / 2], [2, MIB / 2], [3, 3 * MIB], [4, 1], [5, 1]]);
    expect(chunksOfSize([1, 2, 3, 4, 5], sizes)).toEqual([[1, 2], [3], [4, 5]]);
  });

  it("counts an id it has no size for as nothing, and gives no chunk for no ids", () => {
    expect(chunksOfSize([1, 2], new Map())).toEqual([[1, 2]]);
    expect(chunksOfSize([], new Map())).toEqual([]);
  });
});

describe("readInChunks", () => {
  it("reads the first chunk at once and each further one only when the items before it are taken", async () => {
    const read: number[][] = [];
    const items = await readInChunks([[1, 2], [3], [4]], async (ids) => {
      read.push(ids);
      return ids.map((id) => id * 10);
    });
    expect(read).toEqual([[1, 2]]);
    const iterator = items[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toBe(10);
    expect((await iterator.next()).value).toBe(20);
    expect(read).toEqual([[1, 2]]);
    expect((await iterator.next()).value).toBe(30);
    expect(read).toEqual([[1, 2], [3]]);
    const rest: number[] = [];
    for await (const item of { [Symbol.asyncIterator]: () => iterator }) rest.push(item);
    expect(rest).toEqual([40]);
  });

  it("reads nothing for no chunks", async () => {
    let reads = 0;
    const items = await readInChunks([], async () => {
      reads += 1;
      return [];
    });
    const all: unknown[] = [];
    for await (const item of items) all.push(item);
    expect({ reads, all }).toEqual({ reads: 0, all: [] });
  });
});

describe("jsonArrayText", () => {
  async function* from<Item>(values: Item[]): AsyncGenerator<Item> {
    yield* values;
  }
  const text = async (parts: AsyncIterable<string>) => {
    let whole = "";
    for await (const part of parts) whole += part;
    return whole;
  };

  it("writes the items between open and close, separated by commas, a part per item", async () => {
    const parts: string[] = [];
    for await (const part of jsonArrayText('{"a":[', from([1, 2]), (n: number) => JSON.stringify({ n }), "]}")) parts.push(part);
    expect(parts).toEqual(['{"a":[{"n":1}', ',{"n":2}', "]}"]);
    expect(JSON.parse(parts.join(""))).toEqual({ a: [{ n: 1 }, { n: 2 }] });
  });

  it("writes an empty array for no items", async () => {
    expect(await text(jsonArrayText('{"a":[', from<number>([]), String, "]}"))).toBe('{"a":[]}');
  });
});

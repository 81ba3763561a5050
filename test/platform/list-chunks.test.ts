import { describe, expect, it } from "vitest";
import { chunksOfSize } from "../../src/platform/http/pagination.js";

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

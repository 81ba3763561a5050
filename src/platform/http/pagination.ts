import { z } from "zod";
import { wireInteger } from "./schemas.js";

export const MAX_PER_PAGE = 100;

/**
 * What `page` and `per_page` may be; out of range is a 422, never a silent clamp. Query members
 * wrap them in wireInteger, with their default inside so that the document shows it.
 */
export const pageNumberBounds = z.number().int().min(1).max(1_000_000);
export const perPageBounds = z.number().int().min(1).max(MAX_PER_PAGE);

/** `page` and `per_page` query members. */
export function paginationQuery(defaultPerPage = 25) {
  return z.object({
    page: wireInteger(pageNumberBounds.default(1)),
    per_page: wireInteger(perPageBounds.default(defaultPerPage)),
  });
}

export interface PageRequest {
  page: number;
  per_page: number;
}

export interface Pagination {
  current_page: number;
  total_pages: number;
  total_count: number;
  per_page: number;
}

/** Rows to skip and to take for a page (Prisma's skip/take, SQL's OFFSET/LIMIT). */
export function pageWindow(page: PageRequest): { skip: number; take: number } {
  return { skip: (page.page - 1) * page.per_page, take: page.per_page };
}

export function pagination(page: PageRequest, totalCount: number): Pagination {
  return {
    current_page: page.page,
    total_pages: Math.ceil(totalCount / page.per_page),
    total_count: totalCount,
    per_page: page.per_page,
  };
}

/** A page of rows plus the metadata describing it: what every list service returns. */
export interface Page<Row> {
  rows: Row[];
  pagination: Pagination;
}

/**
 * A page whose rows are read as they are written out: a list whose rows can be megabytes each
 * (custom pages' html) holds a few of them at a time, not the whole page (sendStreamedList).
 */
export interface StreamedPage<Row> {
  rows: AsyncIterable<Row>;
  pagination: Pagination;
}

/**
 * About how many bytes of its rows' large members a streamed list reads in one statement (a row
 * past it is read alone). Read and written a chunk at a time, a list holds about this much
 * however long it is, and most lists (rows of tens of kilobytes) are still one statement.
 */
const LIST_CHUNK_BYTES = 1 << 20;

/**
 * `ids` in their order, cut into chunks of about LIST_CHUNK_BYTES by `bytesOf` (a row past it is
 * a chunk alone; an id it does not know counts nothing): what a streamed list reads per statement.
 */
export function chunksOfSize(ids: readonly number[], bytesOf: ReadonlyMap<number, number>): number[][] {
  const chunks: number[][] = [];
  let bytesInLast = 0;
  for (const id of ids) {
    const last = chunks.at(-1);
    if (last === undefined || bytesInLast >= LIST_CHUNK_BYTES) {
      chunks.push([id]);
      bytesInLast = 0;
    } else {
      last.push(id);
    }
    bytesInLast += bytesOf.get(id) ?? 0;
  }
  return chunks;
}

/**
 * The items of `chunks` (chunksOfSize), in order, each chunk read by `readChunk`: the first now, so
 * that a database failing there is the usual 503 before the answer starts, each further one when
 * the client has taken the items before it (sendStreamedList's backpressure).
 */
export async function readInChunks<Item>(chunks: readonly number[][], readChunk: (ids: number[]) => Promise<Item[]>): Promise<AsyncIterable<Item>> {
  const [firstIds, ...rest] = chunks;
  const first = firstIds === undefined ? [] : await readChunk(firstIds);
  async function* items(): AsyncGenerator<Item> {
    yield* first;
    for (const ids of rest) yield* await readChunk(ids);
  }
  return items();
}

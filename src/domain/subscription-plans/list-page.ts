import { FieldErrorCollector } from "../../platform/errors.js";
import type { PageRequest } from "../../platform/http/pagination.js";

interface PaginationParameters {
  page?: number | undefined;
  per_page?: number | undefined;
  "pagination[page]"?: number | undefined;
  "pagination[per_page]"?: number | undefined;
}

const DEFAULT_PER_PAGE = 25;

/**
 * The plan list takes its page from `page`/`per_page` or from the seed's `pagination` object
 * (`pagination[page]`, `pagination[per_page]`): two spellings of one setting. Both sent with
 * different values is ambiguous, so it is a 422 rather than a guess.
 */
export function resolvePage(query: PaginationParameters): PageRequest {
  const errors = new FieldErrorCollector();
  const pick = (flatName: "page" | "per_page", fallback: number): number => {
    const nestedName = `pagination[${flatName}]` as const;
    const flat = query[flatName];
    const nested = query[nestedName];
    if (flat !== undefined && nested !== undefined && flat !== nested) errors.add(nestedName, `conflicts with ${flatName}`);
    return nested ?? flat ?? fallback;
  };
  const page = { page: pick("page", 1), per_page: pick("per_page", DEFAULT_PER_PAGE) };
  errors.throwIfAny();
  return page;
}

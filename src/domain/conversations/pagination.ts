/** The conversation list's own pagination object, as the specification names its members. */
export interface ConversationPagination {
  current: number;
  previous: number | null;
  next: number | null;
  per_page: number;
  pages: number;
  count: number;
}

export function conversationPagination(page: number, perPage: number, count: number): ConversationPagination {
  const pages = Math.ceil(count / perPage);
  return {
    current: page,
    previous: page > 1 ? Math.min(page - 1, Math.max(pages, 1)) : null,
    next: page < pages ? page + 1 : null,
    per_page: perPage,
    pages,
    count,
  };
}

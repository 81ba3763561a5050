import { describe, expect, it } from "vitest";
import { conversationPagination } from "../../../src/domain/conversations/pagination.js";
import { templateNames } from "../../../src/domain/conversations/templates.js";

describe("conversationPagination", () => {
  it("describes a middle page", () => {
    expect(conversationPagination(2, 10, 35)).toEqual({ current: 2, previous: 1, next: 3, per_page: 10, pages: 4, count: 35 });
  });

  it("has no previous on the first page and no next on the last", () => {
    expect(conversationPagination(1, 10, 35)).toMatchObject({ previous: null, next: 2 });
    expect(conversationPagination(4, 10, 35)).toMatchObject({ previous: 3, next: null });
  });

  it("describes an empty list as zero pages, and points a page past the end back to the last page", () => {
    expect(conversationPagination(1, 25, 0)).toEqual({ current: 1, previous: null, next: null, per_page: 25, pages: 0, count: 0 });
    expect(conversationPagination(9, 10, 35)).toMatchObject({ previous: 4, next: null });
  });
});

describe("templates", () => {
  it("are the ten the specification names", () => {
    expect([...templateNames].sort()).toEqual(
      ["channels", "new_messages", "pinned", "sms", "sms_read", "team_directs", "team_groups", "teams", "teams_read", "teams_unread"],
    );
  });
});

import { describe, expect, it } from "vitest";
import { htmlOf, stripHtml } from "../../../src/domain/media/rich-text.js";

describe("stripHtml", () => {
  it("removes tags, scripts and styles, decodes entities and collapses spaces", () => {
    expect(stripHtml("<p>Learn <b>fast</b> &amp; well</p><p>Next</p>")).toBe("Learn fast & well Next");
    expect(stripHtml("<style>p{}</style>a<script>alert(1)</script>b")).toBe("a b");
    expect(stripHtml("caf&#233; &#x263A; &nbsp;&lt;tag&gt; &bogus;")).toBe("café ☺ <tag> &bogus;");
    expect(stripHtml("line<br/>break")).toBe("line break");
  });
});

describe("htmlOf", () => {
  it("accepts a string or {html} and keeps null and undefined apart", () => {
    expect(htmlOf("<p>x</p>")).toBe("<p>x</p>");
    expect(htmlOf({ html: "<p>y</p>" })).toBe("<p>y</p>");
    expect(htmlOf(null)).toBeNull();
    expect(htmlOf(undefined)).toBeUndefined();
  });
});

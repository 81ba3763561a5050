import { describe, expect, it } from "vitest";
import { htmlOf, stripHtml } from "../../../src/domain/media/rich-text.js";

describe("stripHtml", () => {
  it("removes tags, scripts and styles, decodes entities and collapses spaces", () => {
    expect(stripHtml("<p>Learn <b>fast</b> &amp; well</p><p>Next</p>")).toBe("Learn fast & well Next");
    expect(stripHtml("<style>p{}</style>a<script>alert(1)</script>b")).toBe("a b");
    expect(stripHtml("caf&#233; &#x263A; &nbsp;&lt;tag&gt; &bogus;")).toBe("café ☺ <tag> &bogus;");
    expect(stripHtml("line<br/>break")).toBe("line break");
  });

  // As a browser reads the html: "<" opens a tag only before a letter, "/" or "!", a comment ends
  // at "-->" and a quoted attribute value may hold ">". The text around them was lost.
  it("keeps a literal < and > as text and removes comments and quoted attributes whole", () => {
    expect(stripHtml("Prices < $10 and > $5. 3<4, 5 <= 6")).toBe("Prices < $10 and > $5. 3<4, 5 <= 6");
    expect(stripHtml("<p>a</p><!-- note: x > y -->b")).toBe("a b");
    expect(stripHtml(`<p title="a>b" data-x='c>d'>Hi</p>`)).toBe("Hi");
    expect(stripHtml("<!DOCTYPE html><?xml version=\"1.0\"?><a href=x>link</a></ p>")).toBe("link");
    expect(stripHtml("a<SCRIPT>x</b></Script >b<style>")).toBe("a b");
  });

  // "<!-->" and "<!--->" are empty comments to a browser: the text after them was dropped as if the comment ran on.
  it("ends a comment closed right after its opening", () => {
    expect(stripHtml("a<!-->b")).toBe("ab");
    expect(stripHtml("a<!--->b<!---->c")).toBe("abc");
  });

  // A script's or style's content ends only at its own end tag: "</scriptx>" is part of the script, not its end.
  it("ends a script or style only at an end tag of that name", () => {
    expect(stripHtml("x<script>a</scriptx>b</script>y")).toBe("x y");
    expect(stripHtml("x<style>p{}</styles>q{}</style\n>y")).toBe("x y");
  });

  // A description holds up to 100,000 characters and every admin read strips it: `<[^>]*>` took
  // about 8 s on 100,000 "<", with the event loop held (other requests waited).
  it("reads each character once, whatever the markup", () => {
    const hostile = ["<".repeat(100_000), "<a".repeat(50_000), '<a x="'.repeat(16_000), "<!--".repeat(25_000), "<script>".repeat(12_000), "&a".repeat(50_000)];
    const started = performance.now();
    for (const html of hostile) stripHtml(html);
    expect(performance.now() - started).toBeLessThan(500);
    expect(stripHtml("<".repeat(5))).toBe("<<<<<");
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

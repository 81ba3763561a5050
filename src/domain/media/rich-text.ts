const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Elements whose content is not text (raw text to a browser): removed with their content. */
const RAW_TEXT = new Set(["script", "style"]);
/** Tags that part words (a line or block boundary): read as a space. */
const BREAKS = /^(?:br|\/(?:p|div|li|h[1-6]))$/;

const isLetter = (char: string | undefined) => char !== undefined && /[A-Za-z]/.test(char);

/**
 * Where the tag opening at `start` (`<` then a letter, or `</` then a letter) ends: just after
 * its `>`, past quoted attribute values that may hold one; the end of the input when it has none,
 * as a browser drops a tag the input ends in.
 */
function tagEnd(html: string, start: number): number {
  let afterEquals = false;
  for (let at = start + 1; at < html.length; at++) {
    const char = html[at] as string;
    if (char === ">") return at + 1;
    if (afterEquals && (char === '"' || char === "'")) {
      const close = html.indexOf(char, at + 1);
      if (close === -1) return html.length;
      at = close;
      afterEquals = false;
    } else if (char === "=") {
      afterEquals = true;
    } else if (!/\s/.test(char)) {
      afterEquals = false;
    }
  }
  return html.length;
}

/** Just after `marker` from `from` on, or the end of the input: comments and bogus comments run to the end when not closed. */
function endAfter(html: string, marker: string, from: number): number {
  const at = html.indexOf(marker, from);
  return at === -1 ? html.length : at + marker.length;
}

/**
 * The text of an html fragment as a browser reads it, tags removed: `<` opens markup only
 * before a letter, `/`, `!` or `?`; otherwise it is text. One pass, each character read once:
 * a regular expression over `<[^>]*>` took seconds on a description of many `<` (an audit).
 */
function textOf(html: string): string {
  let text = "";
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf("<", at);
    if (open === -1) return text + html.slice(at);
    text += html.slice(at, open);
    const next = html[open + 1];
    if (html.startsWith("<!--", open)) {
      // From the comment's own "--": "<!-->" and "<!--->" are empty comments, as a browser reads them.
      at = endAfter(html, "-->", open + 2);
    } else if (next === "!" || next === "?" || (next === "/" && !isLetter(html[open + 2]))) {
      at = endAfter(html, ">", open + 1);
    } else if (isLetter(next) || next === "/") {
      const end = tagEnd(html, open);
      const name = /^<(\/?[A-Za-z][^\s/>]*)/.exec(html.slice(open, Math.min(end, open + 64)))?.[1]?.toLowerCase() ?? "";
      at = end;
      if (RAW_TEXT.has(name)) {
        // Only its own end tag ends it: "</scriptx>" is part of the script.
        const closing = new RegExp(`</${name}(?=[\\s/>]|$)`, "gi");
        closing.lastIndex = end;
        const close = closing.exec(html);
        at = close === null ? html.length : tagEnd(html, close.index);
        text += " ";
      } else if (BREAKS.test(name)) {
        text += " ";
      }
    } else {
      text += "<";
      at = open + 1;
    }
  }
  return text;
}

/** The plain text of an html fragment (`stripped`): tags removed, entities decoded, spaces collapsed. */
export function stripHtml(html: string): string {
  return textOf(html)
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (entity, name: string) => {
      if (name[0] === "#") {
        const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
      }
      return ENTITIES[name.toLowerCase()] ?? entity;
    })
    .replace(/\s+/g, " ")
    .trim();
}

/** Admin sends rich text as a string or as `{html}`; both are stored as the html. */
export function htmlOf(description: string | { html: string } | null | undefined): string | null | undefined {
  if (description === undefined || description === null) return description;
  return typeof description === "string" ? description : description.html;
}

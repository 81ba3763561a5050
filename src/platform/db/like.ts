/**
 * A user's search text as a LIKE/ILIKE pattern fragment that matches it literally: `%`, `_` and
 * the escape character `\` lose their pattern meaning. Prisma's `contains` does not do this, nor
 * its `equals` with `mode: "insensitive"` (also an ILIKE on PostgreSQL).
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

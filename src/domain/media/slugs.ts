import { isUniqueViolation } from "../../platform/db/errors.js";
import { ValidationError } from "../../platform/errors.js";

const MAX_BASE_LENGTH = 80;

/** "Été 2025: Spring Launch!" -> "ete-2025-spring-launch". */
export function slugify(title: string, fallback: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, MAX_BASE_LENGTH)
    .replace(/^-+|-+$/g, "");
  return slug === "" ? fallback : slug;
}

/** `base` when free, else the first free `base-2`, `base-3`, ... */
export function nextFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let suffix = 2; ; suffix++) {
    const candidate = `${base}-${suffix}`;
    if (!used.has(candidate)) return candidate;
  }
}

export interface SlugWriter<Row> {
  /** The slugs of the company's rows that start with this prefix. */
  takenWithPrefix(prefix: string): Promise<string[]>;
  /** Writes the row with this slug; a unique violation means the slug was taken meanwhile. */
  write(slug: string, custom: boolean): Promise<Row>;
}

const GENERATED_SLUG_ATTEMPTS = 3;

/**
 * A requested slug that is taken is the client's to fix (422 on `field`). A generated one that
 * another request took between our read and our write is simply generated again.
 */
export async function writeWithSlug<Row>(requested: string | undefined, title: string, fallback: string, field: string, writer: SlugWriter<Row>): Promise<Row> {
  if (requested !== undefined) {
    try {
      return await writer.write(requested, true);
    } catch (error) {
      if (isUniqueViolation(error)) throw ValidationError.field(field, "is already taken");
      throw error;
    }
  }
  const base = slugify(title, fallback);
  for (let attempt = 1; ; attempt++) {
    const slug = nextFreeSlug(base, await writer.takenWithPrefix(base));
    try {
      return await writer.write(slug, false);
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= GENERATED_SLUG_ATTEMPTS) throw error;
    }
  }
}

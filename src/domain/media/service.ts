import { Prisma } from "../../generated/prisma/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { escapeLike } from "../../platform/db/like.js";
import { lockCompanyRow } from "../../platform/db/row-locks.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import type { ServiceContext } from "../../platform/context.js";
import { FieldErrorCollector, NotFoundError, ValidationError } from "../../platform/errors.js";
import { ENGLISH } from "../../platform/http/language.js";
import { chunksOfSize, pageWindow, pagination, readInChunks, type StreamedPage } from "../../platform/http/pagination.js";
import { productAndPackErrors, uniqueIds } from "../catalog/references.js";
import { lockPlaylistsHolding, renumberItems } from "../playlists/items.js";
import { htmlOf, stripHtml } from "./rich-text.js";
import { MAX_TRANSLATION_CHARACTERS, type MediaCreateInput, type MediaListQuery, type MediaUpdateInput, type MediaView } from "./schemas.js";
import { lockSlugs, writeWithSlug } from "./slugs.js";

const withTranslations = { translations: { orderBy: { language_iso: "asc" } } } as const;
type MediaRow = Prisma.MediaGetPayload<{ include: typeof withTranslations }>;
type JsonObject = Record<string, unknown>;

const richText = (html: string | null) => (html === null ? null : { html });

/**
 * `language` is as languageParam reads it ("fr", "yue"). English is the row's own content: an
 * `en` translation stored before create and update refused one is never shown instead.
 */
function toMediaView(row: MediaRow, language?: string): MediaView {
  const translation = language && language !== ENGLISH ? row.translations.find((candidate) => candidate.language_iso === language) : undefined;
  const html = translation?.description ?? row.description;
  const withPrompts = row.media_type === "share" || row.media_type === "upload";
  const withComments = row.video_shopping_enabled && row.display_comments;
  return {
    id: row.id,
    user_id: row.user_id,
    title: translation?.title ?? row.title,
    description: richText(html),
    stripped: html === null ? null : stripHtml(html),
    media_type: row.media_type as MediaView["media_type"],
    media_format: row.media_format,
    image_url: row.image_url,
    video_url: row.video_url,
    pdf_url: row.pdf_url,
    powerpoint_url: row.powerpoint_url,
    kind: row.kind,
    share_link: row.share_link,
    preview_link: row.preview_link,
    video_status: row.video_status,
    cta_url: row.cta_url,
    cta_button_text: row.cta_button_text,
    cta_action_type: row.cta_action_type,
    active: row.active,
    visibility: row.visibility,
    views: row.views,
    leads: row.leads,
    watch: row.watch as JsonObject | null,
    settings: row.settings as JsonObject | null,
    duration: row.duration,
    cta_enabled: row.cta_enabled,
    video_shopping_enabled: row.video_shopping_enabled,
    prompts_enabled: row.prompts_enabled,
    display_comments: row.display_comments,
    ranks: row.ranks,
    application_theme_template_id: row.application_theme_template_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    subtitles: row.subtitles as Record<string, string> | null,
    countries: [],
    tags: row.tags.map((name) => ({ name })),
    attached_shareables: [],
    slug: row.slug,
    canonical_url: row.canonical_url,
    custom_slug: row.custom_slug,
    ...(withPrompts ? { prompts: (row.prompts as JsonObject[] | null) ?? [] } : {}),
    // Comments are not stored by this service yet: the member is there, empty, when it applies.
    ...(withComments ? { comments: [] } : {}),
    label: null,
    display_tag: row.display_tag,
    publish_at: row.publish_at?.toISOString() ?? null,
    translations: Object.fromEntries(
      row.translations.map((entry) => [entry.language_iso, { title: entry.title, description: richText(entry.description) }]),
    ),
    product_ids: row.product_ids,
    enrollment_pack_ids: row.enrollment_pack_ids,
  };
}

async function requireRow(ctx: ServiceContext, id: number): Promise<MediaRow> {
  const row = await ctx.db.media.findFirst({ where: { id, company_id: ctx.companyId }, include: withTranslations });
  if (!row) throw new NotFoundError("Media not found");
  return row;
}

/** Referenced users, products and packs must be the company's own: one 422 naming every member and id that is not. */
async function requireReferences(ctx: ServiceContext, input: MediaUpdateInput): Promise<void> {
  const [user, productsAndPacks] = await Promise.all([
    input.user_id != null ? ctx.db.user.count({ where: { id: input.user_id, company_id: ctx.companyId } }) : 1,
    productAndPackErrors(ctx, input, "media"),
  ]);
  const errors = new FieldErrorCollector();
  if (user === 0) errors.add("media.user_id", "does not name a user of this company");
  errors.merge(productsAndPacks);
  errors.throwIfAny();
}

// Prisma writes SQL NULL into a Json column only when told so explicitly.
const json = (value: JsonObject | JsonObject[] | Record<string, string> | null | undefined) =>
  value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue | undefined);

/** The columns an input sets; members it leaves out are not touched. */
function columns(input: MediaUpdateInput) {
  const { slug: _slug, translations: _translations, description, watch, settings, subtitles, prompts, publish_at, product_ids, enrollment_pack_ids, ...plain } = input;
  const data = {
    ...plain,
    description: htmlOf(description),
    watch: json(watch),
    settings: json(settings),
    subtitles: json(subtitles),
    prompts: json(prompts),
    publish_at: publish_at === undefined ? undefined : publish_at === null ? null : new Date(publish_at),
    product_ids: uniqueIds(product_ids),
    enrollment_pack_ids: uniqueIds(enrollment_pack_ids),
  };
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));
}

/**
 * An entry is partial like the rest of an update: a `description` it leaves out stays undefined,
 * which Prisma writes as nothing (a new translation has none; a stored one keeps its own), and
 * only `null` clears it.
 */
function translationRows(translations: MediaUpdateInput["translations"]) {
  return Object.entries(translations ?? {}).flatMap(([language_iso, entry]) =>
    entry ? [{ language_iso, title: entry.title, description: htmlOf(entry.description) }] : [],
  );
}

/**
 * The media's translations, as this transaction leaves them, hold at most MAX_TRANSLATION_CHARACTERS
 * characters of titles and descriptions; else a 422 that rolls the write back. Counted in the
 * database after the write, so languages stored and not named, descriptions an entry leaves out
 * and languages removed in the same update all count as they will be stored; an update counts
 * under the media's row lock, so two concurrent ones that each fit but not together cannot both
 * pass.
 */
async function requireTranslationsWithinCap(tx: Prisma.TransactionClient, mediaId: number): Promise<void> {
  const [total] = await tx.$queryRaw<Array<{ characters: bigint }>>`
    SELECT coalesce(sum(char_length(title) + coalesce(char_length(description), 0)), 0)::bigint AS characters
    FROM media_translations WHERE media_id = ${mediaId}`;
  const characters = Number(total?.characters ?? 0);
  if (characters > MAX_TRANSLATION_CHARACTERS) {
    throw ValidationError.field(
      "media.translations",
      `must hold at most ${MAX_TRANSLATION_CHARACTERS} characters of titles and descriptions in all languages together (these would hold ${characters})`,
    );
  }
}

export async function createMedia(ctx: ServiceContext, input: MediaCreateInput): Promise<MediaView> {
  await requireReferences(ctx, input);
  const data = columns(input) as Omit<Prisma.MediaUncheckedCreateInput, "company_id" | "slug"> & { title: string; media_type: string };
  const row = await writeWithSlug({
    db: ctx.db,
    companyId: ctx.companyId,
    kind: "media",
    field: "media.slug",
    requested: input.slug ?? undefined,
    title: input.title,
    takenWithPrefix: async (tx, prefix) =>
      (await tx.media.findMany({ where: { company_id: ctx.companyId, slug: { startsWith: prefix } }, select: { slug: true } })).map((r) => r.slug),
    write: async (tx, slug, custom) => {
      const row = await tx.media.create({
        data: { ...data, company_id: ctx.companyId, slug, custom_slug: custom, translations: { create: translationRows(input.translations) } },
        include: withTranslations,
      });
      if (row.translations.length > 0) await requireTranslationsWithinCap(tx, row.id);
      return row;
    },
  });
  return toMediaView(row);
}

export async function getMedia(ctx: ServiceContext, id: number, language?: string): Promise<MediaView> {
  return toMediaView(await requireRow(ctx, id), language);
}

/** Titles that contain `query`: the English one, or the translation into `language` a reader of it sees. */
function titleSearch(query: string, language: string | undefined): Prisma.MediaWhereInput {
  const title = { contains: escapeLike(query), mode: "insensitive" } as const;
  if (!language || language === ENGLISH) return { title };
  return { OR: [{ title }, { translations: { some: { language_iso: language, title } } }] };
}

/**
 * The ids of a list page's media in chunks of about LIST_CHUNK_BYTES of their large members (one
 * media at least): description, JSON members and translations. The sizes come from the values'
 * headers (octet_length reads no TOASTed text) and json_octets, which the row keeps: none of the
 * content is read for them. An id whose media is gone is sized 0 (the chunk's read leaves it out).
 */
async function listChunks(ctx: ServiceContext, ids: number[]): Promise<number[][]> {
  const sizes = await ctx.db.$queryRaw<Array<{ id: number; bytes: bigint }>>`
    SELECT m.id,
      coalesce(octet_length(m.description), 0) + m.json_octets
        + coalesce(sum(octet_length(t.title) + coalesce(octet_length(t.description), 0)), 0) AS bytes
    FROM media m LEFT JOIN media_translations t ON t.media_id = m.id
    WHERE m.company_id = ${ctx.companyId} AND m.id = ANY(${ids}::int[])
    GROUP BY m.id`;
  return chunksOfSize(ids, new Map(sizes.map(({ id, bytes }) => [id, Number(bytes)])));
}

/** The chunk's media in its order, in one statement; one deleted since the list read its id is left out. */
async function readChunk(ctx: ServiceContext, ids: number[]): Promise<MediaRow[]> {
  const rows = await ctx.db.media.findMany({ where: { id: { in: ids }, company_id: ctx.companyId }, include: withTranslations });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * A list page whose media are read as the answer is written (sendStreamedList), a chunk at a
 * time; the first chunk is read before it answers. A media may hold a few megabytes (subtitles,
 * up to MAX_TRANSLATION_CHARACTERS of translations), and a page a hundred of them.
 */
export async function listMedia(ctx: ServiceContext, query: MediaListQuery): Promise<StreamedPage<MediaView>> {
  const where: Prisma.MediaWhereInput = {
    company_id: ctx.companyId,
    ...(query.media_type ? { media_type: query.media_type } : {}),
    ...(query.search_query ? titleSearch(query.search_query, query.language_iso) : {}),
  };
  const [page, total] = await Promise.all([
    ctx.db.media.findMany({ where, select: { id: true }, orderBy: [{ created_at: "desc" }, { id: "desc" }], ...pageWindow(query) }),
    ctx.db.media.count({ where }),
  ]);
  const chunks = page.length === 0 ? [] : await listChunks(ctx, page.map((row) => row.id));
  const rows = await readInChunks(chunks, async (ids) => (await readChunk(ctx, ids)).map((row) => toMediaView(row, query.language_iso)));
  return { rows, pagination: pagination(query, total) };
}

/**
 * Locks the company's media for the rest of the transaction and answers its slug, or 404. An
 * update takes it before anything else (its translations, the company's slug lock), as a delete
 * takes it before the cascade to the translations: concurrent updates and deletes of one media
 * take turns instead of deadlocking, and an update after a delete finds the media gone. NO KEY
 * UPDATE is the lock the update's own UPDATE takes: playlists adding the media do not wait.
 */
async function lockForUpdate(tx: Prisma.TransactionClient, companyId: number, id: number): Promise<{ slug: string }> {
  return lockCompanyRow<{ slug: string }>(tx, { table: "media", companyId, id }, "NO KEY UPDATE", "Media not found", ["slug"]);
}

export async function updateMedia(ctx: ServiceContext, id: number, input: MediaUpdateInput): Promise<MediaView> {
  const current = await requireRow(ctx, id);
  await requireReferences(ctx, input);
  const removed = Object.entries(input.translations ?? {}).flatMap(([language, entry]) => (entry === null ? [language] : []));
  const upserts = translationRows(input.translations);
  let writesSlug = false;
  try {
    const row = await ctx.db.$transaction(async (tx) => {
      const { slug } = await lockForUpdate(tx, ctx.companyId, current.id);
      const requestedSlug = input.slug ?? slug;
      writesSlug = requestedSlug !== slug;
      const slugChange = writesSlug ? { slug: requestedSlug, custom_slug: true } : {};
      if (writesSlug) await lockSlugs(tx, "media", ctx.companyId);
      if (removed.length > 0) await tx.mediaTranslation.deleteMany({ where: { media_id: current.id, language_iso: { in: removed } } });
      for (const translation of upserts) {
        await tx.mediaTranslation.upsert({
          where: { media_id_language_iso: { media_id: current.id, language_iso: translation.language_iso } },
          create: { media_id: current.id, ...translation },
          update: { title: translation.title, description: translation.description },
        });
      }
      if (upserts.length > 0) await requireTranslationsWithinCap(tx, current.id);
      // updated_at is set, not left to @updatedAt, which skips an update whose only change is to translations.
      return tx.media.update({
        where: { id: current.id },
        data: { ...columns(input), ...slugChange, updated_at: ctx.clock.now() },
        include: withTranslations,
      });
    }, LOCK_WAITING_TRANSACTION);
    return toMediaView(row);
  } catch (error) {
    if (writesSlug && isUniqueViolation(error)) throw ValidationError.field("media.slug", "has already been taken");
    throw error;
  }
}

/**
 * Deletes the media, which the foreign key's cascade removes from every playlist, and in the
 * same transaction numbers each such playlist's items 0..n-1 again and moves its updated_at.
 * The playlists are locked before the media, in the order a playlist update takes them (its
 * row, then its items' media); a playlist that an update gave the media while this waited for
 * the media's lock is found and locked once it has it.
 */
export async function deleteMedia(ctx: ServiceContext, id: number): Promise<{ id: number }> {
  const current = await requireRow(ctx, id);
  await ctx.db.$transaction(async (tx) => {
    const locked = await lockPlaylistsHolding(tx, ctx.companyId, current.id);
    await lockCompanyRow(tx, { table: "media", companyId: ctx.companyId, id: current.id }, "UPDATE", "Media not found");
    const playlists = await lockPlaylistsHolding(tx, ctx.companyId, current.id, locked);
    await tx.media.delete({ where: { id: current.id } });
    await renumberItems(tx, playlists, ctx.clock.now());
  }, LOCK_WAITING_TRANSACTION);
  return { id: current.id };
}

import type { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext } from "../../platform/context.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { lockCompanyRow } from "../../platform/db/row-locks.js";
import { LOCK_WAITING_TRANSACTION } from "../../platform/db/transactions.js";
import { FieldErrorCollector, NotFoundError, ValidationError } from "../../platform/errors.js";
import { type Page, type PageRequest, pageWindow, pagination } from "../../platform/http/pagination.js";
import { missingIds, productAndPackErrors, uniqueIds } from "../catalog/references.js";
import { lockSlugs, writeWithSlug } from "../media/slugs.js";
import type { PlaylistCreateInput, PlaylistUpdateInput, PlaylistView } from "./schemas.js";

const itemMedia = { id: true, slug: true, title: true, active: true, publish_at: true } as const;
const withItems = { items: { orderBy: { position: "asc" }, include: { media: { select: itemMedia } } } } as const;
type PlaylistRow = Prisma.PlaylistGetPayload<{ include: typeof withItems }>;

function toView(row: PlaylistRow): PlaylistView {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    custom_slug: row.custom_slug,
    active: row.active,
    publish_at: row.publish_at?.toISOString() ?? null,
    media_ids: row.items.map((item) => item.media_id),
    items: row.items.map((item) => ({
      id: item.id,
      position: item.position,
      media: { ...item.media, publish_at: item.media.publish_at?.toISOString() ?? null },
    })),
    product_ids: row.product_ids,
    enrollment_pack_ids: row.enrollment_pack_ids,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function requireRow(ctx: ServiceContext, id: number): Promise<PlaylistRow> {
  const row = await ctx.db.playlist.findFirst({ where: { id, company_id: ctx.companyId }, include: withItems });
  if (!row) throw new NotFoundError("Playlist not found");
  return row;
}

/** Media, products and packs must be the company's own: one 422 naming every member and id that is not. */
async function requireReferences(ctx: ServiceContext, input: PlaylistUpdateInput): Promise<void> {
  const mediaIds = uniqueIds(input.media_ids) ?? [];
  const [media, productsAndPacks] = await Promise.all([
    mediaIds.length > 0 ? ctx.db.media.findMany({ where: { id: { in: mediaIds }, company_id: ctx.companyId }, select: { id: true } }) : [],
    productAndPackErrors(ctx, input, "playlist"),
  ]);
  const errors = new FieldErrorCollector();
  if (input.media_ids && mediaIds.length !== input.media_ids.length) errors.add("playlist.media_ids", "contains the same media more than once");
  const foreignMedia = missingIds(mediaIds, media);
  if (foreignMedia.length > 0) errors.add("playlist.media_ids", `contains ids that are not media of this company: ${foreignMedia.join(", ")}`);
  errors.merge(productsAndPacks);
  errors.throwIfAny();
}

function columns(input: PlaylistUpdateInput) {
  const data = {
    title: input.title,
    active: input.active,
    publish_at: input.publish_at === undefined ? undefined : input.publish_at === null ? null : new Date(input.publish_at),
    product_ids: uniqueIds(input.product_ids),
    enrollment_pack_ids: uniqueIds(input.enrollment_pack_ids),
  };
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));
}

const itemRows = (mediaIds: number[]) => mediaIds.map((media_id, position) => ({ media_id, position }));

export async function createPlaylist(ctx: ServiceContext, input: PlaylistCreateInput): Promise<PlaylistView> {
  await requireReferences(ctx, input);
  const row = await writeWithSlug({
    db: ctx.db,
    companyId: ctx.companyId,
    kind: "playlist",
    field: "playlist.slug",
    requested: input.slug ?? undefined,
    title: input.title,
    takenWithPrefix: async (tx, prefix) =>
      (await tx.playlist.findMany({ where: { company_id: ctx.companyId, slug: { startsWith: prefix } }, select: { slug: true } })).map((r) => r.slug),
    write: (tx, slug, custom) =>
      tx.playlist.create({
        data: { ...columns(input), title: input.title, company_id: ctx.companyId, slug, custom_slug: custom, items: { create: itemRows(input.media_ids) } },
        include: withItems,
      }),
  });
  return toView(row);
}

export async function getPlaylist(ctx: ServiceContext, id: number): Promise<PlaylistView> {
  return toView(await requireRow(ctx, id));
}

/**
 * A page holds up to 100 playlists of up to 500 items: their items are read flat and their media
 * each once, and joined here. Prisma's nested include of items with their media read every
 * media once per item and took about twice as long to map it (100 playlists of the same 500
 * media: 8.0 MB read, 2.0 s a list).
 */
export async function listPlaylists(ctx: ServiceContext, page: PageRequest): Promise<Page<PlaylistView>> {
  const where = { company_id: ctx.companyId };
  const [playlists, total] = await Promise.all([
    ctx.db.playlist.findMany({ where, orderBy: [{ created_at: "desc" }, { id: "desc" }], ...pageWindow(page) }),
    ctx.db.playlist.count({ where }),
  ]);
  const items = await ctx.db.playlistItem.findMany({ where: { playlist_id: { in: playlists.map((playlist) => playlist.id) } }, orderBy: { position: "asc" } });
  const mediaIds = [...new Set(items.map((item) => item.media_id))];
  const media = new Map((await ctx.db.media.findMany({ where: { company_id: ctx.companyId, id: { in: mediaIds } }, select: itemMedia })).map((row) => [row.id, row]));
  const itemsOf = new Map<number, PlaylistRow["items"]>();
  for (const item of items) {
    // A media deleted between the two reads took its items with it.
    const itemMediaRow = media.get(item.media_id);
    if (!itemMediaRow) continue;
    const rows = itemsOf.get(item.playlist_id) ?? [];
    rows.push({ ...item, media: itemMediaRow });
    itemsOf.set(item.playlist_id, rows);
  }
  return { rows: playlists.map((playlist) => toView({ ...playlist, items: itemsOf.get(playlist.id) ?? [] })), pagination: pagination(page, total) };
}

/** `media_ids`, when sent, replaces the playlist's items in the new order. */
export async function updatePlaylist(ctx: ServiceContext, id: number, input: PlaylistUpdateInput): Promise<PlaylistView> {
  const current = await requireRow(ctx, id);
  await requireReferences(ctx, input);
  try {
    const row = await ctx.db.$transaction(async (tx) => {
      // Two concurrent reorders would otherwise interleave their item rewrites; a delete that came
      // first leaves no row, and the update is a 404 rather than its items' foreign-key failure.
      // The slug is compared as the lock finds it: an update committed meanwhile may have changed it.
      const { slug } = await lockCompanyRow<{ slug: string }>(tx, { table: "playlists", companyId: ctx.companyId, id: current.id }, "UPDATE", "Playlist not found", ["slug"]);
      const requestedSlug = input.slug ?? slug;
      const slugChange = requestedSlug !== slug ? { slug: requestedSlug, custom_slug: true } : {};
      if ("slug" in slugChange) await lockSlugs(tx, "playlist", ctx.companyId);
      if (input.media_ids) {
        await tx.playlistItem.deleteMany({ where: { playlist_id: current.id } });
        await tx.playlistItem.createMany({ data: itemRows(input.media_ids).map((item) => ({ ...item, playlist_id: current.id })) });
      }
      // updated_at is set, not left to @updatedAt, which skips an update whose only change is to the items.
      return tx.playlist.update({ where: { id: current.id }, data: { ...columns(input), ...slugChange, updated_at: ctx.clock.now() }, include: withItems });
    }, LOCK_WAITING_TRANSACTION);
    return toView(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw ValidationError.field("playlist.slug", "has already been taken");
    throw error;
  }
}

export async function deletePlaylist(ctx: ServiceContext, id: number): Promise<{ id: number }> {
  const current = await requireRow(ctx, id);
  await ctx.db.playlist.delete({ where: { id: current.id } });
  return { id: current.id };
}

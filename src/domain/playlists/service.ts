import type { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext } from "../../platform/context.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { NotFoundError, ValidationError } from "../../platform/errors.js";
import { type Page, type PageRequest, pageWindow, pagination } from "../../platform/http/pagination.js";
import { writeWithSlug } from "../media/slugs.js";
import type { PlaylistCreateInput, PlaylistUpdateInput, PlaylistView } from "./schemas.js";

const withItems = {
  items: {
    orderBy: { position: "asc" },
    include: { media: { select: { id: true, slug: true, title: true, active: true, publish_at: true } } },
  },
} as const;
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

async function requireReferences(ctx: ServiceContext, input: PlaylistUpdateInput): Promise<void> {
  const company_id = ctx.companyId;
  if (input.media_ids && new Set(input.media_ids).size !== input.media_ids.length) {
    throw ValidationError.field("playlist.media_ids", "contains the same media more than once");
  }
  const [media, products, packs] = await Promise.all([
    input.media_ids?.length ? ctx.db.media.count({ where: { id: { in: input.media_ids }, company_id } }) : 0,
    input.product_ids?.length ? ctx.db.product.count({ where: { id: { in: input.product_ids }, company_id, deleted_at: null } }) : 0,
    input.enrollment_pack_ids?.length ? ctx.db.enrollmentPack.count({ where: { id: { in: input.enrollment_pack_ids }, company_id } }) : 0,
  ]);
  if (input.media_ids && media !== input.media_ids.length) throw ValidationError.field("playlist.media_ids", "contains ids that are not media of this company");
  if (input.product_ids && products !== new Set(input.product_ids).size) {
    throw ValidationError.field("playlist.product_ids", "contains ids that are not products of this company");
  }
  if (input.enrollment_pack_ids && packs !== new Set(input.enrollment_pack_ids).size) {
    throw ValidationError.field("playlist.enrollment_pack_ids", "contains ids that are not enrollment packs of this company");
  }
}

const unique = (values: number[] | undefined) => (values === undefined ? undefined : [...new Set(values)]);

function columns(input: PlaylistUpdateInput) {
  const data = {
    title: input.title,
    active: input.active,
    publish_at: input.publish_at === undefined ? undefined : input.publish_at === null ? null : new Date(input.publish_at),
    product_ids: unique(input.product_ids),
    enrollment_pack_ids: unique(input.enrollment_pack_ids),
  };
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));
}

const itemRows = (mediaIds: number[]) => mediaIds.map((media_id, position) => ({ media_id, position }));

export async function createPlaylist(ctx: ServiceContext, input: PlaylistCreateInput): Promise<PlaylistView> {
  await requireReferences(ctx, input);
  const row = await writeWithSlug(input.slug, input.title, "playlist", "playlist.slug", {
    takenWithPrefix: async (prefix) =>
      (await ctx.db.playlist.findMany({ where: { company_id: ctx.companyId, slug: { startsWith: prefix } }, select: { slug: true } })).map((r) => r.slug),
    write: (slug, custom) =>
      ctx.db.playlist.create({
        data: { ...columns(input), title: input.title, company_id: ctx.companyId, slug, custom_slug: custom, items: { create: itemRows(input.media_ids) } },
        include: withItems,
      }),
  });
  return toView(row);
}

export async function getPlaylist(ctx: ServiceContext, id: number): Promise<PlaylistView> {
  return toView(await requireRow(ctx, id));
}

export async function listPlaylists(ctx: ServiceContext, page: PageRequest): Promise<Page<PlaylistView>> {
  const where = { company_id: ctx.companyId };
  const [rows, total] = await Promise.all([
    ctx.db.playlist.findMany({ where, include: withItems, orderBy: [{ created_at: "desc" }, { id: "desc" }], ...pageWindow(page) }),
    ctx.db.playlist.count({ where }),
  ]);
  return { rows: rows.map(toView), pagination: pagination(page, total) };
}

/** `media_ids`, when sent, replaces the playlist's items in the new order. */
export async function updatePlaylist(ctx: ServiceContext, id: number, input: PlaylistUpdateInput): Promise<PlaylistView> {
  const current = await requireRow(ctx, id);
  await requireReferences(ctx, input);
  const slugChange = input.slug !== undefined && input.slug !== current.slug ? { slug: input.slug, custom_slug: true } : {};
  try {
    const row = await ctx.db.$transaction(async (tx) => {
      // Two concurrent reorders would otherwise interleave their item rewrites.
      await tx.$executeRaw`SELECT 1 FROM playlists WHERE id = ${current.id} FOR UPDATE`;
      if (input.media_ids) {
        await tx.playlistItem.deleteMany({ where: { playlist_id: current.id } });
        await tx.playlistItem.createMany({ data: itemRows(input.media_ids).map((item) => ({ ...item, playlist_id: current.id })) });
      }
      return tx.playlist.update({ where: { id: current.id }, data: { ...columns(input), ...slugChange }, include: withItems });
    });
    return toView(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw ValidationError.field("playlist.slug", "is already taken");
    throw error;
  }
}

export async function deletePlaylist(ctx: ServiceContext, id: number): Promise<{ id: number }> {
  const current = await requireRow(ctx, id);
  await ctx.db.playlist.delete({ where: { id: current.id } });
  return { id: current.id };
}

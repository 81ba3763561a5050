import type { Prisma } from "../../generated/prisma/client.js";

type Tx = Prisma.TransactionClient;

/**
 * Locks, in id order, the company's playlists that hold `mediaId` and are not among `locked`,
 * and answers every playlist locked so far. A playlist update locks its playlist before its
 * items reference their media, so a writer that removes a media's items locks the playlists
 * first too, and one order keeps two such writers from waiting for each other.
 */
export async function lockPlaylistsHolding(tx: Tx, companyId: number, mediaId: number, locked: number[] = []): Promise<number[]> {
  // Not lockCompanyRow: the playlists holding the media, any number of them, in id order; none is a 404.
  const rows = await tx.$queryRaw<{ id: number }[]>`
    SELECT p.id FROM playlists p
     WHERE p.company_id = ${companyId} AND p.id <> ALL(${locked}::int[])
       AND EXISTS (SELECT 1 FROM playlist_items i WHERE i.playlist_id = p.id AND i.media_id = ${mediaId})
     ORDER BY p.id FOR UPDATE OF p`;
  return [...locked, ...rows.map((row) => row.id)];
}

/**
 * Numbers each playlist's items 0..n-1 again in their order, after items were removed from
 * it, and moves its updated_at: its content changed. The (playlist, position) index is checked
 * row by row, so the items first take distinct negative places (-1, -2, ...) that no other item
 * holds, then their final ones.
 */
export async function renumberItems(tx: Tx, playlistIds: number[], now: Date): Promise<void> {
  if (playlistIds.length === 0) return;
  await tx.$executeRaw`
    UPDATE playlist_items i SET position = -ranked.rank
      FROM (SELECT id, row_number() OVER (PARTITION BY playlist_id ORDER BY position) AS rank FROM playlist_items WHERE playlist_id = ANY(${playlistIds}::int[])) ranked
     WHERE i.id = ranked.id`;
  await tx.$executeRaw`UPDATE playlist_items SET position = -position - 1 WHERE playlist_id = ANY(${playlistIds}::int[])`;
  await tx.playlist.updateMany({ where: { id: { in: playlistIds } }, data: { updated_at: now } });
}

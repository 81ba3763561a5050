import { Prisma } from "../../generated/prisma/client.js";
import { isoTimestampSql } from "../../platform/db/iso-timestamp.js";
import { OWNER_COLUMN, type OwnerType } from "./schemas.js";

/**
 * The metafields of the row `alias` (a media or a playlist) as a json array, in the shape of
 * the admin API's Metafield, ordered by namespace and key: a subquery for the public SDK's
 * statements, which build their answers in one round trip.
 */
export function metafieldsJsonSql(ownerType: OwnerType, alias: string): Prisma.Sql {
  const ownerColumn = Prisma.raw(`mf.${OWNER_COLUMN[ownerType]}`);
  return Prisma.sql`(SELECT COALESCE(json_agg(json_build_object(
        'id', mf.id, 'namespace', mf.namespace, 'key', mf.key, 'value', mf.value, 'value_type', mf.value_type,
        'description', mf.description, 'owner_type', ${ownerType}::text, 'owner_id', ${ownerColumn},
        'created_at', ${isoTimestampSql("mf.created_at")}, 'updated_at', ${isoTimestampSql("mf.updated_at")})
      ORDER BY mf.namespace, mf.key), '[]'::json)
     FROM metafields mf
    WHERE ${ownerColumn} = ${Prisma.raw(alias)}.id AND mf.company_id = ${Prisma.raw(alias)}.company_id)`;
}

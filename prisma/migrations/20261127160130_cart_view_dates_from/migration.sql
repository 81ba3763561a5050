-- The cart-local day a cart's stored view counted its subscription start dates from (null when
-- the view has none), written with the view by every mutation, so that a read on a later day
-- counts them from that day instead (domain/carts/cart-repository.ts, cartReader). Views stored
-- before counted from the UTC day they were stored on, which updated_at records; a view whose
-- `recurring` is not an array is left null (the CASE keeps json_array_length off it).
-- AlterTable
ALTER TABLE "carts" ADD COLUMN "view_dates_from" DATE;

UPDATE "carts" SET "view_dates_from" = ("updated_at" AT TIME ZONE 'UTC')::date
WHERE CASE WHEN json_typeof("view"->'recurring') = 'array' THEN json_array_length("view"->'recurring') > 0 ELSE false END;

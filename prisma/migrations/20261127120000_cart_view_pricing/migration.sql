-- What a cart's stored view was priced with, written with the view by every mutation, so that
-- the next one can warn of a line whose unit price (or the tax rate) changed in the catalog
-- rather than move the total silently. Carts stored before have none: their next mutation
-- compares nothing and writes it.
-- AlterTable
ALTER TABLE "carts" ADD COLUMN "view_pricing" JSON;

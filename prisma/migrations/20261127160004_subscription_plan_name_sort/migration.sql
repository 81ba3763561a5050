-- The plan list sorted by name followed the database's collation: on C (and C.UTF-8) every
-- capitalised name came before every lower-case one ("Zebra" before "apple"). The list sorts by
-- this column instead, as the agreements list sorts by lower(title).
-- AlterTable
ALTER TABLE "subscription_plans" ADD COLUMN "name_sort" TEXT NOT NULL GENERATED ALWAYS AS (lower("name")) STORED;

-- The length in bytes of an attachment's metadata as text, kept by PostgreSQL with the row: the
-- agreements list and bulk_clone read their agreements about 1 MiB at a time, and the stored size
-- of a compressed jsonb value says little about its length (16 KB of repetitive metadata is
-- stored in about 200 bytes), while reading the length otherwise means decompressing it.
-- AlterTable
ALTER TABLE "agreement_attachments" ADD COLUMN "metadata_octets" INTEGER NOT NULL GENERATED ALWAYS AS (octet_length("metadata"::text)) STORED;

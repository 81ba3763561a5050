-- The length in bytes of a media's JSON members as text, kept by PostgreSQL with the row: the
-- admin media list reads its media about 1 MiB at a time, and the size of a jsonb value cannot be
-- read without decompressing it (octet_length(subtitles::text) over 100 media of 1 MB of
-- subtitles took 0.4 s; the stored size of a compressed value says little about its length).
-- AlterTable
ALTER TABLE "media" ADD COLUMN "json_octets" INTEGER NOT NULL GENERATED ALWAYS AS (
  coalesce(octet_length("subtitles"::text), 0) + coalesce(octet_length("prompts"::text), 0)
  + coalesce(octet_length("settings"::text), 0) + coalesce(octet_length("watch"::text), 0)
) STORED;

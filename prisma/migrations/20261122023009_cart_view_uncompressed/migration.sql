-- The cart view (about 6 KB of JSON) is written by every cart mutation and read by every cart
-- read. Compressing it (pglz) cost about 50 µs of PostgreSQL's CPU per write and more per read
-- than fetching it uncompressed out of line (measured on the bench data set). lz4 would keep
-- it small as well, but the embedded database (PGlite) is built without lz4.
ALTER TABLE "carts" ALTER COLUMN "view" SET STORAGE EXTERNAL;

-- A media's tags and ranks are sets of names (docs/decisions.md, Media and playlists): the API
-- now keeps each name once, as first spelled, in the order sent, names differing only in letter
-- case or Unicode form being one. Media stored before kept repeats as sent (["a", "a", "b"]);
-- this drops them the same way, so old media read as new ones do. PostgreSQL's lower() folds
-- what the database's locale knows, which may be less than the API's rule (ASCII only under the
-- C locale): a repeat it cannot tell is left as stored, and goes on the media's next tag update.
UPDATE "media" SET
  "tags" = ARRAY(
    SELECT first.name FROM (
      SELECT DISTINCT ON (lower(normalize(sent.name, NFC))) normalize(sent.name, NFC) AS name, sent.position
      FROM unnest("media"."tags") WITH ORDINALITY AS sent(name, position)
      ORDER BY lower(normalize(sent.name, NFC)), sent.position
    ) AS first
    ORDER BY first.position
  ),
  "ranks" = ARRAY(
    SELECT first.name FROM (
      SELECT DISTINCT ON (lower(normalize(sent.name, NFC))) normalize(sent.name, NFC) AS name, sent.position
      FROM unnest("media"."ranks") WITH ORDINALITY AS sent(name, position)
      ORDER BY lower(normalize(sent.name, NFC)), sent.position
    ) AS first
    ORDER BY first.position
  )
WHERE cardinality("tags") > 1 OR cardinality("ranks") > 1;

-- Withdrawn ISO 639-1 codes (iw, in, ji, jw, mo, sh) are now read as the code that replaced
-- them (he, id, yi, jv, ro, sr) by every language parameter and translation key, so a
-- translation stored under a withdrawn code moves to the current one, where reads look for it.
-- When its page or media already has a translation in the current code, that one is what reads
-- found for the current code before, so it stays; the withdrawn row goes, since no request can
-- name it any more (a write or delete of `iw` now means `he`) and a row that can be neither read
-- nor removed would only resurface through a page's duplicate or its first-language fallback.

WITH withdrawn_languages (withdrawn, current) AS (VALUES ('iw', 'he'), ('in', 'id'), ('ji', 'yi'), ('jw', 'jv'), ('mo', 'ro'), ('sh', 'sr'))
DELETE FROM "custom_page_translations" AS t
 USING withdrawn_languages AS w
 WHERE t."lang" = w.withdrawn
   AND EXISTS (SELECT 1 FROM "custom_page_translations" AS o WHERE o."custom_page_id" = t."custom_page_id" AND o."lang" = w.current);

WITH withdrawn_languages (withdrawn, current) AS (VALUES ('iw', 'he'), ('in', 'id'), ('ji', 'yi'), ('jw', 'jv'), ('mo', 'ro'), ('sh', 'sr'))
UPDATE "custom_page_translations" AS t
   SET "lang" = w.current
  FROM withdrawn_languages AS w
 WHERE t."lang" = w.withdrawn;

WITH withdrawn_languages (withdrawn, current) AS (VALUES ('iw', 'he'), ('in', 'id'), ('ji', 'yi'), ('jw', 'jv'), ('mo', 'ro'), ('sh', 'sr'))
DELETE FROM "media_translations" AS t
 USING withdrawn_languages AS w
 WHERE t."language_iso" = w.withdrawn
   AND EXISTS (SELECT 1 FROM "media_translations" AS o WHERE o."media_id" = t."media_id" AND o."language_iso" = w.current);

WITH withdrawn_languages (withdrawn, current) AS (VALUES ('iw', 'he'), ('in', 'id'), ('ji', 'yi'), ('jw', 'jv'), ('mo', 'ro'), ('sh', 'sr'))
UPDATE "media_translations" AS t
   SET "language_iso" = w.current
  FROM withdrawn_languages AS w
 WHERE t."language_iso" = w.withdrawn;

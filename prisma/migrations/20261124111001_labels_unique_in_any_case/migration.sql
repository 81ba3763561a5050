-- Label names were unique per company only with exact case ("Promo", "promo" and "PROMO" could
-- all exist); they are now unique in any case, by a unique index on (company_id, lower(name)).
-- Labels that already differ only in case keep their ids (custom pages point at them); all
-- but the oldest of each such group get their id appended ("promo (12)"), so the index can be
-- built and every label stays distinguishable in the list.

UPDATE "labels" AS l
   SET "name" = l."name" || ' (' || l."id" || ')'
 WHERE EXISTS (
   SELECT 1 FROM "labels" AS older
    WHERE older."company_id" = l."company_id" AND lower(older."name") = lower(l."name") AND older."id" < l."id"
 );

-- DropIndex
DROP INDEX "labels_company_id_name_key";

CREATE UNIQUE INDEX "labels_company_id_lower_name_key" ON "labels"("company_id", lower("name"));

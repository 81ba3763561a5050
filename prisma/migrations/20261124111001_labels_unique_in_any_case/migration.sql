-- Label names were unique per company only with exact case ("Promo", "promo" and "PROMO" could
-- all exist); they are now unique in any case, by a unique index on (company_id, lower(name)).
-- Labels that already differ only in case keep their ids (custom pages point at them); all
-- but the oldest of each such group get their id appended ("promo (12)"), so the index can be
-- built and every label stays distinguishable in the list.

-- A name so made may itself be taken ("Promo (12)" beside "promo" of id 12): the id is appended
-- again until the name is free in any case.

DO $$
DECLARE
  duplicate RECORD;
  candidate TEXT;
BEGIN
  FOR duplicate IN
    SELECT l."id", l."company_id", l."name" FROM "labels" AS l
     WHERE EXISTS (
       SELECT 1 FROM "labels" AS older
        WHERE older."company_id" = l."company_id" AND lower(older."name") = lower(l."name") AND older."id" < l."id"
     )
     ORDER BY l."id"
  LOOP
    candidate := duplicate."name" || ' (' || duplicate."id" || ')';
    WHILE EXISTS (SELECT 1 FROM "labels" AS o WHERE o."company_id" = duplicate."company_id" AND lower(o."name") = lower(candidate)) LOOP
      candidate := candidate || ' (' || duplicate."id" || ')';
    END LOOP;
    UPDATE "labels" SET "name" = candidate WHERE "id" = duplicate."id";
  END LOOP;
END $$;

-- DropIndex
DROP INDEX "labels_company_id_name_key";

CREATE UNIQUE INDEX "labels_company_id_lower_name_key" ON "labels"("company_id", lower("name"));

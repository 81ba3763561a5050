-- A plan could be stored with a trial_period_unit and no trial_period (the API accepted it until
-- the rule "a unit needs a period" was added). Such a unit means no trial: the schedule ignores a
-- unit without a period. Clearing it keeps every plan updatable under the rule, which checks the
-- stored members an update leaves in place.
UPDATE "subscription_plans" SET "trial_period_unit" = NULL WHERE "trial_period" IS NULL AND "trial_period_unit" IS NOT NULL;

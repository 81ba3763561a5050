-- Subscription order activities recorded `total` in minor units without a currency, so an
-- address change into another currency read as fils before and yen after. They now record it
-- as the order's wire shows it (a number in the currency's units: 84.39, not 8439) with
-- `currency_code`. This converts the snapshots already stored.
--
-- The currency of every stored snapshot is known: an order's currency is its ship-to
-- country's, the ship-to country changes only through an address change, and every address
-- change recorded the country before and after it. So:
--   shipping_address_updated: the currency of the country its own `ship_to` names;
--   created, items_updated: the currency of the ship-to country at that moment: the country
--     the latest earlier address change moved to, else the one the first later address change
--     moved from, else (an order whose address never changed) the order's currency.
-- Snapshots without `total` (skips, payments, ...) and snapshots that already carry
-- `currency_code` are left as they are.

WITH address_changes AS (
  SELECT subscription_order_id, id,
         (before -> 'ship_to' ->> 'country_id')::int AS from_country_id,
         (after -> 'ship_to' ->> 'country_id')::int AS to_country_id
    FROM subscription_order_activities
   WHERE action = 'shipping_address_updated'
),
snapshot_currencies AS (
  SELECT a.id,
         CASE WHEN a.action = 'shipping_address_updated'
              THEN (SELECT c.currency_code FROM countries c WHERE c.id = (a.before -> 'ship_to' ->> 'country_id')::int)
              ELSE moment.currency_code END AS before_code,
         CASE WHEN a.action = 'shipping_address_updated'
              THEN (SELECT c.currency_code FROM countries c WHERE c.id = (a.after -> 'ship_to' ->> 'country_id')::int)
              ELSE moment.currency_code END AS after_code
    FROM subscription_order_activities a
    JOIN subscription_orders o ON o.id = a.subscription_order_id
    CROSS JOIN LATERAL (
      SELECT COALESCE(
               (SELECT c.currency_code FROM countries c WHERE c.id = COALESCE(
                  (SELECT ac.to_country_id FROM address_changes ac
                    WHERE ac.subscription_order_id = a.subscription_order_id AND ac.id < a.id ORDER BY ac.id DESC LIMIT 1),
                  (SELECT ac.from_country_id FROM address_changes ac
                    WHERE ac.subscription_order_id = a.subscription_order_id AND ac.id > a.id ORDER BY ac.id LIMIT 1))),
               o.currency_code) AS currency_code
    ) moment
   WHERE (a.before ? 'total' AND NOT a.before ? 'currency_code')
      OR (a.after ? 'total' AND NOT a.after ? 'currency_code')
),
converted AS (
  SELECT s.id,
         s.before_code,
         s.after_code,
         (SELECT cu.decimal_places FROM currencies cu WHERE cu.code = s.before_code) AS before_places,
         (SELECT cu.decimal_places FROM currencies cu WHERE cu.code = s.after_code) AS after_places
    FROM snapshot_currencies s
)
UPDATE subscription_order_activities a
   SET before = CASE WHEN a.before ? 'total' AND NOT a.before ? 'currency_code'
                     THEN a.before || jsonb_build_object(
                            'total', trim_scale((a.before ->> 'total')::numeric / 10::numeric ^ v.before_places),
                            'currency_code', v.before_code)
                     ELSE a.before END,
       after = CASE WHEN a.after ? 'total' AND NOT a.after ? 'currency_code'
                    THEN a.after || jsonb_build_object(
                           'total', trim_scale((a.after ->> 'total')::numeric / 10::numeric ^ v.after_places),
                           'currency_code', v.after_code)
                    ELSE a.after END
  FROM converted v
 WHERE v.id = a.id;

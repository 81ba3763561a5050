-- Checks the rows that were there before 20261124113000 re-added these keys NOT VALID. VALIDATE
-- takes a SHARE UPDATE EXCLUSIVE lock, so carts and orders stay writable during the scan; it runs
-- in a migration of its own so that the previous one's ACCESS EXCLUSIVE lock is already released.

ALTER TABLE "agreements" VALIDATE CONSTRAINT "agreements_enrollment_pack_id_fkey";
ALTER TABLE "subscription_orders" VALIDATE CONSTRAINT "subscription_orders_shipping_method_id_fkey";
ALTER TABLE "carts" VALIDATE CONSTRAINT "carts_enrollment_pack_id_fkey";
ALTER TABLE "carts" VALIDATE CONSTRAINT "carts_shipping_method_id_fkey";

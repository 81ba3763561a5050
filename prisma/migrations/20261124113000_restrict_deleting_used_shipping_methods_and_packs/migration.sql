-- The keys are added NOT VALID: adding a checked key would hold this migration's ACCESS EXCLUSIVE
-- lock on carts and subscription_orders while it scans every row. The next migration validates
-- them under a lock that lets cart writes go on. New and changed rows are checked from here on.

-- DropForeignKey
ALTER TABLE "agreements" DROP CONSTRAINT "agreements_enrollment_pack_id_fkey";

-- DropForeignKey
ALTER TABLE "subscription_orders" DROP CONSTRAINT "subscription_orders_shipping_method_id_fkey";

-- DropForeignKey
ALTER TABLE "carts" DROP CONSTRAINT "carts_enrollment_pack_id_fkey";

-- DropForeignKey
ALTER TABLE "carts" DROP CONSTRAINT "carts_shipping_method_id_fkey";

-- AddForeignKey
ALTER TABLE "agreements" ADD CONSTRAINT "agreements_enrollment_pack_id_fkey" FOREIGN KEY ("enrollment_pack_id") REFERENCES "enrollment_packs"("id") ON DELETE NO ACTION ON UPDATE CASCADE NOT VALID;

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_shipping_method_id_fkey" FOREIGN KEY ("shipping_method_id") REFERENCES "shipping_methods"("id") ON DELETE NO ACTION ON UPDATE CASCADE NOT VALID;

-- AddForeignKey
ALTER TABLE "carts" ADD CONSTRAINT "carts_enrollment_pack_id_fkey" FOREIGN KEY ("enrollment_pack_id") REFERENCES "enrollment_packs"("id") ON DELETE NO ACTION ON UPDATE CASCADE NOT VALID;

-- AddForeignKey
ALTER TABLE "carts" ADD CONSTRAINT "carts_shipping_method_id_fkey" FOREIGN KEY ("shipping_method_id") REFERENCES "shipping_methods"("id") ON DELETE NO ACTION ON UPDATE CASCADE NOT VALID;

-- DropForeignKey
ALTER TABLE "agreements" DROP CONSTRAINT "agreements_enrollment_pack_id_fkey";

-- DropForeignKey
ALTER TABLE "subscription_orders" DROP CONSTRAINT "subscription_orders_shipping_method_id_fkey";

-- DropForeignKey
ALTER TABLE "carts" DROP CONSTRAINT "carts_enrollment_pack_id_fkey";

-- DropForeignKey
ALTER TABLE "carts" DROP CONSTRAINT "carts_shipping_method_id_fkey";

-- AddForeignKey
ALTER TABLE "agreements" ADD CONSTRAINT "agreements_enrollment_pack_id_fkey" FOREIGN KEY ("enrollment_pack_id") REFERENCES "enrollment_packs"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_shipping_method_id_fkey" FOREIGN KEY ("shipping_method_id") REFERENCES "shipping_methods"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "carts" ADD CONSTRAINT "carts_enrollment_pack_id_fkey" FOREIGN KEY ("enrollment_pack_id") REFERENCES "enrollment_packs"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "carts" ADD CONSTRAINT "carts_shipping_method_id_fkey" FOREIGN KEY ("shipping_method_id") REFERENCES "shipping_methods"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

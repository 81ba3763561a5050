-- Deleting a row runs its foreign keys' checks and actions on the referencing tables; without
-- an index on the referencing column each one is a sequential scan of that table, across all
-- companies. cart_items.parent_id is checked on every removal of a cart line.

-- CreateIndex
CREATE INDEX "cart_items_parent_id_idx" ON "cart_items"("parent_id");

-- CreateIndex
CREATE INDEX "cart_items_subscription_plan_id_idx" ON "cart_items"("subscription_plan_id");

-- CreateIndex
CREATE INDEX "carts_shipping_method_id_idx" ON "carts"("shipping_method_id");

-- CreateIndex
CREATE INDEX "carts_enrollment_pack_id_idx" ON "carts"("enrollment_pack_id");

-- CreateIndex
CREATE INDEX "subscription_orders_shipping_method_id_idx" ON "subscription_orders"("shipping_method_id");

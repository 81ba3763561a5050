-- A plan update commits the plan's new price adjustment on its own and then reprices the plan's
-- orders in short batches, each its own transaction, instead of holding every order's row lock
-- for the whole repricing. The plan counts its pricing revisions, each order stores the revision
-- it is priced at, and the plan records the revision whose repricing ran to its end, so that one
-- cut short (the process died) is found and finished at the next start.
-- Every stored order was repriced with its plan's adjustment in the plan update's transaction
-- until now: revision 0 everywhere is the truth.
-- AlterTable
ALTER TABLE "subscription_plans" ADD COLUMN "pricing_revision" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "orders_repriced_revision" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "subscription_orders" ADD COLUMN "plan_pricing_revision" INTEGER NOT NULL DEFAULT 0;

-- The batches walk a plan's orders in id order.
-- CreateIndex
CREATE INDEX "subscription_orders_subscription_plan_id_id_idx" ON "subscription_orders"("subscription_plan_id", "id");

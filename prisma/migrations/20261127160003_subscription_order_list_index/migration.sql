-- DropIndex
DROP INDEX "subscription_orders_company_id_next_bill_date_idx";

-- CreateIndex
CREATE INDEX "subscription_orders_company_id_next_bill_date_id_idx" ON "subscription_orders"("company_id", "next_bill_date", "id");

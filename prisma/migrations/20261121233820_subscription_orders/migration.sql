-- CreateTable
CREATE TABLE "subscription_orders" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "order_number" TEXT NOT NULL,
    "customer_id" INTEGER NOT NULL,
    "user_id" INTEGER,
    "buyer_id" INTEGER,
    "subscription_plan_id" INTEGER,
    "subscription_interval" INTEGER NOT NULL,
    "subscription_interval_unit" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "next_bill_date" DATE NOT NULL,
    "bill_date" DATE,
    "payment_method_id" INTEGER,
    "shipping_method_id" INTEGER,
    "ship_to_name" TEXT NOT NULL,
    "ship_to_address1" TEXT NOT NULL,
    "ship_to_address2" TEXT,
    "ship_to_city" TEXT NOT NULL,
    "ship_to_state" TEXT,
    "ship_to_postal_code" TEXT,
    "ship_to_country_id" INTEGER NOT NULL,
    "bill_to_name" TEXT NOT NULL,
    "bill_to_address1" TEXT NOT NULL,
    "bill_to_address2" TEXT,
    "bill_to_city" TEXT NOT NULL,
    "bill_to_state" TEXT,
    "bill_to_postal_code" TEXT,
    "bill_to_country_id" INTEGER NOT NULL,
    "skips_count" INTEGER NOT NULL DEFAULT 0,
    "cancelled_at" TIMESTAMPTZ(3),
    "cancellation_reason" TEXT,
    "additional_feedback" TEXT,
    "currency_code" CHAR(3) NOT NULL,
    "subtotal" INTEGER NOT NULL,
    "discount" INTEGER NOT NULL,
    "tax" INTEGER NOT NULL,
    "shipping" INTEGER NOT NULL,
    "total" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "subscription_orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscription_order_items" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "subscription_order_id" INTEGER NOT NULL,
    "variant_id" INTEGER NOT NULL,
    "quantity" INTEGER NOT NULL,
    "option_value_ids" INTEGER[],
    "unit_price" INTEGER NOT NULL,
    "subtotal" INTEGER NOT NULL,
    "discount" INTEGER NOT NULL,
    "tax" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "subscription_order_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscription_order_activities" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "subscription_order_id" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "actor_type" TEXT NOT NULL,
    "actor_id" TEXT,
    "before" JSONB,
    "after" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscription_order_activities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "paypal_approvals" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "subscription_order_id" INTEGER NOT NULL,
    "token" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "payer_action_url" TEXT NOT NULL,
    "payment_method_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "paypal_approvals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mail_outbox" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "to" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimed_at" TIMESTAMPTZ(3),
    "sent_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mail_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "subscription_orders_company_id_status_idx" ON "subscription_orders"("company_id", "status");

-- CreateIndex
CREATE INDEX "subscription_orders_company_id_next_bill_date_idx" ON "subscription_orders"("company_id", "next_bill_date");

-- CreateIndex
CREATE INDEX "subscription_orders_company_id_customer_id_idx" ON "subscription_orders"("company_id", "customer_id");

-- CreateIndex
CREATE INDEX "subscription_orders_subscription_plan_id_status_idx" ON "subscription_orders"("subscription_plan_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "subscription_orders_company_id_order_number_key" ON "subscription_orders"("company_id", "order_number");

-- CreateIndex
CREATE INDEX "subscription_order_items_subscription_order_id_position_idx" ON "subscription_order_items"("subscription_order_id", "position");

-- CreateIndex
CREATE INDEX "subscription_order_activities_subscription_order_id_id_idx" ON "subscription_order_activities"("subscription_order_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "paypal_approvals_token_key" ON "paypal_approvals"("token");

-- CreateIndex
CREATE INDEX "paypal_approvals_subscription_order_id_idx" ON "paypal_approvals"("subscription_order_id");

-- CreateIndex
CREATE INDEX "mail_outbox_status_next_attempt_at_idx" ON "mail_outbox"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "mail_outbox_company_id_idx" ON "mail_outbox"("company_id");

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_buyer_id_fkey" FOREIGN KEY ("buyer_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_subscription_plan_id_fkey" FOREIGN KEY ("subscription_plan_id") REFERENCES "subscription_plans"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_payment_method_id_fkey" FOREIGN KEY ("payment_method_id") REFERENCES "payment_methods"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_shipping_method_id_fkey" FOREIGN KEY ("shipping_method_id") REFERENCES "shipping_methods"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_ship_to_country_id_fkey" FOREIGN KEY ("ship_to_country_id") REFERENCES "countries"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_bill_to_country_id_fkey" FOREIGN KEY ("bill_to_country_id") REFERENCES "countries"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_currency_code_fkey" FOREIGN KEY ("currency_code") REFERENCES "currencies"("code") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_order_items" ADD CONSTRAINT "subscription_order_items_subscription_order_id_fkey" FOREIGN KEY ("subscription_order_id") REFERENCES "subscription_orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_order_items" ADD CONSTRAINT "subscription_order_items_variant_id_fkey" FOREIGN KEY ("variant_id") REFERENCES "variants"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_order_activities" ADD CONSTRAINT "subscription_order_activities_subscription_order_id_fkey" FOREIGN KEY ("subscription_order_id") REFERENCES "subscription_orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "paypal_approvals" ADD CONSTRAINT "paypal_approvals_subscription_order_id_fkey" FOREIGN KEY ("subscription_order_id") REFERENCES "subscription_orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "paypal_approvals" ADD CONSTRAINT "paypal_approvals_payment_method_id_fkey" FOREIGN KEY ("payment_method_id") REFERENCES "payment_methods"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "carts" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "cart_token" TEXT NOT NULL,
    "country_id" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'start',
    "type" TEXT NOT NULL DEFAULT 'regular',
    "buyer_rep_id" INTEGER,
    "customer_id" INTEGER,
    "email" TEXT,
    "phone" TEXT,
    "email_marketing" BOOLEAN,
    "sms_marketing" BOOLEAN,
    "language_iso" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "immutable_items" BOOLEAN NOT NULL DEFAULT false,
    "source" TEXT,
    "order_confirmation_url" TEXT,
    "order_failure_url" TEXT,
    "session_uuid" TEXT,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "enrollment_pack_id" INTEGER,
    "shipping_method_id" INTEGER,
    "discount_codes" TEXT[],
    "payment_method_id" INTEGER,
    "ship_to" JSONB,
    "bill_to" JSONB,
    "use_shipping_address_for_billing" BOOLEAN NOT NULL DEFAULT false,
    "view" JSONB NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "carts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cart_items" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "cart_id" INTEGER NOT NULL,
    "variant_id" INTEGER NOT NULL,
    "quantity" INTEGER NOT NULL,
    "parent_id" INTEGER,
    "display_to_customer" BOOLEAN NOT NULL DEFAULT true,
    "subscription" BOOLEAN NOT NULL DEFAULT false,
    "subscription_plan_id" INTEGER,
    "enrollment" BOOLEAN NOT NULL DEFAULT false,
    "cv" INTEGER,
    "qv" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "cart_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cart_attributions" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "cart_id" INTEGER NOT NULL,
    "signal" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "rep_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cart_attributions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "carts_cart_token_key" ON "carts"("cart_token");

-- CreateIndex
CREATE INDEX "carts_company_id_created_at_idx" ON "carts"("company_id", "created_at");

-- CreateIndex
CREATE INDEX "cart_items_cart_id_id_idx" ON "cart_items"("cart_id", "id");

-- CreateIndex
CREATE INDEX "cart_attributions_cart_id_id_idx" ON "cart_attributions"("cart_id", "id");

-- AddForeignKey
ALTER TABLE "carts" ADD CONSTRAINT "carts_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "carts" ADD CONSTRAINT "carts_country_id_fkey" FOREIGN KEY ("country_id") REFERENCES "countries"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "carts" ADD CONSTRAINT "carts_buyer_rep_id_fkey" FOREIGN KEY ("buyer_rep_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "carts" ADD CONSTRAINT "carts_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "carts" ADD CONSTRAINT "carts_enrollment_pack_id_fkey" FOREIGN KEY ("enrollment_pack_id") REFERENCES "enrollment_packs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "carts" ADD CONSTRAINT "carts_shipping_method_id_fkey" FOREIGN KEY ("shipping_method_id") REFERENCES "shipping_methods"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "carts" ADD CONSTRAINT "carts_payment_method_id_fkey" FOREIGN KEY ("payment_method_id") REFERENCES "payment_methods"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cart_items" ADD CONSTRAINT "cart_items_cart_id_fkey" FOREIGN KEY ("cart_id") REFERENCES "carts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cart_items" ADD CONSTRAINT "cart_items_variant_id_fkey" FOREIGN KEY ("variant_id") REFERENCES "variants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cart_items" ADD CONSTRAINT "cart_items_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "cart_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cart_items" ADD CONSTRAINT "cart_items_subscription_plan_id_fkey" FOREIGN KEY ("subscription_plan_id") REFERENCES "subscription_plans"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cart_attributions" ADD CONSTRAINT "cart_attributions_cart_id_fkey" FOREIGN KEY ("cart_id") REFERENCES "carts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cart_attributions" ADD CONSTRAINT "cart_attributions_rep_id_fkey" FOREIGN KEY ("rep_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- A fixed-amount discount code may be bound to one currency: it then applies only in carts of
-- that currency, its amount in that currency's units. Existing codes stay unbound (NULL): their
-- amount is applied in the currency of whichever cart uses them, as before.
-- AlterTable
ALTER TABLE "discounts" ADD COLUMN "currency_code" CHAR(3);

-- A currency a code is bound to cannot go while the code names it: the code would silently
-- apply in every currency again. Currencies are reference data, never deleted, so the key needs
-- no index (test/platform/foreign-key-indexes.test.ts).
-- AddForeignKey
ALTER TABLE "discounts" ADD CONSTRAINT "discounts_currency_code_fkey" FOREIGN KEY ("currency_code") REFERENCES "currencies"("code") ON DELETE RESTRICT ON UPDATE CASCADE;

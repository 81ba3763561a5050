-- A payment token PayPal vaulted for an approval that a later payment change superseded is
-- deleted at PayPal by a background worker, never inside the change's request: vault_delete_at
-- is when the next attempt is due (null: nothing to delete, or given up), vault_delete_attempts
-- how many failed, vault_deleted_at when PayPal confirmed it gone (docs/decisions.md,
-- "Superseded PayPal accounts are deleted at PayPal").
-- AlterTable
ALTER TABLE "paypal_approvals" ADD COLUMN "vault_delete_at" TIMESTAMPTZ(3),
ADD COLUMN "vault_delete_attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "vault_deleted_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "paypal_approvals_vault_delete_at_idx" ON "paypal_approvals"("vault_delete_at");

-- authorize_paypal stores PayPal's answer (the vault payment token) on the approval ("vaulted")
-- before it waits for the order's row lock: a call that finds it completes the approval from it
-- and never asks PayPal again with the setup token PayPal has already used.
-- AlterTable
ALTER TABLE "paypal_approvals" ADD COLUMN "payment_token_id" TEXT,
ADD COLUMN "paypal_email" TEXT;

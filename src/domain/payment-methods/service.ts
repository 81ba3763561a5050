import type { Db } from "../../platform/db/database.js";
import { NotFoundError, ValidationError } from "../../platform/errors.js";

interface SavedCardInput {
  customerId: number;
  cardType: string;
  lastFour: string;
  expMonth: number;
  expYear: number;
}

/**
 * Card brands as payment processors name them (Stripe's list): what carts and subscription orders
 * show beside the last four digits. Any text used to be stored, thousands of characters included.
 */
const CARD_TYPES = ["amex", "cartes_bancaires", "diners", "discover", "eftpos_au", "jcb", "mastercard", "unionpay", "visa"] as const;

/** Adds a saved card to a customer's payment account (the set of their payment methods). */
export async function createSavedCard(db: Db, input: SavedCardInput) {
  const customer = await db.user.findUnique({ where: { id: input.customerId } });
  if (!customer || customer.role !== "customer") throw new NotFoundError("Customer not found");
  const cardType = input.cardType.trim().toLowerCase();
  if (!(CARD_TYPES as readonly string[]).includes(cardType)) throw ValidationError.field("card_type", `must be one of ${CARD_TYPES.join(", ")}`);
  if (!/^\d{4}$/.test(input.lastFour)) throw ValidationError.field("last_four", "must be four digits");
  if (!Number.isInteger(input.expMonth) || input.expMonth < 1 || input.expMonth > 12) throw ValidationError.field("exp_month", "must be 1 to 12");
  if (!Number.isInteger(input.expYear) || input.expYear < 2000 || input.expYear > 2200) throw ValidationError.field("exp_year", "must be a four-digit year");
  return db.paymentMethod.create({
    data: {
      company_id: customer.company_id,
      user_id: customer.id,
      kind: "credit_card",
      card_type: cardType,
      last_four: input.lastFour,
      exp_month: input.expMonth,
      exp_year: input.expYear,
    },
  });
}

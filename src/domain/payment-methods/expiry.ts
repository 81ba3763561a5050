// Which saved cards can still pay: a subscription's next bill and a cart's checkout are charges
// yet to be made, so a card that has already expired cannot be the one they go to.

/**
 * A card is valid through the last day of its expiry month, in UTC as every calendar day of
 * subscriptions is. A method without an expiry on record (PayPal) never expires.
 */
export function isCardExpired(card: { exp_month: number | null; exp_year: number | null }, now: Date): boolean {
  if (card.exp_month === null || card.exp_year === null) return false;
  const year = now.getUTCFullYear();
  return year > card.exp_year || (year === card.exp_year && now.getUTCMonth() + 1 > card.exp_month);
}

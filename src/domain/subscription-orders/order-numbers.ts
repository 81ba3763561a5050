// An order's number is its id, zero-padded, behind "SO-": what the customer sees (the reminder
// mail quotes it) and may quote back. The letters make it never a run of digits, so a retrieve's
// path names an order by either without doubt: digits are an id, "SO-..." is an order number.

/** The number an order gets once its id exists (the insert stores a provisional one first). */
export const orderNumberFor = (id: number): string => `SO-${String(id).padStart(6, "0")}`;

/** What orderNumberFor writes: an id of 1 to 10 digits behind "SO-", at least six of them. */
export const ORDER_NUMBER_PATTERN = /^SO-\d{6,10}$/;

import type { CartTx } from "./context.js";
import type { AttributionInput } from "./schemas.js";

// Attribution names the rep who referred the buyer. It is stored as given, with the rep it
// resolved to (who becomes the cart's volume_rep); a signal naming no rep is still kept.

type Signal = "share_guid" | "svc_rep_id" | "email" | "username" | "external_id";

function signalOf(input: AttributionInput): { signal: Signal; value: string } {
  if ("share_guid" in input) return { signal: "share_guid", value: input.share_guid };
  if ("svc_rep_id" in input) return { signal: "svc_rep_id", value: String(input.svc_rep_id) };
  if ("email" in input) return { signal: "email", value: input.email };
  if ("username" in input) return { signal: "username", value: input.username };
  return { signal: "external_id", value: input.external_id };
}

function repWhere(signal: Signal, value: string) {
  switch (signal) {
    case "svc_rep_id":
      return { id: Number(value) };
    case "email":
      return { email: value.toLowerCase() };
    default:
      return { [signal]: value };
  }
}

export async function recordAttribution(tx: CartTx, cart: { id: number; companyId: number }, input: AttributionInput): Promise<void> {
  const { signal, value } = signalOf(input);
  const rep = await tx.user.findFirst({ where: { company_id: cart.companyId, role: "rep", ...repWhere(signal, value) }, select: { id: true } });
  await tx.cartAttribution.create({ data: { company_id: cart.companyId, cart_id: cart.id, signal, value, rep_id: rep?.id ?? null } });
}

import type { FastifyRequest } from "fastify";
import type { PaymentMethodCredential } from "../../domain/carts/cart-buyer.js";
import { verifyUserToken } from "../../platform/auth/user-tokens.js";
import { ForbiddenError, UnauthorizedError } from "../../platform/errors.js";
import { bearerToken, companyFromRequest, requiredCompany } from "../../platform/http/company-auth.js";

// The two cart operations that need a bearer credential beside the cart token check it in an
// onRequest hook: a missing or invalid credential is a 401 before the body is validated and
// before an Idempotency-Key replays anything.

declare module "fastify" {
  interface FastifyRequest {
    paymentMethodCredential: PaymentMethodCredential | null;
  }
}

// Three dot-separated parts (an unsigned `alg: none` token has an empty third) is a JWT
// attempt, refused as a user token; company tokens have no dots.
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** onRequest of update_volumes: a company API token; it decides which company's carts are reachable (`request.companyId`). */
export async function checkCompanyToken(request: FastifyRequest): Promise<void> {
  const token = bearerToken(request);
  if (token !== null && JWT_SHAPE.test(token)) {
    // A valid user token is a credential without this right (403); an invalid one is none (401).
    await verifyUserToken(token, request.server.userTokenKey, request.server.clock.now());
    throw new ForbiddenError("Only a company API token may set a line's volumes");
  }
  request.companyId = await companyFromRequest(request);
  requiredCompany(request);
}

/** onRequest of set_saved_payment_method: a company API token, or a customer's user token (JWT). */
export async function checkPaymentMethodCredential(request: FastifyRequest): Promise<void> {
  const token = bearerToken(request);
  if (token === null) throw new UnauthorizedError();
  if (!JWT_SHAPE.test(token)) {
    request.companyId = await companyFromRequest(request);
    request.paymentMethodCredential = { companyId: requiredCompany(request) };
    return;
  }
  const { userTokenKey, clock } = request.server;
  const claims = await verifyUserToken(token, userTokenKey, clock.now());
  if (claims.role !== "customer") throw new ForbiddenError("Only a customer token or a company token may choose a payment method");
  request.paymentMethodCredential = { customerId: claims.userId, companyId: claims.companyId };
}

/** For the handler behind checkPaymentMethodCredential: the credential, typed as present. */
export function requiredPaymentMethodCredential(request: FastifyRequest): PaymentMethodCredential {
  if (request.paymentMethodCredential === null) throw new UnauthorizedError();
  return request.paymentMethodCredential;
}

/**
 * Who a request checked by the hooks above acts as ("company:12", "customer:34"), for the
 * idempotency scope; null for the cart operations that take no credential but the cart token.
 */
export function checkedCredential(request: FastifyRequest): string | null {
  const credential = request.paymentMethodCredential;
  if (credential !== null) return "customerId" in credential ? `customer:${credential.customerId}` : `company:${credential.companyId}`;
  return request.companyId === null ? null : `company:${request.companyId}`;
}

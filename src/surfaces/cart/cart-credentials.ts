import type { FastifyRequest } from "fastify";
import type { PaymentMethodCredential } from "../../domain/carts/cart-buyer.js";
import { verifyUserToken } from "../../platform/auth/user-tokens.js";
import { ForbiddenError, UnauthorizedError } from "../../platform/errors.js";
import { bearerToken, companyFromRequest } from "../../platform/http/company-auth.js";

// Three dot-separated parts (an unsigned `alg: none` token has an empty third) is a JWT
// attempt, refused as a user token; company tokens have no dots.
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** update_volumes: a company API token; it decides which company's carts are reachable. */
export async function requiredCompanyToken(request: FastifyRequest): Promise<number> {
  const companyId = await companyFromRequest(request);
  if (companyId === null) throw new UnauthorizedError();
  return companyId;
}

/** set_saved_payment_method: a company API token, or a customer's user token (JWT). */
export async function paymentMethodCredential(request: FastifyRequest): Promise<PaymentMethodCredential> {
  const token = bearerToken(request);
  if (token === null) throw new UnauthorizedError();
  if (!JWT_SHAPE.test(token)) return { companyId: await requiredCompanyToken(request) };
  const { config, clock } = request.server;
  const claims = await verifyUserToken(token, config.jwtSecret, clock.now());
  if (claims.role !== "customer") throw new ForbiddenError("Only a customer token or a company token may choose a payment method");
  return { customerId: claims.userId, companyId: claims.companyId };
}

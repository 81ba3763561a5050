import type { FastifyInstance, FastifyRequest } from "fastify";
import { verifyCompanyToken } from "../auth/company-tokens.js";
import { BadRequestError, InvalidCredentialError, UnauthorizedError } from "../errors.js";

/**
 * The one auth hook for company API tokens. A route says how much it needs in its config:
 * `auth: "required"` (the default wherever the hook is installed) or `"optional"` (a token, when
 * sent, must still be valid). The token decides the company: `request.companyId`.
 */
type CompanyAuthMode = "required" | "optional";

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: CompanyAuthMode;
  }
  interface FastifyRequest {
    companyId: number | null;
  }
}

/**
 * The request's bearer token, null when it sends none. Node keeps the first of two Authorization
 * headers and drops the other, so two credentials would silently count as the first: a 400.
 */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  if (sendsTwoAuthorizations(request.raw.rawHeaders)) {
    throw new BadRequestError("Send one Authorization header: this request has more than one", { code: "ambiguous_credentials" });
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match?.[1]) return match[1];
  const message = "Authorization header must be 'Bearer <token>'";
  // A malformed bearer token is an invalid one; a credential of another scheme (Basic) is none
  // the API takes, which RFC 6750 §3.1 answers with the bare challenge.
  if (/^Bearer(\s|$)/i.test(header)) throw new InvalidCredentialError(message);
  throw new UnauthorizedError(message, { code: "invalid_token" });
}

const AUTHORIZATION = "authorization";

// Only requests that send an Authorization header get here: one pass over their raw header names.
function sendsTwoAuthorizations(rawHeaders: string[]): boolean {
  let seen = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    if (name.length === AUTHORIZATION.length && name.toLowerCase() === AUTHORIZATION && ++seen > 1) return true;
  }
  return false;
}

export async function companyFromRequest(request: FastifyRequest): Promise<number | null> {
  const token = bearerToken(request);
  if (!token) return null;
  const companyId = await verifyCompanyToken(request.server.db.sql, token, request.server.clock);
  if (companyId === null) throw new InvalidCredentialError("Invalid or revoked API token");
  return companyId;
}

/** Installs the hook on every route of the calling plugin's scope. */
export function useCompanyAuth(app: FastifyInstance): void {
  app.addHook("onRequest", async (request) => {
    const mode = request.routeOptions.config.auth ?? "required";
    const companyId = await companyFromRequest(request);
    if (companyId === null && mode === "required") throw new UnauthorizedError();
    request.companyId = companyId;
  });
}

/** For handlers behind `auth: "required"`: the company, typed as present. */
export function requiredCompany(request: FastifyRequest): number {
  if (request.companyId === null) throw new UnauthorizedError();
  return request.companyId;
}

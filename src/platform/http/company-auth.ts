import type { FastifyInstance, FastifyRequest } from "fastify";
import { verifyCompanyToken } from "../auth/company-tokens.js";
import { UnauthorizedError } from "../errors.js";

/**
 * The one auth hook for company API tokens. A route says how much it needs in its config:
 * `auth: "required"` (the default wherever the hook is installed) or `"optional"` (a token, when
 * sent, must still be valid). The token decides the company: `request.companyId`.
 */
export type CompanyAuthMode = "required" | "optional";

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: CompanyAuthMode;
  }
  interface FastifyRequest {
    companyId: number | null;
  }
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw new UnauthorizedError("Authorization header must be 'Bearer <token>'", { code: "invalid_token" });
  return match[1];
}

export async function companyFromRequest(request: FastifyRequest): Promise<number | null> {
  const token = bearerToken(request);
  if (!token) return null;
  const companyId = await verifyCompanyToken(request.server.db.sql, token, request.server.clock);
  if (companyId === null) throw new UnauthorizedError("Invalid or revoked API token", { code: "invalid_token" });
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

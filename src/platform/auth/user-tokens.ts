import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import { InvalidCredentialError } from "../errors.js";
import { int32Id } from "../http/schemas.js";

/**
 * User tokens (reps and customers) are HS256 JWTs signed with JWT_SECRET. The algorithm is
 * pinned (no `none`, no RS/HS confusion) and `exp` is required: a token that never expires is
 * refused rather than trusted forever.
 */
const USER_ROLES = ["rep", "customer"] as const;

export type UserRole = (typeof USER_ROLES)[number];

export function isUserRole(value: string): value is UserRole {
  return (USER_ROLES as readonly string[]).includes(value);
}

export interface UserClaims {
  userId: number;
  companyId: number;
  role: UserRole;
}

const ALGORITHM = "HS256";

/**
 * The audience of the checkout links' tokens, which are signed with the same key
 * (domain/carts/links.ts). A token naming it is not a user's, whatever else it claims: the
 * audience, not the shape of the other claims, keeps the two apart (RFC 7519 §4.1.3). Other
 * audiences are the storefront login's business and pass.
 */
export const CHECKOUT_AUDIENCE = "checkout";

const claimsSchema = z.object({
  // The user's id as a string (DESIGN.md). One no users row can hold (past int4, twenty digits)
  // names nobody: it is an invalid token, where the user lookup failed on it as a 500.
  sub: z.string().regex(/^\d+$/).transform(Number).pipe(int32Id),
  // A number or a numeric string; like sub, one no companies row can hold names no company
  // (services compare it with int4 columns, where one past int4 failed as a 500).
  company_id: z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]).pipe(int32Id),
  role: z.enum(USER_ROLES),
  exp: z.number(),
  aud: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .refine((aud) => aud !== CHECKOUT_AUDIENCE && !(Array.isArray(aud) && aud.includes(CHECKOUT_AUDIENCE))),
});

/** The HMAC key of user tokens: JWT_SECRET's bytes, made once per app from its config. */
export type UserTokenKey = Uint8Array;

export function userTokenKey(secret: string): UserTokenKey {
  return new TextEncoder().encode(secret);
}

export async function verifyUserToken(token: string, key: UserTokenKey, now: Date = new Date()): Promise<UserClaims> {
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [ALGORITHM],
      requiredClaims: ["exp", "sub"],
      currentDate: now,
    }));
  } catch (error) {
    const reason = error instanceof joseErrors.JWTExpired ? "User token expired" : "Invalid user token";
    throw new InvalidCredentialError(reason, { code: "invalid_user_token" });
  }
  const claims = claimsSchema.safeParse(payload);
  if (!claims.success) throw new InvalidCredentialError("Invalid user token", { code: "invalid_user_token" });
  return { userId: claims.data.sub, companyId: claims.data.company_id, role: claims.data.role };
}

export async function signUserToken(claims: UserClaims, key: UserTokenKey, expiresInSeconds = 3600, now: Date = new Date()): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ company_id: claims.companyId, role: claims.role })
    .setProtectedHeader({ alg: ALGORITHM })
    .setSubject(String(claims.userId))
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + expiresInSeconds)
    .sign(key);
}

import type { UserRole } from "../../platform/auth/user-tokens.js";
import type { Db } from "../../platform/db/database.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { ConflictError, ValidationError } from "../../platform/errors.js";
import { requireCompany } from "../companies/service.js";

export interface UserInput {
  companyId: number;
  role: UserRole;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  username?: string | null;
  shareGuid?: string | null;
  externalId?: string | null;
  phone?: string | null;
  imageUrl?: string | null;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createUser(db: Db, input: UserInput) {
  if (!EMAIL_PATTERN.test(input.email)) throw ValidationError.field("email", "is not an email address");
  await requireCompany(db, input.companyId);
  try {
    return await db.user.create({
      data: {
        company_id: input.companyId,
        role: input.role,
        email: input.email.toLowerCase(),
        first_name: input.firstName ?? null,
        last_name: input.lastName ?? null,
        username: input.username ?? null,
        share_guid: input.shareGuid ?? null,
        external_id: input.externalId ?? null,
        phone: input.phone ?? null,
        image_url: input.imageUrl ?? null,
      },
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError("A user of this company already has that email, username, share guid or external id");
    throw error;
  }
}

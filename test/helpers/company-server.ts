import { randomBytes } from "node:crypto";
import { createUser } from "../../src/domain/users/service.js";
import type { UserRole } from "../../src/platform/auth/user-tokens.js";
import type { Db } from "../../src/platform/db/database.js";

/** A user of a company with a unique email, made through the users service. */
export async function createPerson(db: Db, companyId: number, role: UserRole, firstName: string, lastName = "Tester") {
  return createUser(db, {
    companyId,
    role,
    email: `${firstName.toLowerCase()}-${randomBytes(3).toString("hex")}@example.com`,
    firstName,
    lastName,
  });
}

/** A complete custom page body (create shape: with image_url, without label_id). */
export function pageFields(overrides: Record<string, unknown> = {}) {
  return {
    title: "About us",
    html_code: "<h1>About</h1><script>alert(1)</script>",
    image_url: "https://cdn.example.com/about.png",
    active: true,
    use_svc_menu: false,
    default: false,
    use_for_shop: true,
    use_search_engine: true,
    available_countries: ["us", "ca"],
    ...overrides,
  };
}

/** The update shape of a page body: no image_url, label_id required (null: no label). */
export function pageUpdateFields(labelId: number | null, overrides: Record<string, unknown> = {}) {
  const { image_url: _imageUrl, ...fields } = pageFields();
  return { ...fields, label_id: labelId, ...overrides };
}

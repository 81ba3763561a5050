import { describe, expect, it } from "vitest";
import { ForbiddenError, InvalidCredentialError, UnauthorizedError } from "../../src/platform/errors.js";

describe("the WWW-Authenticate challenge of 401s and 403s (RFC 6750 §3)", () => {
  it("is bare without a credential, and names the error with a description otherwise", () => {
    expect(new UnauthorizedError().headers).toEqual({ "www-authenticate": 'Bearer realm="svc-commerce"' });
    expect(new InvalidCredentialError("User token expired", { code: "invalid_user_token" })).toMatchObject({
      status: 401,
      code: "invalid_user_token",
      headers: { "www-authenticate": 'Bearer realm="svc-commerce", error="invalid_token", error_description="User token expired"' },
    });
    expect(new ForbiddenError("Only a company API token may set a line's volumes").headers).toEqual({
      "www-authenticate": 'Bearer realm="svc-commerce", error="insufficient_scope", error_description="Only a company API token may set a line\'s volumes"',
    });
  });

  it("keeps the description a valid quoted-string: no quote, backslash, control or non-ASCII character", () => {
    expect(new InvalidCredentialError('Say "no"\\ \r\nto café').headers?.["www-authenticate"]).toBe(
      'Bearer realm="svc-commerce", error="invalid_token", error_description="Say no to caf"',
    );
  });
});

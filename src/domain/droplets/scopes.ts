/** The scopes an installation may use: those requested, narrowed by its role's permissions when it has a role. */
export function effectiveScopes(requested: string[], rolePermissions: string[] | null): string[] {
  if (rolePermissions === null) return [...requested];
  const allowed = new Set(rolePermissions);
  return requested.filter((scope) => allowed.has(scope));
}

/** Requested scopes the droplet does not declare, in request order, without repeats. */
export function undeclaredScopes(declared: string[], requested: string[]): string[] {
  const known = new Set(declared);
  return [...new Set(requested.filter((scope) => !known.has(scope)))];
}

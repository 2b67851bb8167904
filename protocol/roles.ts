/**
 * What a person may do in a workspace, lowest first: a viewer reads, an
 * editor also changes files, terminals and git, the owner also decides who
 * may do what (network policy, secrets, members, deleting it). Every
 * workspace route names the least role it needs (worker/door/).
 */
export const ROLES = ["viewer", "editor", "owner"] as const;

export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** True when `role` may do what `needed` may. */
export function hasRole(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

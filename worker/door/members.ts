import { isRole, type Role } from "../../protocol/roles";

/** Where a workspace keeps its members in its Durable Object storage: user id -> role. */
export const MEMBERS_KEY = "members";

/** The people besides the owner who may use a workspace, and as what (the owner adds them, worker/members/). */
export type Members = Readonly<Record<string, Role>>;

/**
 * The caller's role in a workspace: the owner is its owner, a member has
 * their role, anyone else none (the door answers them 404, as if it did not
 * exist). The one place a role is decided.
 */
export function roleOf(
  caller: string | null | undefined,
  owner: string | undefined,
  members: Members,
): Role | undefined {
  if (!caller || !owner) return undefined;
  if (caller === owner) return "owner";
  const role = Object.hasOwn(members, caller) ? members[caller] : undefined;
  return isRole(role) && role !== "owner" ? role : undefined;
}

/** Members as stored, with anything that is not a role left out. */
export function parseMembers(value: unknown): Members {
  if (typeof value !== "object" || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter(([, role]) => isRole(role) && role !== "owner"));
}

/**
 * Members of a workspace and the invite links that make them (issue 24).
 * The owner invites people as `editor` or `viewer` (protocol/roles.ts):
 *
 *   POST   /api/workspaces/{id}/invites              {role, ttlSeconds, uses?} -> 201 CreatedInvite
 *   GET    /api/workspaces/{id}/invites              InviteList
 *   DELETE /api/workspaces/{id}/invites/{inviteId}   204 (the people who joined by it are removed)
 *   GET    /api/workspaces/{id}/members              MemberList
 *   PUT    /api/workspaces/{id}/members/{memberId}   {role} -> Member (with Access: an email adds that user)
 *   DELETE /api/workspaces/{id}/members/{memberId}   204
 *   GET    /api/workspaces/{id}/me                   WorkspaceAccess (any role)
 *
 * Opening an invite's url (`/join/{workspace}#{token}`) asks for a display
 * name, then `POST /api/invites/accept` signs the visitor in as a guest of
 * that workspace only (a Cloudflare Access user joins as themselves).
 */
import type { Role } from "./roles";

/** The roles an invite or a member may have: everything but the owner's. */
export const MEMBER_ROLES = ["viewer", "editor"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export function isMemberRole(value: unknown): value is MemberRole {
  return typeof value === "string" && (MEMBER_ROLES as readonly string[]).includes(value);
}

/** How a member signs in: through Cloudflare Access (their email), or as a guest from an invite link. */
export type MemberKind = "access" | "guest";

export interface Member {
  /** Their user id: an email for Access users, `guest:...` for guests. */
  id: string;
  /** The display name a guest gave, or an Access user's email. */
  name: string;
  role: MemberRole;
  kind: MemberKind;
  /** ISO 8601. */
  joinedAt: string;
}

export interface MemberList {
  members: Member[];
}

/** `PUT .../members/{memberId}` */
export interface MemberRoleRequest {
  role: MemberRole;
}

/** An invite link lasts at least a minute and at most 30 days. */
export const MIN_INVITE_TTL_SECONDS = 60;
export const MAX_INVITE_TTL_SECONDS = 30 * 24 * 60 * 60;
/** A multi-use link admits at most this many people. */
export const MAX_INVITE_USES = 1000;

/** `POST .../invites`; without `uses`, the link admits anyone who has it until it expires. */
export interface CreateInviteRequest {
  role: MemberRole;
  ttlSeconds: number;
  uses?: number;
}

/** The answer to `POST .../invites`: the only time its url (which holds its secret) is shown. */
export interface CreatedInvite {
  id: string;
  role: MemberRole;
  url: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** A live invite as listed (never its secret). */
export interface InviteSummary {
  id: string;
  role: MemberRole;
  createdAt: string;
  expiresAt: string;
  /** How many people it admits in all; null: any number until it expires. */
  uses: number | null;
  /** How many it admitted so far. */
  used: number;
}

export interface InviteList {
  invites: InviteSummary[];
}

/** `POST /api/invites/check` (no session needed): what an invite link is for. */
export interface InviteCheckRequest {
  workspace: string;
  token: string;
}

export interface InviteInfo {
  workspaceName: string;
  role: MemberRole;
  expiresAt: string;
}

/** `POST /api/invites/accept`: signs in as a guest named `name` (Access users join as themselves). */
export interface InviteAcceptRequest extends InviteCheckRequest {
  name: string;
}

/** The answer to an accepted invite. */
export interface InviteAccepted {
  workspace: string;
  role: Role;
}

/** `GET .../me`: the caller's role in the workspace. */
export interface WorkspaceAccess {
  role: Role;
  /** True unless the caller owns it. */
  shared: boolean;
}

/** The app's path for an invite: the token travels in the fragment, never in a request line or a Referer. */
export function invitePath(workspace: string, token: string): string {
  return `/join/${workspace}#${token}`;
}

export const DISPLAY_NAME_MAX_LENGTH = 60;

/** Checks a guest's display name: 1-60 characters after trimming, no control characters. */
export function checkDisplayName(value: unknown): { name: string } | { error: string } {
  if (typeof value !== "string") return { error: "Give a display name: the others see it." };
  const name = value.trim();
  if (name.length === 0) return { error: "Give a display name: the others see it." };
  if (name.length > DISPLAY_NAME_MAX_LENGTH) {
    return { error: `The name has ${name.length} characters; the limit is ${DISPLAY_NAME_MAX_LENGTH}.` };
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(name)) return { error: "The name cannot contain control characters." };
  return { name };
}

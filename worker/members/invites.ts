/**
 * Invite links, as a workspace keeps them: an id (public: listed, revoked by
 * it) and a secret, of which only a SHA-256 is stored, so the url is shown
 * once, when it is made. A link admits people until it expires, is revoked,
 * or has admitted its number of uses. Pure logic; the Workspace's members
 * part (workspace-members.ts) stores the records.
 */
import { ErrorCode } from "../../protocol/errors";
import type { InviteSummary, MemberRole } from "../../protocol/members";
import { AppError } from "../errors";
import { randomToken, sameSecret } from "../previews/tokens";

export interface InviteRecord {
  id: string;
  role: MemberRole;
  /** SHA-256 of the secret, hex. */
  secretHash: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  expiresAt: number;
  /** null: any number of people until it expires. */
  uses: number | null;
  used: number;
}

/** Expired records are kept this long, so a late visitor hears "expired" rather than "no such link". */
export const EXPIRED_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/** A new invite and its token (`{id}.{secret}`, what the url carries). */
export async function newInvite(
  role: MemberRole,
  ttlSeconds: number,
  uses: number | null,
  now = Date.now(),
): Promise<{ record: InviteRecord; token: string }> {
  const id = randomToken(12);
  const secret = randomToken(26);
  const record: InviteRecord = {
    id,
    role,
    secretHash: await sha256(secret),
    createdAt: now,
    expiresAt: now + ttlSeconds * 1000,
    uses,
    used: 0,
  };
  return { record, token: `${id}.${secret}` };
}

/**
 * The invite a token names, if it may still admit someone; otherwise the
 * refusal (410 INVITE_UNUSABLE) says why: unknown or revoked, expired, used up.
 */
export async function usableInvite(
  invites: Readonly<Record<string, InviteRecord>>,
  token: unknown,
  now = Date.now(),
): Promise<InviteRecord> {
  const [id, secret, extra] = typeof token === "string" && token.length <= 100 ? token.split(".") : [];
  const record = id && Object.hasOwn(invites, id) ? invites[id] : undefined;
  if (!record || !secret || extra !== undefined || !sameSecret(await sha256(secret), record.secretHash)) {
    throw new AppError(
      ErrorCode.INVITE_UNUSABLE,
      "This invite link is not valid: it was revoked, or it was copied incompletely. Ask the workspace's owner for a new one.",
    );
  }
  if (record.expiresAt <= now) {
    throw new AppError(
      ErrorCode.INVITE_UNUSABLE,
      `This invite link expired at ${new Date(record.expiresAt).toISOString()}. Ask the workspace's owner for a new one.`,
    );
  }
  if (record.uses !== null && record.used >= record.uses) {
    throw new AppError(
      ErrorCode.INVITE_UNUSABLE,
      "This invite link has been used as many times as it allows. Ask the workspace's owner for a new one.",
    );
  }
  return record;
}

/** Invites as listed: the live ones (used-up ones included, until they expire), newest first. */
export function summaries(invites: Readonly<Record<string, InviteRecord>>, now = Date.now()): InviteSummary[] {
  return Object.values(invites)
    .filter((invite) => invite.expiresAt > now)
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((invite) => ({
      id: invite.id,
      role: invite.role,
      createdAt: new Date(invite.createdAt).toISOString(),
      expiresAt: new Date(invite.expiresAt).toISOString(),
      uses: invite.uses,
      used: invite.used,
    }));
}

/** The records to keep: those not expired for long. */
export function pruned(
  invites: Readonly<Record<string, InviteRecord>>,
  now = Date.now(),
): Record<string, InviteRecord> {
  return Object.fromEntries(Object.entries(invites).filter(([, invite]) => invite.expiresAt + EXPIRED_KEPT_MS > now));
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

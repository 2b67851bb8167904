/**
 * The members of one workspace and its invite links, kept in its Durable
 * Object's storage: who besides the owner may use it, and as what. The door
 * reads their roles (roles(), for roleOf in worker/door/members.ts). Every
 * change that takes something away closes the member's open sockets and
 * event streams at once (they reconnect with what is left, or get 404), and
 * each member's own list (their Directory) is kept in step: the workspace
 * shows there, marked as shared, while they are a member. A guest, who has
 * no other identity, is signed out everywhere when removed.
 */
import { ErrorCode } from "../../protocol/errors";
import {
  type CreatedInvite,
  type InviteInfo,
  type InviteSummary,
  invitePath,
  type Member,
  type MemberKind,
  type MemberRole,
} from "../../protocol/members";
import { userDirectory } from "../directory";
import { MEMBERS_KEY, type Members } from "../door/members";
import { AppError, notFound } from "../errors";
import type { SessionSockets } from "../session-sockets";
import { type InviteRecord, newInvite, pruned, summaries, usableInvite } from "./invites";

/** A member as stored: their role, how they came, and by which invite (revoking it removes them). */
export interface MemberRecord {
  role: MemberRole;
  name: string;
  kind: MemberKind;
  /** Milliseconds since the epoch. */
  joinedAt: number;
  invite?: string;
}

export const INVITES_KEY = "invites";

export interface MembersDeps {
  storage: DurableObjectStorage;
  env: Env;
  sockets: SessionSockets;
  /** The workspace's id, owner and name, as its record has them. */
  workspace(): { id: string; owner: string | undefined; name(): Promise<string> };
}

/** Who is joining by an invite: a new guest, or a signed-in Access user as themselves. */
export interface Joiner {
  id: string;
  name: string;
  kind: MemberKind;
}

export class WorkspaceMembers {
  private members: Record<string, MemberRecord> = {};
  private invites: Record<string, InviteRecord> = {};

  constructor(private readonly deps: MembersDeps) {}

  /** Reads what is stored (the Workspace's blockConcurrencyWhile). */
  async load(): Promise<void> {
    this.members = parseRecords(await this.deps.storage.get(MEMBERS_KEY));
    this.invites = (await this.deps.storage.get<Record<string, InviteRecord>>(INVITES_KEY)) ?? {};
  }

  /** Each member's role, for the door. */
  roles(): Members {
    return Object.fromEntries(Object.entries(this.members).map(([id, member]) => [id, member.role]));
  }

  list(): Member[] {
    return Object.entries(this.members)
      .sort(([, a], [, b]) => a.joinedAt - b.joinedAt)
      .map(([id, member]) => memberOf(id, member));
  }

  async createInvite(
    role: MemberRole,
    ttlSeconds: number,
    uses: number | null,
    origin: string,
  ): Promise<CreatedInvite> {
    const { record, token } = await newInvite(role, ttlSeconds, uses);
    await this.saveInvites({ ...pruned(this.invites), [record.id]: record });
    return {
      id: record.id,
      role,
      url: new URL(invitePath(this.deps.workspace().id, token), origin).toString(),
      expiresAt: new Date(record.expiresAt).toISOString(),
    };
  }

  listInvites(): InviteSummary[] {
    return summaries(this.invites);
  }

  /** Revokes a link: it admits nobody from now on, and whoever joined by it is removed. */
  async revokeInvite(id: string): Promise<void> {
    if (!Object.hasOwn(this.invites, id)) throw notFound("No such invite: it was revoked already, or it expired.");
    const { [id]: _revoked, ...rest } = this.invites;
    await this.saveInvites(rest);
    for (const [memberId, member] of Object.entries(this.members)) {
      if (member.invite === id) await this.remove(memberId, "The invite link you joined by was revoked.");
    }
  }

  /** What an invite is for, if it may still admit someone (410 INVITE_UNUSABLE otherwise). */
  async checkInvite(token: unknown): Promise<InviteInfo> {
    const invite = await usableInvite(this.invites, token);
    return {
      workspaceName: await this.deps.workspace().name(),
      role: invite.role,
      expiresAt: new Date(invite.expiresAt).toISOString(),
    };
  }

  /**
   * Admits someone by an invite: a use is counted and they become a member
   * with its role. The owner, or someone already a member, is admitted as
   * they are, using nothing.
   */
  async redeem(token: unknown, joiner: Joiner): Promise<MemberRole | "owner"> {
    const invite = await usableInvite(this.invites, token);
    if (joiner.id === this.deps.workspace().owner) return "owner";
    const existing = Object.hasOwn(this.members, joiner.id) ? this.members[joiner.id] : undefined;
    if (existing) return existing.role;
    // Counted before anything is awaited: two visitors of a single-use link cannot both pass.
    const invites = { ...this.invites, [invite.id]: { ...invite, used: invite.used + 1 } };
    const member: MemberRecord = {
      role: invite.role,
      name: joiner.name,
      kind: joiner.kind,
      joinedAt: Date.now(),
      invite: invite.id,
    };
    this.invites = invites;
    this.members = { ...this.members, [joiner.id]: member };
    await this.deps.storage.put({ [INVITES_KEY]: invites, [MEMBERS_KEY]: this.members });
    await this.listFor(joiner.id, member.role);
    return member.role;
  }

  /**
   * Sets a member's role. With Cloudflare Access configured, an email that
   * is no member yet is added (the invitation by email: they see the
   * workspace in their list the next time they sign in through Access).
   */
  async setRole(id: string, role: MemberRole): Promise<{ member: Member; created: boolean }> {
    const existing = Object.hasOwn(this.members, id) ? this.members[id] : undefined;
    if (!existing && !this.invitableByEmail(id)) {
      throw notFound(
        this.accessConfigured
          ? `No member "${id.slice(0, 80)}": add an Access user by their email address, or send an invite link.`
          : "No such member. Without Cloudflare Access, people join by an invite link.",
      );
    }
    if (id === this.deps.workspace().owner) {
      throw new AppError(ErrorCode.BAD_REQUEST, "That is the workspace's owner, who has every role.");
    }
    const member: MemberRecord = existing
      ? { ...existing, role }
      : { role, name: id, kind: "access", joinedAt: Date.now() };
    this.members = { ...this.members, [id]: member };
    await this.deps.storage.put(MEMBERS_KEY, this.members);
    // What they had open was opened with the old role: it reconnects with the new one.
    if (existing && existing.role !== role) this.deps.sockets.closeUser(id, `Your role here is now ${role}.`);
    await this.listFor(id, role);
    return { member: memberOf(id, member), created: !existing };
  }

  /** Takes a member out: their sockets close now, the workspace leaves their list, a guest is signed out. */
  async remove(id: string, reason = "You were removed from this workspace."): Promise<void> {
    const member = Object.hasOwn(this.members, id) ? this.members[id] : undefined;
    if (!member) throw notFound("No such member.");
    const { [id]: _removed, ...rest } = this.members;
    this.members = rest;
    await this.deps.storage.put(MEMBERS_KEY, rest);
    this.deps.sockets.closeUser(id, reason);
    await this.unlistFor(id, member.kind);
  }

  /** The workspace was renamed: its members' lists say so. */
  async renamed(): Promise<void> {
    for (const [id, member] of Object.entries(this.members)) await this.listFor(id, member.role);
  }

  /** The workspace is being deleted: it leaves every member's list, and its guests are signed out. */
  async forgetAll(): Promise<void> {
    const members = Object.entries(this.members);
    this.members = {};
    this.invites = {};
    for (const [id, member] of members) {
      this.deps.sockets.closeUser(id, "This workspace was deleted.");
      await this.unlistFor(id, member.kind);
    }
  }

  /** Test hook: an invite expires at `at` (a test need not wait out its minute). */
  async setInviteExpiry(id: string, at: number): Promise<boolean> {
    const invite = Object.hasOwn(this.invites, id) ? this.invites[id] : undefined;
    if (!invite) return false;
    await this.saveInvites({ ...this.invites, [id]: { ...invite, expiresAt: at } });
    return true;
  }

  /** Test hook: a role for any user id, as a member would have it (role null: none). */
  async grant(id: string, role: MemberRole | null): Promise<void> {
    if (role === null) {
      if (Object.hasOwn(this.members, id)) await this.remove(id);
      return;
    }
    const existing = Object.hasOwn(this.members, id) ? this.members[id] : undefined;
    this.members = {
      ...this.members,
      [id]: existing ? { ...existing, role } : { role, name: id, kind: "access", joinedAt: Date.now() },
    };
    await this.deps.storage.put(MEMBERS_KEY, this.members);
    await this.listFor(id, role);
  }

  private get accessConfigured(): boolean {
    return Boolean(this.deps.env.ACCESS_TEAM_DOMAIN && this.deps.env.ACCESS_AUD);
  }

  /** An Access user's id is their email, lowercase (worker/auth/access-jwt.ts). */
  private invitableByEmail(id: string): boolean {
    return this.accessConfigured && /^[^\s@/]+@[^\s@/]+\.[^\s@/]+$/.test(id) && id === id.toLowerCase();
  }

  private async saveInvites(invites: Record<string, InviteRecord>): Promise<void> {
    this.invites = invites;
    await this.deps.storage.put(INVITES_KEY, invites);
  }

  private async listFor(id: string, role: MemberRole): Promise<void> {
    const workspace = this.deps.workspace();
    await userDirectory(this.deps.env, id).putShared({
      id: workspace.id,
      name: await workspace.name(),
      owner: workspace.owner ?? "",
      role,
    });
  }

  private async unlistFor(id: string, kind: MemberKind): Promise<void> {
    const directory = userDirectory(this.deps.env, id);
    await directory.removeShared(this.deps.workspace().id);
    // A guest is a member of this workspace only: nothing is left to be signed in to.
    if (kind === "guest") await directory.endAllSessions();
  }
}

function memberOf(id: string, member: MemberRecord): Member {
  return {
    id,
    name: member.name,
    role: member.role,
    kind: member.kind,
    joinedAt: new Date(member.joinedAt).toISOString(),
  };
}

/** Members as stored; an entry that is only a role (an older record) is an Access member of that role. */
function parseRecords(value: unknown): Record<string, MemberRecord> {
  if (typeof value !== "object" || value === null) return {};
  const out: Record<string, MemberRecord> = {};
  for (const [id, entry] of Object.entries(value)) {
    if (entry === "viewer" || entry === "editor") out[id] = { role: entry, name: id, kind: "access", joinedAt: 0 };
    else if (typeof entry === "object" && entry !== null && (entry.role === "viewer" || entry.role === "editor")) {
      out[id] = entry as MemberRecord;
    }
  }
  return out;
}

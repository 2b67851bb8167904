import { DurableObject } from "cloudflare:workers";
import type { SshKeySummary, TokenSummary } from "../protocol/access";
import type { MemberRole } from "../protocol/members";
import type { SessionSummary, SignInKind } from "../protocol/session";
import type { WorkspaceSummary } from "../protocol/workspaces";
import { AccessStore } from "./auth/access-store";
import { SessionStore } from "./auth/session-store";

const SPARE_KEY = "spare";
/** A spare this close to its expiry is neither given out nor kept: its alarm may be discarding it. */
const SPARE_CLAIM_MARGIN_MS = 15_000;

/** The user's spare: its workspace id, and when its Workspace discards it unclaimed. */
interface SpareRecord {
  id: string;
  expiresAt: number;
}

/** The Directory object of one user. */
export function userDirectory(env: Env, userId: string): DurableObjectStub<Directory> {
  return env.Directory.getByName(`user:${userId}`);
}

/** A workspace shared with this user, as their list shows it. */
export interface SharedEntry {
  id: string;
  name: string;
  owner: string;
  role: MemberRole;
}

/**
 * One user's list of workspaces (a Durable Object named `user:{id}`): their
 * own and those shared with them (written by the Workspace when it adds,
 * changes or removes them as a member); their sessions
 * (worker/auth/session-store.ts), and a guest's display name. The Workspace
 * objects themselves record their owner and members; this is the index.
 */
export class Directory extends DurableObject<Env> {
  private readonly sessions: SessionStore;
  /** Personal access tokens (hashes) and SSH public keys (worker/auth/access-store.ts). */
  private readonly access: AccessStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sessions = new SessionStore(ctx.storage.sql, ctx.storage.kv);
    this.access = new AccessStore(ctx.storage.sql);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL)",
    );
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS shared (id TEXT PRIMARY KEY, name TEXT NOT NULL, owner TEXT NOT NULL, role TEXT NOT NULL, added_at TEXT NOT NULL)",
    );
  }

  /** The user's own workspaces, then those shared with them (marked `shared`). */
  list(): WorkspaceSummary[] {
    return [...this.owned(), ...this.sharedWithMe()];
  }

  /** The user's own workspaces only. */
  owned(): WorkspaceSummary[] {
    return this.ctx.storage.sql
      .exec<{ id: string; name: string; created_at: string }>(
        "SELECT id, name, created_at FROM workspaces ORDER BY created_at, id",
      )
      .toArray()
      .map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at }));
  }

  private sharedWithMe(): WorkspaceSummary[] {
    return this.ctx.storage.sql
      .exec<{ id: string; name: string; owner: string; role: string; added_at: string }>(
        "SELECT id, name, owner, role, added_at FROM shared ORDER BY added_at, id",
      )
      .toArray()
      .map((row) => ({
        id: row.id,
        name: row.name,
        createdAt: row.added_at,
        shared: { owner: row.owner, role: row.role === "editor" ? "editor" : "viewer" },
      }));
  }

  get(id: string): WorkspaceSummary | undefined {
    return this.owned().find((w) => w.id === id);
  }

  /** A workspace shared with this user (added, or its role or name changed). */
  putShared(entry: SharedEntry): void {
    this.ctx.storage.sql.exec(
      `INSERT INTO shared (id, name, owner, role, added_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, owner = excluded.owner, role = excluded.role`,
      entry.id,
      entry.name,
      entry.owner,
      entry.role,
      new Date().toISOString(),
    );
  }

  removeShared(id: string): void {
    this.ctx.storage.sql.exec("DELETE FROM shared WHERE id = ?", id);
  }

  /** A guest's display name (guests have no other identity). */
  setDisplayName(name: string): void {
    this.ctx.storage.kv.put("profile:name", name);
  }

  displayName(): string | undefined {
    return this.ctx.storage.kv.get<string>("profile:name");
  }

  add(id: string, name: string): WorkspaceSummary {
    const createdAt = new Date().toISOString();
    this.ctx.storage.sql.exec("INSERT INTO workspaces (id, name, created_at) VALUES (?, ?, ?)", id, name, createdAt);
    return { id, name, createdAt };
  }

  rename(id: string, name: string): WorkspaceSummary | undefined {
    this.ctx.storage.sql.exec("UPDATE workspaces SET name = ? WHERE id = ?", name, id);
    return this.get(id);
  }

  remove(id: string): boolean {
    const existed = this.get(id) !== undefined;
    this.ctx.storage.sql.exec("DELETE FROM workspaces WHERE id = ?", id);
    return existed;
  }

  // The spare (worker/lifecycle/spare.ts): at most one, started ahead of the user's next new workspace.

  /**
   * The user's spare, or `candidate` made theirs when they have none that is
   * not about to go: one call, so two pages asking at once share one spare.
   */
  reserveSpare(candidate: SpareRecord): SpareRecord {
    const current = this.spare();
    if (current && current.expiresAt - Date.now() > SPARE_CLAIM_MARGIN_MS) return current;
    this.ctx.storage.kv.put(SPARE_KEY, candidate);
    return candidate;
  }

  /** The spare `id` for a new workspace, taken off the record; none unless it is the user's and not about to go. */
  takeSpare(id: string): string | undefined {
    const current = this.spare();
    if (current?.id !== id) return undefined;
    this.ctx.storage.kv.delete(SPARE_KEY);
    return current.expiresAt - Date.now() > SPARE_CLAIM_MARGIN_MS ? current.id : undefined;
  }

  /** The spare `id` went unclaimed (its Workspace discarded it). */
  dropSpare(id: string): void {
    if (this.spare()?.id === id) this.ctx.storage.kv.delete(SPARE_KEY);
  }

  private spare(): SpareRecord | undefined {
    return this.ctx.storage.kv.get<SpareRecord>(SPARE_KEY);
  }

  // Sessions: each sign-in is a row here, so ending it takes effect at once.

  startSession(id: string, userAgent: string, lifetimeMs: number, via: "password" | "guest" = "password"): void {
    this.sessions.start(id, userAgent, lifetimeMs, Date.now(), via);
  }

  useSession(id: string): boolean {
    return this.sessions.use(id);
  }

  useAccessSession(id: string, token: { issuedAt: number; expiresAt: number }, userAgent: string): boolean {
    return this.sessions.useAccess(id, token, userAgent);
  }

  endSession(id: string): boolean {
    return this.sessions.end(id);
  }

  endAllSessions(): void {
    this.sessions.endAll();
  }

  listSessions(current: string | undefined): SessionSummary[] {
    return this.sessions.list(current);
  }

  // Personal access tokens and SSH keys: a command line's way in (worker/routes/access.ts).

  addToken(token: { id: string; name: string; hash: string; via: SignInKind; expiresAt: number }): void {
    this.access.addToken(token);
  }

  useToken(hash: string): { id: string; via: SignInKind } | undefined {
    return this.access.useToken(hash);
  }

  listTokens(): TokenSummary[] {
    return this.access.liveTokens();
  }

  revokeToken(id: string): boolean {
    return this.access.revokeToken(id);
  }

  addSshKey(key: Omit<SshKeySummary, "createdAt">, tokenId: string | null): SshKeySummary | undefined {
    if (this.access.hasKey(key.fingerprint)) return undefined;
    return this.access.addKey(key, tokenId);
  }

  listSshKeys(): SshKeySummary[] {
    return this.access.keys();
  }

  removeSshKey(id: string): boolean {
    return this.access.removeKey(id);
  }
}

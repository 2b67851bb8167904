import { DurableObject } from "cloudflare:workers";
import type { SessionSummary } from "../protocol/session";
import type { WorkspaceSummary } from "../protocol/workspaces";
import { SessionStore } from "./auth/session-store";

/** The Directory object of one user. */
export function userDirectory(env: Env, userId: string): DurableObjectStub<Directory> {
  return env.Directory.getByName(`user:${userId}`);
}

/**
 * One user's list of workspaces (a Durable Object named `user:{id}`), and
 * their sessions (worker/auth/session-store.ts). The Workspace objects
 * themselves record their owner too; this is the index.
 */
export class Directory extends DurableObject<Env> {
  private readonly sessions: SessionStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sessions = new SessionStore(ctx.storage.sql, ctx.storage.kv);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL)",
    );
  }

  list(): WorkspaceSummary[] {
    return this.ctx.storage.sql
      .exec<{ id: string; name: string; created_at: string }>(
        "SELECT id, name, created_at FROM workspaces ORDER BY created_at, id",
      )
      .toArray()
      .map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at }));
  }

  get(id: string): WorkspaceSummary | undefined {
    return this.list().find((w) => w.id === id);
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

  // Sessions: each sign-in is a row here, so ending it takes effect at once.

  startSession(id: string, userAgent: string, lifetimeMs: number): void {
    this.sessions.start(id, userAgent, lifetimeMs);
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
}

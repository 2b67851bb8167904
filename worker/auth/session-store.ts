import type { SessionSummary } from "../../protocol/session";

/** A session's last use is written at most this often (every request reads it). */
const TOUCH_EVERY_MS = 60_000;
const MAX_USER_AGENT = 300;

interface Row extends Record<string, SqlStorageValue> {
  id: string;
  via: string;
  created_at: number;
  last_used_at: number;
  expires_at: number;
  user_agent: string;
  ended_at: number | null;
}

/**
 * One user's sign-ins, kept in their Directory object: a session is live
 * while its row is, so signing out ends it at once wherever its cookie is.
 *
 * Password sessions have random ids carried in the signed cookie; an unknown
 * id is no session. Cloudflare Access sends its own token on every request
 * instead, so an Access session is named by that token's hash and made the
 * first time it is seen; when it ends, its row stays (ended) until the token
 * expires, so the same token cannot start it again. "Sign out everywhere"
 * also refuses every Access token issued before that moment.
 */
export class SessionStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly kv: SyncKvStorage,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS sessions (
      id TEXT PRIMARY KEY, via TEXT NOT NULL, created_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL, user_agent TEXT NOT NULL, ended_at INTEGER)`);
  }

  /** Records a new cookie session (the owner's password, or a guest's invite) that lasts `lifetimeMs`. */
  start(
    id: string,
    userAgent: string,
    lifetimeMs: number,
    now = Date.now(),
    via: "password" | "guest" = "password",
  ): void {
    this.prune(now);
    this.sql.exec(
      "INSERT INTO sessions (id, via, created_at, last_used_at, expires_at, user_agent) VALUES (?, ?, ?, ?, ?, ?)",
      id,
      via,
      now,
      now,
      now + lifetimeMs,
      userAgent.slice(0, MAX_USER_AGENT),
    );
  }

  /** True when the cookie session `id` (password or guest) is live; notes its use. */
  use(id: string, now = Date.now()): boolean {
    const row = this.row(id);
    if ((row?.via !== "password" && row?.via !== "guest") || row.ended_at !== null || row.expires_at <= now) {
      return false;
    }
    this.touch(row, now);
    return true;
  }

  /**
   * True when the Access session named `id` (its token's hash) is live,
   * making it on first sight unless its token was issued before the last
   * "sign out everywhere".
   */
  useAccess(id: string, token: { issuedAt: number; expiresAt: number }, userAgent: string, now = Date.now()): boolean {
    const row = this.row(id);
    if (row) {
      if (row.via !== "access" || row.ended_at !== null || row.expires_at <= now) return false;
      this.touch(row, now);
      return true;
    }
    if (token.issuedAt < (this.kv.get<number>("sessions:notBefore") ?? 0) || token.expiresAt <= now) return false;
    this.prune(now);
    this.sql.exec(
      "INSERT INTO sessions (id, via, created_at, last_used_at, expires_at, user_agent) VALUES (?, 'access', ?, ?, ?, ?)",
      id,
      now,
      now,
      token.expiresAt,
      userAgent.slice(0, MAX_USER_AGENT),
    );
    return true;
  }

  /** Ends one session; false when it was not live. */
  end(id: string, now = Date.now()): boolean {
    const row = this.row(id);
    if (!row || row.ended_at !== null || row.expires_at <= now) return false;
    if (row.via === "access") this.sql.exec("UPDATE sessions SET ended_at = ? WHERE id = ?", now, id);
    else this.sql.exec("DELETE FROM sessions WHERE id = ?", id);
    return true;
  }

  /** Ends every session of the user, and every Access token issued until now. */
  endAll(now = Date.now()): void {
    // Whole seconds, as tokens carry their issue time: a sign-in in this same second still counts.
    this.kv.put("sessions:notBefore", Math.floor(now / 1000) * 1000);
    this.sql.exec("DELETE FROM sessions WHERE via != 'access'");
    this.sql.exec("UPDATE sessions SET ended_at = ? WHERE ended_at IS NULL", now);
    this.prune(now);
  }

  /** The live sessions, most recently used first. */
  list(current: string | undefined, now = Date.now()): SessionSummary[] {
    return this.sql
      .exec<Row>(
        "SELECT * FROM sessions WHERE ended_at IS NULL AND expires_at > ? ORDER BY last_used_at DESC, created_at DESC",
        now,
      )
      .toArray()
      .map((row) => ({
        id: row.id,
        via: row.via === "access" || row.via === "guest" ? row.via : "password",
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
        expiresAt: row.expires_at,
        userAgent: row.user_agent,
        current: row.id === current,
      }));
  }

  private row(id: string): Row | undefined {
    return this.sql.exec<Row>("SELECT * FROM sessions WHERE id = ?", id).toArray()[0];
  }

  private touch(row: Row, now: number): void {
    if (now - row.last_used_at >= TOUCH_EVERY_MS) {
      this.sql.exec("UPDATE sessions SET last_used_at = ? WHERE id = ?", now, row.id);
    }
  }

  /** Rows of sessions that ended by themselves (and Access tombstones whose token expired). */
  private prune(now: number): void {
    this.sql.exec("DELETE FROM sessions WHERE expires_at <= ?", now);
  }
}

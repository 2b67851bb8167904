import type { SshKeySummary, TokenSummary } from "../../protocol/access";
import type { SignInKind } from "../../protocol/session";

/** A token's last use is written at most this often. */
const TOUCH_EVERY_MS = 60_000;

interface TokenRow extends Record<string, SqlStorageValue> {
  id: string;
  name: string;
  hash: string;
  via: string;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
}

interface KeyRow extends Record<string, SqlStorageValue> {
  id: string;
  name: string;
  type: string;
  fingerprint: string;
  public_key: string;
  created_at: number;
  token_id: string | null;
}

/**
 * One user's personal access tokens (their SHA-256 only) and registered SSH
 * public keys, kept in their Directory object beside their sessions. A
 * token is live while its row is and it has not expired.
 */
export class AccessStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS access_tokens (
      id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, via TEXT NOT NULL,
      created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, last_used_at INTEGER)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS ssh_keys (
      id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, fingerprint TEXT NOT NULL UNIQUE,
      public_key TEXT NOT NULL, created_at INTEGER NOT NULL, token_id TEXT)`);
  }

  addToken(
    token: { id: string; name: string; hash: string; via: SignInKind; expiresAt: number },
    now = Date.now(),
  ): void {
    this.prune(now);
    this.sql.exec(
      "INSERT INTO access_tokens (id, name, hash, via, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
      token.id,
      token.name,
      token.hash,
      token.via,
      now,
      token.expiresAt,
    );
  }

  /** The live token with this hash (its use noted), or undefined. */
  useToken(hash: string, now = Date.now()): { id: string; via: SignInKind } | undefined {
    const row = this.sql.exec<TokenRow>("SELECT * FROM access_tokens WHERE hash = ?", hash).toArray()[0];
    if (!row || row.expires_at <= now) return undefined;
    if (row.last_used_at === null || now - row.last_used_at >= TOUCH_EVERY_MS) {
      this.sql.exec("UPDATE access_tokens SET last_used_at = ? WHERE id = ?", now, row.id);
    }
    return { id: row.id, via: row.via === "access" ? "access" : "password" };
  }

  liveTokens(now = Date.now()): TokenSummary[] {
    this.prune(now);
    return this.sql
      .exec<TokenRow>("SELECT * FROM access_tokens ORDER BY created_at, id")
      .toArray()
      .map((row) => ({
        id: row.id,
        name: row.name,
        createdAt: new Date(row.created_at).toISOString(),
        expiresAt: new Date(row.expires_at).toISOString(),
        lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
      }));
  }

  /** Revokes one token; false when there was none live by that id. */
  revokeToken(id: string, now = Date.now()): boolean {
    this.prune(now);
    return this.sql.exec("DELETE FROM access_tokens WHERE id = ?", id).rowsWritten > 0;
  }

  /**
   * Registers a key. One registered with a personal access token (`tokenId`:
   * the CLI's own key) lasts only as long as that token: a token that leaked
   * cannot leave a key behind that outlives its revocation.
   */
  addKey(key: Omit<SshKeySummary, "createdAt">, tokenId: string | null, now = Date.now()): SshKeySummary {
    this.prune(now);
    this.sql.exec(
      "INSERT INTO ssh_keys (id, name, type, fingerprint, public_key, created_at, token_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
      key.id,
      key.name,
      key.type,
      key.fingerprint,
      key.publicKey,
      now,
      tokenId,
    );
    return { ...key, createdAt: new Date(now).toISOString() };
  }

  hasKey(fingerprint: string, now = Date.now()): boolean {
    this.prune(now);
    return this.sql.exec("SELECT id FROM ssh_keys WHERE fingerprint = ?", fingerprint).toArray().length > 0;
  }

  keys(now = Date.now()): SshKeySummary[] {
    this.prune(now);
    return this.sql
      .exec<KeyRow>("SELECT * FROM ssh_keys ORDER BY created_at, id")
      .toArray()
      .map((row) => ({
        id: row.id,
        name: row.name,
        type: row.type,
        fingerprint: row.fingerprint,
        publicKey: row.public_key,
        createdAt: new Date(row.created_at).toISOString(),
      }));
  }

  removeKey(id: string): boolean {
    return this.sql.exec("DELETE FROM ssh_keys WHERE id = ?", id).rowsWritten > 0;
  }

  /** Expired tokens, and the keys registered with tokens that are gone. */
  private prune(now: number): void {
    this.sql.exec("DELETE FROM access_tokens WHERE expires_at <= ?", now);
    this.sql.exec("DELETE FROM ssh_keys WHERE token_id IS NOT NULL AND token_id NOT IN (SELECT id FROM access_tokens)");
  }
}

import { type AgentScope, type AgentTokenInfo, MAX_AGENT_TOKENS } from "../../protocol/agents";
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";

/** A stored token: its SHA-256 hash, never the token. */
interface StoredToken {
  id: string;
  name: string;
  scope: AgentScope;
  /** Hex SHA-256 of the whole token string. */
  hash: string;
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number | null;
}

/** A token that checked out: who is calling, with which scope, until when. */
export interface AgentCaller {
  tokenId: string;
  name: string;
  scope: AgentScope;
  expiresAt: number;
}

export type TokenStorage = Pick<DurableObjectStorage, "get" | "put" | "delete" | "list">;

const PREFIX = "agent-token:";
/** Last use is written at most this often per token (a busy agent calls many times a second). */
const LAST_USE_WRITE_MS = 10_000;

/**
 * The agent tokens of one workspace, kept in its Durable Object's storage.
 * A token is `cide_{workspace}_{32 random bytes in hex}`; only its SHA-256
 * hash is stored, compared in constant time. Expired tokens are dropped
 * when the list is read.
 */
export class AgentTokens {
  constructor(
    private readonly storage: TokenStorage,
    private readonly workspaceId: () => string,
  ) {}

  async create(name: string, scope: AgentScope, ttlSeconds: number): Promise<AgentTokenInfo & { token: string }> {
    const live = await this.live();
    if (live.length >= MAX_AGENT_TOKENS) {
      throw new AppError(
        ErrorCode.TOO_MANY_AGENT_TOKENS,
        `This workspace has ${MAX_AGENT_TOKENS} live agent tokens, the most it may hold: revoke one you no longer use first.`,
      );
    }
    const random = hex(crypto.getRandomValues(new Uint8Array(32)));
    const token = `cide_${this.workspaceId()}_${random}`;
    const now = Date.now();
    const stored: StoredToken = {
      id: crypto.randomUUID().replaceAll("-", "").slice(0, 16),
      name,
      scope,
      hash: await sha256(token),
      createdAt: now,
      expiresAt: now + ttlSeconds * 1000,
      lastUsedAt: null,
    };
    await this.storage.put(PREFIX + stored.id, stored);
    return { ...info(stored), token };
  }

  async list(): Promise<AgentTokenInfo[]> {
    return (await this.live()).map(info);
  }

  /** Revokes a token; false when there is no such live token. */
  async revoke(id: string): Promise<boolean> {
    const stored = await this.storage.get<StoredToken>(PREFIX + id);
    if (!stored) return false;
    await this.storage.delete(PREFIX + id);
    return stored.expiresAt > Date.now();
  }

  /**
   * The caller a presented token stands for, or AGENT_TOKEN_REFUSED. Every
   * stored hash is compared (in constant time), so the time taken says
   * nothing about which token came close.
   */
  async verify(token: string): Promise<AgentCaller> {
    const presented = new TextEncoder().encode(await sha256(token));
    let match: StoredToken | undefined;
    for (const stored of (await this.storage.list<StoredToken>({ prefix: PREFIX })).values()) {
      const known = new TextEncoder().encode(stored.hash);
      if (known.byteLength === presented.byteLength && crypto.subtle.timingSafeEqual(known, presented)) match = stored;
    }
    if (!match) throw refused("This agent token is not valid for this workspace (unknown, revoked or mistyped).");
    const now = Date.now();
    if (match.expiresAt <= now)
      throw refused(`This agent token expired at ${new Date(match.expiresAt).toISOString()}.`);
    if (match.lastUsedAt === null || now - match.lastUsedAt >= LAST_USE_WRITE_MS) {
      match.lastUsedAt = now;
      await this.storage.put(PREFIX + match.id, match);
    }
    return { tokenId: match.id, name: match.name, scope: match.scope, expiresAt: match.expiresAt };
  }

  /** Moves a token's expiry (for tests: expiry without waiting minutes); false when there is no such token. */
  async setExpiry(id: string, expiresAt: number): Promise<boolean> {
    const stored = await this.storage.get<StoredToken>(PREFIX + id);
    if (!stored) return false;
    await this.storage.put(PREFIX + id, { ...stored, expiresAt });
    return true;
  }

  /** Live tokens, oldest first; expired ones are deleted on the way. */
  private async live(): Promise<StoredToken[]> {
    const now = Date.now();
    const all = [...(await this.storage.list<StoredToken>({ prefix: PREFIX })).values()];
    const expired = all.filter((t) => t.expiresAt <= now);
    if (expired.length > 0) await this.storage.delete(expired.map((t) => PREFIX + t.id));
    return all.filter((t) => t.expiresAt > now).sort((a, b) => a.createdAt - b.createdAt);
  }
}

export function refused(message: string): AppError {
  return new AppError(ErrorCode.AGENT_TOKEN_REFUSED, message);
}

function info(stored: StoredToken): AgentTokenInfo {
  return {
    id: stored.id,
    name: stored.name,
    scope: stored.scope,
    createdAt: new Date(stored.createdAt).toISOString(),
    expiresAt: new Date(stored.expiresAt).toISOString(),
    lastUsedAt: stored.lastUsedAt === null ? null : new Date(stored.lastUsedAt).toISOString(),
  };
}

async function sha256(text: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

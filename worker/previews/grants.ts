/**
 * Preview access grants, kept in the workspace's Durable Object storage. A
 * grant is a token for one port with an expiry: the owner's own (one per
 * preview pane, short-lived and renewed only while that pane is open) or a
 * share link's. Both are listed and revoked the same way, by their public id.
 */
import { randomToken, sameSecret } from "./tokens";

export interface Grant {
  token: string;
  port: number;
  kind: "owner" | "share";
  /** ms since the epoch */
  expiresAt: number;
  /** The public id (for listing, renewing and revoking), which is not the token. Owner grants have one too. */
  shareId?: string;
}

/** The part of DurableObjectStorage grants use (a Map-backed fake in unit tests). */
export interface GrantStorage {
  list<T>(options: { prefix: string }): Promise<Map<string, T>>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

export const TOKEN_LENGTH = 24;
/**
 * An owner grant lasts 5 minutes past its last renewal; the pane renews it
 * every minute while it is open, so a URL copied out of the pane stops
 * working minutes after the pane closes.
 */
export const OWNER_GRANT_TTL_MS = 5 * 60_000;

const PREFIX = "preview-grant:";

export class GrantStore {
  private grants: Map<string, Grant> | undefined;

  constructor(
    private readonly storage: GrantStorage,
    private readonly now: () => number = Date.now,
  ) {}

  /** The live grant for exactly this token and port, compared in constant time; else undefined. */
  async find(token: string, port: number): Promise<Grant | undefined> {
    const now = this.now();
    let found: Grant | undefined;
    // Every grant is compared, so the time taken says nothing about which matched.
    for (const grant of (await this.load()).values()) {
      if (sameSecret(grant.token, token) && grant.port === port && grant.expiresAt > now) found = grant;
    }
    return found;
  }

  /**
   * The owner grant `id` for a port extended to OWNER_GRANT_TTL_MS from now,
   * or, when there is no such live grant (none asked for, revoked, expired),
   * a new one with its own token: a pane gets a URL nobody else had.
   */
  async renewOwner(port: number, id?: string): Promise<Grant> {
    const now = this.now();
    const grants = await this.load();
    const live = id
      ? [...grants.values()].find((g) => g.kind === "owner" && g.port === port && g.shareId === id && g.expiresAt > now)
      : undefined;
    const grant: Grant = live
      ? { ...live, expiresAt: now + OWNER_GRANT_TTL_MS }
      : {
          token: randomToken(TOKEN_LENGTH),
          port,
          kind: "owner",
          expiresAt: now + OWNER_GRANT_TTL_MS,
          shareId: randomToken(12),
        };
    await this.save(grant);
    return grant;
  }

  async createShare(port: number, ttlMs: number): Promise<Grant> {
    const grant: Grant = {
      token: randomToken(TOKEN_LENGTH),
      port,
      kind: "share",
      expiresAt: this.now() + ttlMs,
      shareId: randomToken(12),
    };
    await this.save(grant);
    return grant;
  }

  /** Live grants for a port, share links and the owner's alike, soonest to expire first. */
  async listed(port: number): Promise<Grant[]> {
    const now = this.now();
    return [...(await this.load()).values()]
      .filter((g) => g.port === port && g.expiresAt > now)
      .sort((a, b) => a.expiresAt - b.expiresAt);
  }

  /** Removes a live grant (a share or an owner's) by its id; returns it, or undefined when there is none. */
  async revoke(port: number, id: string): Promise<Grant | undefined> {
    const grant = (await this.listed(port)).find((g) => g.shareId === id);
    if (grant) await this.remove(grant.token);
    return grant;
  }

  /** Removes every grant (the owner signed out everywhere); returns them. */
  async revokeAll(): Promise<Grant[]> {
    const all = [...(await this.load()).values()];
    for (const grant of all) await this.remove(grant.token);
    return all;
  }

  /** Deletes expired grants; returns them (so their sockets can be closed) and the next expiry. */
  async sweep(): Promise<{ expired: Grant[]; next: number | undefined }> {
    const now = this.now();
    const expired: Grant[] = [];
    let next: number | undefined;
    for (const grant of [...(await this.load()).values()]) {
      if (grant.expiresAt <= now) {
        expired.push(grant);
        await this.remove(grant.token);
      } else {
        next = Math.min(next ?? grant.expiresAt, grant.expiresAt);
      }
    }
    return { expired, next };
  }

  /** Test support: moves a share's expiry (the test harness expires links with it). */
  async setExpiry(shareId: string, expiresAt: number): Promise<Grant | undefined> {
    const grant = [...(await this.load()).values()].find((g) => g.shareId === shareId);
    if (!grant) return undefined;
    const moved = { ...grant, expiresAt };
    await this.save(moved);
    return moved;
  }

  /** Drops the in-memory copy (after the object's storage was deleted). */
  forget(): void {
    this.grants = undefined;
  }

  private async load(): Promise<Map<string, Grant>> {
    if (!this.grants) {
      const stored = await this.storage.list<Grant>({ prefix: PREFIX });
      this.grants = new Map([...stored.values()].map((g) => [g.token, g]));
    }
    return this.grants;
  }

  private async save(grant: Grant): Promise<void> {
    await this.storage.put(PREFIX + grant.token, grant);
    (await this.load()).set(grant.token, grant);
  }

  private async remove(token: string): Promise<void> {
    await this.storage.delete(PREFIX + token);
    (await this.load()).delete(token);
  }
}

import type { Context, MiddlewareHandler } from "hono";
import { ACCESS_TOKEN_PREFIX, type CreatedToken } from "../../protocol/access";
import { ErrorCode } from "../../protocol/errors";
import type { SignInKind } from "../../protocol/session";
import type { AppEnv, User } from "../app-env";
import { userDirectory } from "../directory";
import { AppError } from "../errors";
import { drainBody } from "../http";
import { randomToken } from "../previews/tokens";

/**
 * Personal access tokens: `cide_{user, base64url}.{secret}`. The user's
 * part says which Directory holds the token's hash (there is no global
 * index); the secret is 256 bits. Only the SHA-256 of the whole token is
 * stored. A request with one is that user's, in a session of its own named
 * `token-{id}`, so revoking the token closes what it opened.
 */

/** The session id a token's requests carry (their sockets are closed by it). */
export function tokenSessionId(tokenId: string): string {
  return `token-${tokenId}`;
}

/** The token a request's session is, or null for a browser session. */
export function tokenOf(sessionId: string): string | null {
  return sessionId.startsWith("token-") ? sessionId.slice("token-".length) : null;
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** Makes a token for `user` and records its hash in their Directory. */
export async function mintToken(
  env: Env,
  user: { id: string; via: SignInKind },
  name: string,
  ttlSeconds: number,
): Promise<CreatedToken> {
  const secret = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const token = `${ACCESS_TOKEN_PREFIX}${base64url(new TextEncoder().encode(user.id))}.${secret}`;
  const id = randomToken(16);
  const expiresAt = Date.now() + ttlSeconds * 1000;
  await userDirectory(env, user.id).addToken({ id, name, hash: await sha256Hex(token), via: user.via, expiresAt });
  return { id, name, token, expiresAt: new Date(expiresAt).toISOString() };
}

/** The user a token names, or undefined when it is not shaped like one. */
export function tokenUser(token: string): string | undefined {
  const match = /^cide_([A-Za-z0-9_-]{1,400})\.[A-Za-z0-9_-]{43}$/.exec(token);
  if (!match?.[1]) return undefined;
  try {
    const padded = match[1].replace(/-/g, "+").replace(/_/g, "/");
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(atob(padded), (c) => c.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
}

/** The bearer token of a request, or undefined when it has no `Authorization: Bearer`. */
export function bearerOf(c: Context<AppEnv>): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("Authorization") ?? "");
  return match?.[1];
}

/** The user of a live personal access token, or undefined. */
export async function tokenIdentity(env: Env, token: string): Promise<User | undefined> {
  const userId = tokenUser(token);
  if (userId === undefined) return undefined;
  const live = await userDirectory(env, userId).useToken(await sha256Hex(token));
  return live ? { id: userId, via: live.via, sessionId: tokenSessionId(live.id) } : undefined;
}

/**
 * Serves `handler` for a request that carries a personal access token (401
 * when it is not live), and hands any other request on to the session checks.
 */
export function acceptToken(handler: (c: Context<AppEnv>) => Promise<Response>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearerOf(c);
    if (token === undefined) return next();
    const user = await tokenIdentity(c.env, token);
    if (!user) {
      await drainBody(c.req.raw);
      throw new AppError(
        ErrorCode.UNAUTHENTICATED,
        "This access token is not valid: it expired, was revoked or is mistyped. Make another (the Tokens page) or run cloud-ide login.",
      );
    }
    c.set("user", user);
    return handler(c);
  };
}

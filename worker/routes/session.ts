import { type Context, Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { ErrorCode } from "../../protocol/errors";
import type { SessionInfo, SessionList } from "../../protocol/session";
import type { AppEnv } from "../app-env";
import { clientAddress } from "../auth/client-address";
import { identify } from "../auth/identify";
import { secretsEqual } from "../auth/password";
import { sessionCookieName, sessionCookieOptions } from "../auth/session-cookie";
import { newSessionId, SESSION_TTL_SECONDS, signSession } from "../auth/session-token";
import { userDirectory } from "../directory";
import { AppError, notFound, type RpcResult, unwrap } from "../errors";
import { readJsonObject } from "../http";

/** `/api/session`: sign in with the owner password, see who is signed in, sign out. */
export const sessionRoutes = new Hono<AppEnv>();

sessionRoutes.post("/", async (c) => {
  const password = c.env.IDE_PASSWORD;
  const secret = c.env.SESSION_SECRET;
  if (!password || !secret) {
    throw new AppError(
      ErrorCode.MISCONFIGURED,
      "IDE_PASSWORD and SESSION_SECRET are not set: add them as secrets (wrangler secret put) or to .dev.vars.",
    );
  }
  // Read the body first: answering before it is read breaks the connection it came on.
  const body = await readJsonObject(c.req.raw);
  const throttle = c.env.SignInThrottle.getByName(`ip:${clientAddress(c.req.raw, import.meta.env.DEV)}`);
  // Counted before the password is checked, in one step: parallel guesses cannot slip past the limit.
  const verdict = await throttle.attempt();
  if (!verdict.allowed) {
    throw new AppError(
      ErrorCode.TOO_MANY_ATTEMPTS,
      `Too many sign-in attempts from this address. Try again in ${verdict.retryAfterSeconds} seconds.`,
      verdict.retryAfterSeconds,
    );
  }
  if (typeof body.password !== "string" || !(await secretsEqual(body.password, password))) {
    throw new AppError(ErrorCode.WRONG_PASSWORD, "That password is not right.");
  }
  await throttle.succeeded();
  const sid = newSessionId();
  await userDirectory(c.env, "owner").startSession(sid, c.req.header("User-Agent") ?? "", SESSION_TTL_SECONDS * 1000);
  const exp = Math.floor(Date.now() / 1000) + SESSION_TTL_SECONDS;
  const token = await signSession({ sub: "owner", via: "password", sid, exp }, secret);
  setCookie(c, sessionCookieName(c.req.url), token, sessionCookieOptions(c.req.url));
  return c.body(null, 204);
});

sessionRoutes.get("/", async (c) => {
  const user = await identify(c);
  if (!user) throw new AppError(ErrorCode.UNAUTHENTICATED, "Nobody is signed in.");
  const info: SessionInfo = { user: { id: user.id, via: user.via } };
  if (user.via === "guest") {
    // A guest is a display name and one workspace.
    const directory = userDirectory(c.env, user.id);
    const name = await directory.displayName();
    const workspace = (await directory.list())[0]?.id;
    info.user = { ...info.user, ...(name ? { name } : {}), ...(workspace ? { workspace } : {}) };
  }
  return c.json(info);
});

/** Signs out: ends this session on the server (its cookie stops working everywhere) and clears the cookie. */
sessionRoutes.delete("/", async (c) => {
  const user = await identify(c);
  if (user) {
    await userDirectory(c.env, user.id).endSession(user.sessionId);
    await closeSockets(c.env, user.id, [user.sessionId]);
  }
  clearSessionCookie(c);
  return c.body(null, 204);
});

/**
 * `/api/sessions` (after requireUser): the signed-in user's live sessions,
 * ending one, and "sign out everywhere".
 */
export const sessionListRoutes = new Hono<AppEnv>();

sessionListRoutes.get("/", async (c) => {
  const user = c.get("user");
  const list: SessionList = { sessions: await userDirectory(c.env, user.id).listSessions(user.sessionId) };
  return c.json(list);
});

sessionListRoutes.delete("/:sessionId", async (c) => {
  const user = c.get("user");
  const sessionId = c.req.param("sessionId");
  if (!(await userDirectory(c.env, user.id).endSession(sessionId))) {
    throw notFound("No such session: it ended already, or it is not yours.");
  }
  await closeSockets(c.env, user.id, [sessionId]);
  if (sessionId === user.sessionId) clearSessionCookie(c);
  return c.body(null, 204);
});

/**
 * Sign out everywhere: every session of this user ends, this one included,
 * and so does every preview grant in their workspaces (owner panes' URLs and
 * share links alike).
 */
sessionListRoutes.delete("/", async (c) => {
  const directory = userDirectory(c.env, c.get("user").id);
  await directory.endAllSessions();
  for (const workspace of await directory.owned()) {
    const revoked = await c.env.Workspace.getByName(workspace.id).revokeAllGrants(c.get("user").id);
    unwrap(revoked as RpcResult<number>);
  }
  await closeSockets(c.env, c.get("user").id, null);
  clearSessionCookie(c);
  return c.body(null, 204);
});

/** Closes the open sockets (terminals, ssh tunnels, ...) of ended sessions (null: all) in every workspace of the user. */
export async function closeSockets(env: Env, userId: string, sessionIds: string[] | null): Promise<void> {
  for (const workspace of await userDirectory(env, userId).list()) {
    // A workspace deleted meanwhile has no sockets left to close.
    await env.Workspace.getByName(workspace.id)
      .endSessions(userId, sessionIds)
      .catch(() => undefined);
  }
}

function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, sessionCookieName(c.req.url), {
    path: "/",
    secure: new URL(c.req.url).protocol === "https:",
  });
}

import { type Context, Hono } from "hono";
import { setCookie } from "hono/cookie";
import { ErrorCode } from "../../protocol/errors";
import { checkDisplayName, type InviteAccepted } from "../../protocol/members";
import type { AppEnv } from "../app-env";
import { identify } from "../auth/identify";
import { sessionCookieName, sessionCookieOptions } from "../auth/session-cookie";
import { newSessionId, SESSION_TTL_SECONDS, signSession } from "../auth/session-token";
import { userDirectory } from "../directory";
import { checkWorkspaceId } from "../door/forward";
import { AppError, type RpcResult, unwrap } from "../errors";
import { readJsonObject } from "../http";
import type { Joiner } from "../members/workspace-members";
import { randomToken } from "../previews/tokens";
import type { Workspace } from "../workspace";

/**
 * `/api/invites` (no session needed: the invite's token is the permission):
 *
 *   POST /api/invites/check   {workspace, token} -> InviteInfo (what the link is for), or 410 INVITE_UNUSABLE
 *   POST /api/invites/accept  {workspace, token, name} -> InviteAccepted
 *
 * Accepting signs the visitor in as a guest named `name`: a session of its
 * own kind, whose user is a member of that one workspace and nothing else
 * (it can make no workspace and reach no other). A Cloudflare Access user
 * joins as themselves instead, and keeps their session. The workspace
 * counts the use, so an expired, revoked or used-up link signs nobody in.
 */
export const inviteRoutes = new Hono<AppEnv>();

function target(
  c: Context<AppEnv>,
  body: Record<string, unknown>,
): { stub: DurableObjectStub<Workspace>; workspace: string; token: string } {
  const workspace = checkWorkspaceId(typeof body.workspace === "string" ? body.workspace : "");
  if (typeof body.token !== "string" || body.token.length === 0 || body.token.length > 100) {
    throw new AppError(
      ErrorCode.INVITE_UNUSABLE,
      "This invite link is not complete: copy the whole link and open it again.",
    );
  }
  return { stub: c.env.Workspace.getByName(workspace), workspace, token: body.token };
}

inviteRoutes.post("/check", async (c) => {
  const { stub, token } = target(c, await readJsonObject(c.req.raw));
  return c.json(unwrap((await stub.checkInvite(token)) as RpcResult<unknown>));
});

inviteRoutes.post("/accept", async (c) => {
  const secret = c.env.SESSION_SECRET;
  if (!secret)
    throw new AppError(ErrorCode.MISCONFIGURED, "SESSION_SECRET is not set: add it as a secret or to .dev.vars.");
  const body = await readJsonObject(c.req.raw);
  const { stub, workspace, token } = target(c, body);
  const user = await identify(c);
  if (user && user.via !== "guest") {
    // Signed in already: an Access user joins as themselves; the password's owner only enters their own.
    const joiner: Joiner = { id: user.id, name: user.id, kind: "access" };
    const role = unwrap(
      (await stub.redeemInvite(token, joiner, user.via === "access")) as RpcResult<InviteAccepted["role"]>,
    );
    return c.json({ workspace, role } satisfies InviteAccepted);
  }
  const named = checkDisplayName(body.name);
  if ("error" in named) throw new AppError(ErrorCode.INVALID_DISPLAY_NAME, named.error);
  const guest: Joiner = { id: `guest-${randomToken(20)}`, name: named.name, kind: "guest" };
  const role = unwrap((await stub.redeemInvite(token, guest, true)) as RpcResult<InviteAccepted["role"]>);
  // A guest of another workspace becomes this one's guest: their old session ends (its cookie is replaced).
  if (user) await userDirectory(c.env, user.id).endSession(user.sessionId);
  const directory = userDirectory(c.env, guest.id);
  await directory.setDisplayName(guest.name);
  const sid = newSessionId();
  await directory.startSession(sid, c.req.header("User-Agent") ?? "", SESSION_TTL_SECONDS * 1000, "guest");
  const exp = Math.floor(Date.now() / 1000) + SESSION_TTL_SECONDS;
  setCookie(
    c,
    sessionCookieName(c.req.url),
    await signSession({ sub: guest.id, via: "guest", sid, exp }, secret),
    sessionCookieOptions(c.req.url),
  );
  return c.json({ workspace, role } satisfies InviteAccepted);
});

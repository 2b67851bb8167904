import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv, User } from "../app-env";
import { userDirectory } from "../directory";
import { accessIdentity } from "./access-jwt";
import { sessionCookieName } from "./session-cookie";
import { verifySession } from "./session-token";

/**
 * The signed-in user: a valid Cloudflare Access token first, else the session
 * cookie; either way only while its session is live in the user's Directory.
 */
export async function identify(c: Context<AppEnv>): Promise<User | undefined> {
  const userAgent = c.req.header("User-Agent") ?? "";
  const access = await accessIdentity(c.req.raw, c.env);
  if (access) {
    const sessionId = await accessSessionId(access.token);
    const live = await userDirectory(c.env, access.email).useAccessSession(sessionId, access, userAgent);
    return live ? { id: access.email, via: "access", sessionId } : undefined;
  }
  const secret = c.env.SESSION_SECRET;
  const token = getCookie(c, sessionCookieName(c.req.url));
  if (!secret || !token) return undefined;
  const claims = await verifySession(token, secret);
  if (!claims || !(await userDirectory(c.env, claims.sub).useSession(claims.sid))) return undefined;
  return { id: claims.sub, via: claims.via, sessionId: claims.sid };
}

/** An Access session is named by its token: `access-` and the first 128 bits of its SHA-256, hex. */
async function accessSessionId(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return `access-${Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../workspace-access";
import { accessEmail } from "./access-jwt";
import { verifySession } from "./session-token";

export interface User {
  id: string;
  via: "password" | "access";
}

/**
 * The session cookie. Host-only (no Domain attribute), so preview hostnames
 * never receive it; over https the `__Host-` prefix makes browsers enforce that.
 */
export function sessionCookieName(url: string): string {
  return new URL(url).protocol === "https:" ? "__Host-cloud_ide_session" : "cloud_ide_session";
}

/** The signed-in user: a valid Cloudflare Access token first, else the session cookie. */
export async function identify(c: Context<AppEnv>): Promise<User | undefined> {
  const email = await accessEmail(c.req.raw, c.env);
  if (email) return { id: email, via: "access" };
  const secret = c.env.SESSION_SECRET;
  const token = getCookie(c, sessionCookieName(c.req.url));
  if (!secret || !token) return undefined;
  const claims = await verifySession(token, secret);
  return claims ? { id: claims.sub, via: claims.via } : undefined;
}

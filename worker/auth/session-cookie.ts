import type { CookieOptions } from "hono/utils/cookie";
import { SESSION_TTL_SECONDS } from "./session-token";

/**
 * The session cookie. Host-only (no Domain attribute), so preview hostnames
 * never receive it; over https the `__Host-` prefix makes browsers enforce that.
 */
export function sessionCookieName(url: string): string {
  return new URL(url).protocol === "https:" ? "__Host-cloud_ide_session" : "cloud_ide_session";
}

/** How the session cookie is set: HttpOnly, SameSite=Lax, Secure over https, for the whole site, 7 days. */
export function sessionCookieOptions(url: string): CookieOptions {
  return {
    httpOnly: true,
    secure: new URL(url).protocol === "https:",
    sameSite: "Lax",
    path: "/",
    maxAge: SESSION_TTL_SECONDS,
  };
}

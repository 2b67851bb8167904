import { Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { ErrorCode } from "../../protocol/errors";
import type { SessionInfo } from "../../protocol/session";
import { identify, sessionCookieName } from "../auth/identify";
import { secretsEqual } from "../auth/password";
import { SESSION_TTL_SECONDS, signSession } from "../auth/session-token";
import { AppError } from "../errors";
import { readJsonObject } from "../http";
import type { AppEnv } from "../workspace-access";

/** `/api/session`: sign in with the owner password, see who is signed in, sign out. */
export const sessionRoutes = new Hono<AppEnv>();

/** The client address failed sign-ins are counted against. */
function clientAddress(request: Request): string {
  return request.headers.get("CF-Connecting-IP") ?? "unknown";
}

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
  const throttle = c.env.SignInThrottle.getByName(`ip:${clientAddress(c.req.raw)}`);
  const wait = await throttle.retryAfter();
  if (wait > 0) {
    throw new AppError(
      ErrorCode.TOO_MANY_ATTEMPTS,
      `Too many failed sign-ins from this address. Try again in ${wait} seconds.`,
      wait,
    );
  }
  if (typeof body.password !== "string" || !(await secretsEqual(body.password, password))) {
    await throttle.recordFailure();
    throw new AppError(ErrorCode.WRONG_PASSWORD, "That password is not right.");
  }
  await throttle.reset();
  const token = await signSession(
    { sub: "owner", via: "password", exp: Math.floor(Date.now() / 1000) + SESSION_TTL_SECONDS },
    secret,
  );
  const secure = new URL(c.req.url).protocol === "https:";
  setCookie(c, sessionCookieName(c.req.url), token, {
    httpOnly: true,
    secure,
    sameSite: "Lax",
    path: "/",
    maxAge: SESSION_TTL_SECONDS,
  });
  return c.body(null, 204);
});

sessionRoutes.get("/", async (c) => {
  const user = await identify(c);
  if (!user) throw new AppError(ErrorCode.UNAUTHENTICATED, "Nobody is signed in.");
  const info: SessionInfo = { user };
  return c.json(info);
});

sessionRoutes.delete("/", (c) => {
  deleteCookie(c, sessionCookieName(c.req.url), {
    path: "/",
    secure: new URL(c.req.url).protocol === "https:",
  });
  return c.body(null, 204);
});

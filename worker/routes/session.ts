import { Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { ErrorCode } from "../../protocol/errors";
import type { SessionInfo } from "../../protocol/session";
import { clientAddress } from "../auth/client-address";
import { identify, sessionCookieName } from "../auth/identify";
import { secretsEqual } from "../auth/password";
import { SESSION_TTL_SECONDS, signSession } from "../auth/session-token";
import { AppError } from "../errors";
import { readJsonObject } from "../http";
import type { AppEnv } from "../workspace-access";

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

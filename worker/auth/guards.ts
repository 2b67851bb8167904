import type { MiddlewareHandler } from "hono";
import { ErrorCode } from "../../protocol/errors";
import type { AppEnv } from "../app-env";
import { AppError } from "../errors";
import { drainBody } from "../http";
import { identify } from "./identify";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses state-changing requests and WebSocket upgrades that do not come from
 * the app's own origin (cross-site request forgery, cross-site WebSocket
 * hijacking). Browsers always send Origin on these; a missing one is refused too.
 */
export const sameOriginOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  const upgrade = c.req.header("Upgrade")?.toLowerCase() === "websocket";
  if (upgrade || !SAFE_METHODS.has(c.req.method)) {
    const origin = c.req.header("Origin");
    const own = new URL(c.req.url).origin;
    if (origin !== own) {
      await drainBody(c.req.raw);
      throw new AppError(
        ErrorCode.FORBIDDEN_ORIGIN,
        origin
          ? `Requests from ${origin.slice(0, 200)} may not change anything here; use the IDE at ${own}.`
          : "This request has no Origin header; state-changing requests must come from the IDE's own pages.",
      );
    }
  }
  await next();
};

/** Answers 401 unless someone is signed in; puts the user in `c.var.user`. */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  const user = await identify(c);
  if (!user) {
    await drainBody(c.req.raw);
    throw new AppError(ErrorCode.UNAUTHENTICATED, "Sign in to use the IDE.");
  }
  c.set("user", user);
  await next();
};

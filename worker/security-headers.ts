import type { MiddlewareHandler } from "hono";
import { contentSecurityPolicy } from "./csp";

/** Headers every response from the app hostname carries. */
export const securityHeaders: MiddlewareHandler<{ Bindings: Env }> = async (c, next) => {
  await next();
  // WebSocket upgrades carry no page content.
  if (c.res.status === 101) return;
  // Responses from ASSETS (and fetch) have immutable headers. A 204 or 304 is made again without a body: one
  // forwarded from the Durable Object may carry an empty stream, which those statuses must not have.
  const bodyless = c.res.status === 204 || c.res.status === 304;
  c.res = new Response(bodyless ? null : c.res.body, c.res);
  const headers = c.res.headers;
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "same-origin");
  headers.set("X-Frame-Options", "SAMEORIGIN");
  // A response with a policy of its own keeps it: file bytes carry `sandbox`,
  // which the app's policy (meant for its pages) would loosen.
  if (!headers.has("Content-Security-Policy")) {
    headers.set(
      "Content-Security-Policy",
      contentSecurityPolicy(new URL(c.req.url), c.env.PREVIEW_DOMAIN, import.meta.env.DEV),
    );
  }
  if (new URL(c.req.url).protocol === "https:") {
    headers.set("Strict-Transport-Security", "max-age=31536000");
  }
};

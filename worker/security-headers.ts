import type { MiddlewareHandler } from "hono";

/** Headers every response from the app hostname carries. */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  // WebSocket upgrades carry no page content.
  if (c.res.status === 101) return;
  // Responses from ASSETS (and fetch) have immutable headers.
  c.res = new Response(c.res.body, c.res);
  const headers = c.res.headers;
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "same-origin");
};

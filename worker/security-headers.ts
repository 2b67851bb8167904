import type { MiddlewareHandler } from "hono";

/**
 * Content-Security-Policy for the app. Previews load in frames from their own
 * hostnames (`*.PREVIEW_DOMAIN`); nothing else may frame the app or be framed.
 * Under `vite dev` the page also needs Vite's inline script and its
 * hot-reload socket on another localhost port.
 */
export function contentSecurityPolicy(url: URL, previewDomain: string, dev: boolean): string {
  const previews = `${url.protocol}//*.${previewDomain}`;
  return [
    "default-src 'self'",
    `script-src 'self'${dev ? " 'unsafe-inline'" : ""}`,
    // xterm.js and CodeMirror position elements with inline styles.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws://localhost:*" : ""}`,
    `frame-src ${previews}`,
    "worker-src 'self' blob:",
    "frame-ancestors 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}

/** Headers every response from the app hostname carries. */
export const securityHeaders: MiddlewareHandler<{ Bindings: Env }> = async (c, next) => {
  await next();
  // WebSocket upgrades carry no page content.
  if (c.res.status === 101) return;
  // Responses from ASSETS (and fetch) have immutable headers.
  c.res = new Response(c.res.body, c.res);
  const headers = c.res.headers;
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "same-origin");
  headers.set("X-Frame-Options", "SAMEORIGIN");
  headers.set(
    "Content-Security-Policy",
    contentSecurityPolicy(new URL(c.req.url), c.env.PREVIEW_DOMAIN, import.meta.env.DEV),
  );
  if (new URL(c.req.url).protocol === "https:") {
    headers.set("Strict-Transport-Security", "max-age=31536000");
  }
};

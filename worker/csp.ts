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

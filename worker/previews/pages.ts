/**
 * The pages a preview hostname shows when there is no app to show. They come
 * from the Worker itself: never the IDE, never the dev server.
 */
const STYLE =
  "body{font:16px system-ui,sans-serif;background:#1e1e2e;color:#cdd6f4;display:grid;place-items:center;min-height:90vh;margin:0}main{max-width:34rem;padding:1rem}h1{font-size:1.3rem}";

function page(status: number, title: string, text: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title><style>${STYLE}</style></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`;
  return new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    },
  });
}

/** One page for every unknown, malformed, expired or revoked preview: it tells nothing apart. */
export function previewNotFound(): Response {
  return page(
    404,
    "This preview does not exist",
    "The link is wrong, has expired, or was revoked. Ask whoever shared it for a new one.",
  );
}

export function previewUnavailable(port: number): Response {
  return page(
    502,
    `Nothing is answering on port ${port}`,
    `The workspace has no server listening on port ${port} on 0.0.0.0 right now. Start it (for example <code>npm run dev</code>) and reload.`,
  );
}

/** The dev server was there but the connection to it failed, also when tried again (the log has the cause). */
export function previewConnectionFailed(port: number): Response {
  return page(
    502,
    `The dev server on port ${port} did not answer`,
    `The connection to port ${port} in the workspace failed while this page loaded. Reload to try again.`,
  );
}

/**
 * The pages a preview hostname shows when there is no app to show. They come
 * from the Worker itself: never the IDE, never the dev server.
 */
const STYLE =
  "body{font:16px system-ui,sans-serif;background:#1e1e2e;color:#cdd6f4;display:grid;place-items:center;min-height:90vh;margin:0}main{max-width:34rem;padding:1rem}h1{font-size:1.3rem}";

/**
 * On the "nothing is answering" page: asks again, 1 s apart and then up to
 * 10 s apart, and shows the app as soon as the dev server answers (it is
 * starting, or restarting after a change to its config). It gives up after
 * 10 minutes, so a tab left open does not keep the workspace awake for good.
 */
const WAIT_FOR_SERVER = `(()=>{const end=Date.now()+600000;let wait=1000;const again=()=>{if(Date.now()>end){document.getElementById("waiting").textContent="Stopped checking. Reload to try again.";return}setTimeout(async()=>{try{const r=await fetch(location.href,{method:"HEAD",cache:"no-store"});if(r.status!==502)return location.reload()}catch{}wait=Math.min(wait*1.5,10000);again()},wait)};again()})()`;
let waitForServerHash: Promise<string> | undefined;
/** The script's hash for the page's Content-Security-Policy (no inline script runs without it). */
function scriptHash(): Promise<string> {
  waitForServerHash ??= crypto.subtle
    .digest("SHA-256", new TextEncoder().encode(WAIT_FOR_SERVER))
    .then((digest) => `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
  return waitForServerHash;
}

async function page(
  status: number,
  title: string,
  text: string,
  { waitForServer = false, headers = {} }: { waitForServer?: boolean; headers?: Record<string, string> } = {},
): Promise<Response> {
  const script = waitForServer
    ? `<p id="waiting">This page reloads by itself when it answers.</p><script>${WAIT_FOR_SERVER}</script>`
    : "";
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title><style>${STYLE}</style></head><body><main><h1>${title}</h1><p>${text}</p>${script}</main></body></html>`;
  const scriptSource = waitForServer ? `; script-src ${await scriptHash()}; connect-src 'self'` : "";
  return new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": `default-src 'none'; style-src 'unsafe-inline'${scriptSource}`,
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      ...headers,
    },
  });
}

/** One page for every unknown, malformed, expired or revoked preview: it tells nothing apart. */
export function previewNotFound(): Promise<Response> {
  return page(
    404,
    "This preview does not exist",
    "The link is wrong, has expired, or was revoked. Ask whoever shared it for a new one.",
  );
}

export function previewUnavailable(port: number): Promise<Response> {
  return page(
    502,
    `Nothing is answering on port ${port}`,
    `The workspace has no server listening on port ${port} on 0.0.0.0 right now. Start it (for example <code>npm run dev</code>).`,
    { waitForServer: true, headers: { "Retry-After": "2" } },
  );
}

/** The dev server was there but the connection to it failed, also when tried again (the log has the cause). */
export function previewConnectionFailed(port: number): Promise<Response> {
  return page(
    502,
    `The dev server on port ${port} did not answer`,
    `The connection to port ${port} in the workspace failed while this page loaded. Reload to try again.`,
  );
}

/** How long a visitor is asked to wait before trying an asleep preview again. */
export const ASLEEP_RETRY_AFTER_SECONDS = 60;

/** A live link to a workspace that sleeps: said plainly, and nothing is woken. */
export function previewAsleep(): Promise<Response> {
  return page(
    503,
    "This preview is asleep",
    "The workspace behind it is asleep, and opening this link does not wake it. Its owner can wake it in the IDE and start the app again; then reload this page.",
    { headers: { "Retry-After": String(ASLEEP_RETRY_AFTER_SECONDS) } },
  );
}

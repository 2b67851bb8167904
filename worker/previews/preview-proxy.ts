/**
 * One preview request, forwarded to the dev server in the container through
 * `getTcpPort(port).fetch()`.
 *
 * workerd keeps the connections to a container port in a pool and sends the
 * next request on one that just answered. A connection whose last answer had
 * no body (a 304 Not Modified, which every reload of a Vite page gets for
 * dozens of modules) can be half-closed by workerd right after the next
 * request is written on it; Node's HTTP server, which Vite runs, takes that
 * half-close as the client giving up and drops the request, and the fetch
 * fails with "Container port connection closed unexpectedly". So:
 *
 * - Conditional GETs are not passed on. The dev server answers with the whole
 *   file and the proxy answers the browser 304 itself when the validators
 *   match (RFC 9110 §13.1.2 and §13.2.2), so the browser keeps its cache and
 *   the pool never gets a body-less answer to a page's module requests.
 * - A GET or HEAD whose fetch fails before any byte of an answer came back is
 *   tried once more, on another connection. Other methods never are: the dev
 *   server may have acted on them.
 * - The "nothing is answering" page is for a port where nothing listens; any
 *   other failure is logged with its cause and answered as a failed connection.
 */
import { isNotListening } from "../sandbox/sandbox";
import { previewConnectionFailed, previewUnavailable } from "./pages";

export type PortFetch = (request: Request) => Promise<Response>;

/** The request headers that make a GET conditional on the browser's cached copy. */
const CONDITIONALS = ["if-none-match", "if-modified-since"] as const;
/** What a 304 carries over from the 200 it stands for (RFC 9110 §15.4.5). */
const NOT_MODIFIED_HEADERS = ["cache-control", "content-location", "date", "etag", "expires", "last-modified", "vary"];

/**
 * Forwards `request` (already addressed to the dev server: http:, path and
 * preview Host kept) and returns the dev server's answer, or a page of the
 * Worker's own when there is none.
 */
export async function proxyToDevServer(request: Request, port: number, fetchPort: PortFetch): Promise<Response> {
  const idempotent = request.method === "GET" || request.method === "HEAD";
  const conditions = idempotent ? takeConditions(request.headers) : undefined;
  let response: Response;
  try {
    response = await fetchPort(request);
  } catch (first) {
    if (isNotListening(first)) return previewUnavailable(port);
    logFailure(request, port, first, idempotent ? "trying once more" : "not retried");
    if (!idempotent) return previewConnectionFailed(port);
    try {
      response = await fetchPort(request);
    } catch (second) {
      if (isNotListening(second)) return previewUnavailable(port);
      logFailure(request, port, second, "failed again");
      return previewConnectionFailed(port);
    }
  }
  if (conditions && response.status === 200 && notModified(conditions, response.headers)) {
    // Not read: the connection it came on closes rather than going back to the pool mid-body.
    await response.body?.cancel().catch(() => {});
    return notModifiedResponse(response.headers);
  }
  return response;
}

interface Conditions {
  ifNoneMatch: string | null;
  ifModifiedSince: string | null;
}

/** Removes the request's conditional headers and returns them, or undefined when it has none. */
export function takeConditions(headers: Headers): Conditions | undefined {
  const conditions: Conditions = {
    ifNoneMatch: headers.get("if-none-match"),
    ifModifiedSince: headers.get("if-modified-since"),
  };
  if (conditions.ifNoneMatch === null && conditions.ifModifiedSince === null) return undefined;
  for (const name of CONDITIONALS) headers.delete(name);
  return conditions;
}

/** Whether a 200 with these headers is unchanged for the browser that sent `conditions`. */
export function notModified(conditions: Conditions, response: Headers): boolean {
  // If-None-Match decides alone when present (RFC 9110 §13.2.2, step 3).
  if (conditions.ifNoneMatch !== null) {
    const etag = response.get("etag");
    if (conditions.ifNoneMatch.trim() === "*") return true;
    if (etag === null) return false;
    const current = opaqueTag(etag);
    return conditions.ifNoneMatch.split(",").some((tag) => opaqueTag(tag) === current);
  }
  const since = Date.parse(conditions.ifModifiedSince ?? "");
  const lastModified = Date.parse(response.get("last-modified") ?? "");
  return !Number.isNaN(since) && !Number.isNaN(lastModified) && lastModified <= since;
}

/** An entity tag for weak comparison: without its `W/` prefix. */
function opaqueTag(tag: string): string {
  const trimmed = tag.trim();
  return trimmed.startsWith("W/") ? trimmed.slice(2) : trimmed;
}

function notModifiedResponse(from: Headers): Response {
  const headers = new Headers();
  for (const name of NOT_MODIFIED_HEADERS) {
    const value = from.get(name);
    if (value !== null) headers.set(name, value);
  }
  return new Response(null, { status: 304, headers });
}

function logFailure(request: Request, port: number, error: unknown, next: string): void {
  const { pathname } = new URL(request.url);
  const cause = error instanceof Error ? error.message : String(error);
  console.warn(`preview ${port}: ${request.method} ${pathname} failed (${cause}); ${next}`);
}

/**
 * How a request enters a Workspace. Only the Worker reaches a Durable Object,
 * and it marks each request it forwards with the entrance it came by, in
 * headers only it sets: every client copy of them is removed from every
 * request first ({@link withoutInternalHeaders}, worker/index.ts). The
 * Workspace hands each entrance to its own handler ({@link entranceOf}):
 *
 *   member   a signed-in person: their user id and session (forward.ts) -> the door (dispatch.ts)
 *   agent    an MCP request (worker/routes/mcp.ts); its bearer token is checked by the agent gateway
 *   preview  a preview hostname's request; its token is its permission (worker/previews/)
 */

const CALLER_HEADER = "X-Cloud-IDE-Caller";
const SESSION_HEADER = "X-Cloud-IDE-Session";
const AGENT_HEADER = "X-Cloud-IDE-Agent";
const PREVIEW_HEADER = "X-Cloud-IDE-Preview";

/** Every header the Worker alone sets (HTTP header names are case-insensitive). */
export const INTERNAL_HEADERS: readonly string[] = [CALLER_HEADER, SESSION_HEADER, AGENT_HEADER, PREVIEW_HEADER];

export type Entrance =
  | { kind: "member"; caller: string; session: string }
  | { kind: "agent" }
  | { kind: "preview"; port: number; token: string };

/** The request without any internal header: what a client sent can never name an entrance. */
export function withoutInternalHeaders(request: Request): Request {
  if (!INTERNAL_HEADERS.some((name) => request.headers.has(name))) return request;
  return new Request(request, { headers: unmarked(request) });
}

/** A copy of the request's headers without any internal one. */
function unmarked(request: Request): Headers {
  const headers = new Headers(request.headers);
  for (const name of INTERNAL_HEADERS) headers.delete(name);
  return headers;
}

/**
 * The request marked for one entrance, and no other. Its body streams on
 * as it came (the Request is copied, never read).
 */
export function enter(request: Request, entrance: Entrance): Request {
  const headers = unmarked(request);
  if (entrance.kind === "member") {
    headers.set(CALLER_HEADER, entrance.caller);
    headers.set(SESSION_HEADER, entrance.session);
  } else if (entrance.kind === "agent") {
    headers.set(AGENT_HEADER, "1");
  } else {
    headers.set(PREVIEW_HEADER, `${entrance.port} ${entrance.token}`);
  }
  return new Request(request, { headers });
}

/**
 * The entrance a forwarded request came by. A request with no mark is a
 * member's with no caller (which the door refuses as it refuses a stranger).
 */
export function entranceOf(request: Request): Entrance {
  const preview = request.headers.get(PREVIEW_HEADER);
  if (preview !== null) {
    const [port = "", token = ""] = preview.split(" ");
    return { kind: "preview", port: Number(port), token };
  }
  if (request.headers.has(AGENT_HEADER)) return { kind: "agent" };
  return {
    kind: "member",
    caller: request.headers.get(CALLER_HEADER) ?? "",
    session: request.headers.get(SESSION_HEADER) ?? "",
  };
}

/**
 * The one way into a workspace: the Workspace Durable Object's fetch() hands
 * every request the Worker forwards (`/api/workspaces/{id}/...` and
 * `/ws/workspaces/{id}/...`) to dispatch(), which applies the route's
 * declaration (route.ts) in this order:
 *   the caller's role (none: 404 NOT_FOUND, as if the workspace did not exist)
 *   -> the route (404 when there is none)
 *   -> the role it needs (403 FORBIDDEN)
 *   -> the body's declared length (411, 413)
 *   -> its inputs (400 with the feature's code)
 *   -> a WebSocket route's upgrade (426)
 *   -> the wake rule (409 WORKSPACE_ASLEEP: a read never wakes)
 *   -> a long-lived connection's cap per person (429 TOO_MANY_CONNECTIONS)
 *   -> the handler, whose failures answer their own code (http.ts).
 * An event stream it answers ends with the caller's session (session-sockets.ts).
 */
import { ErrorCode } from "../../protocol/errors";
import { hasRole, type Role } from "../../protocol/roles";
import { MAX_JSON_BODY_BYTES, tooLarge } from "../body-limits";
import { AppError } from "../errors";
import { answerError, discardRest, drainBody, errorResponse, readJsonObject } from "../http";
import { endsWithSession, type SessionSockets } from "../session-sockets";
import type { Route } from "./route";
import { refusalOf } from "./schema";

export interface DoorDeps<W> {
  routes: readonly Route<W>[];
  /** The caller's role in this workspace, or none (worker/door/members.ts). */
  roleOf(caller: string): Role | undefined;
  /** What the handlers are given (the workspace's parts), made on first use. */
  parts(): W;
  /** Open connections by session: capped per person, and ended with their session. */
  sockets: SessionSockets;
  /** True while this is an unclaimed spare: only routes marked `spare` answer. */
  isSpare(): boolean;
  /** True while the container runs or is starting: a "read" route may go on. */
  awake(): boolean;
  /** Counts the request as use of the workspace. */
  touch(): void;
}

/** A workspace path: `/api/workspaces/{id}/rest` or `/ws/workspaces/{id}/rest`. */
const WORKSPACE_PATH = /^\/(api|ws)\/workspaces\/[^/]+(\/.*)?$/;

/** A member's request (entrances.ts): `caller` and `session` are as the Worker named them. */
export async function dispatch<W>(
  request: Request,
  { caller, session }: { caller: string; session: string },
  deps: DoorDeps<W>,
): Promise<Response> {
  const url = new URL(request.url);
  let tap: TappedBody | undefined;
  try {
    const role = caller ? deps.roleOf(caller) : undefined;
    // Never "forbidden" here: that would tell a stranger the workspace exists.
    if (!role) throw new AppError(ErrorCode.NOT_FOUND, "No such workspace.");
    const found = matchRoute(deps.routes, request.method, url.pathname);
    if (!found) throw new AppError(ErrorCode.NOT_FOUND, `No such route: ${request.method} ${url.pathname}.`);
    const { route, params } = found;
    // An unclaimed spare is nobody's workspace yet, and is never saved: no work can be done in it and lost with it.
    if (deps.isSpare() && !route.spare) {
      throw new AppError(
        ErrorCode.NOT_FOUND,
        "No such workspace: this is a spare; make it a workspace with POST /api/workspaces {spare}.",
      );
    }
    if (!hasRole(role, route.role)) {
      throw new AppError(
        ErrorCode.FORBIDDEN,
        `This needs the ${route.role} role in this workspace, and you are its ${role}: ask its owner.`,
      );
    }
    checkLength(request, route);
    const input = route.input;
    const invalid = input.invalid ?? ErrorCode.BAD_REQUEST;
    const parse = (schema: Route["input"]["params"], value: unknown) => {
      if (!schema) return {};
      const result = schema.safeParse(value);
      if (!result.success) throw refusalOf(result.error, invalid);
      return result.data;
    };
    const checkedParams = parse(input.params, params);
    const checkedQuery = parse(input.query, Object.fromEntries(url.searchParams));
    let body: unknown;
    if (input.body && "json" in input.body) {
      const isJson = /^application\/json\s*(;|$)/i.test(request.headers.get("Content-Type") ?? "");
      if (!isJson && input.body.optional) await drainBody(request);
      body = parse(input.body.json, !isJson && input.body.optional ? {} : await readJsonObject(request));
    }
    if (route.socket && request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      throw new AppError(ErrorCode.UPGRADE_REQUIRED, "This is a WebSocket route: connect with a WebSocket client.");
    }
    if (route.wake === "read" && !deps.awake()) {
      throw new AppError(
        ErrorCode.WORKSPACE_ASLEEP,
        "The workspace is not running, and reading never wakes it: wake it first (POST /api/workspaces/{id}/wake, or Wake in the IDE).",
      );
    }
    const workspace = deps.parts();
    tap = input.body && "stream" in input.body ? tappedBody(request) : undefined;
    // Counted from here until the handler answered, by when the connection it opened is counted itself.
    const admitted = route.connection ? deps.sockets.admit(caller, route.connection) : undefined;
    if (route.wake !== "never") deps.touch();
    try {
      const response = await route.handle({
        params: checkedParams,
        query: checkedQuery,
        body,
        request: tap?.request ?? request,
        url,
        caller: { id: caller, session, role },
        workspace,
      });
      await tap?.drain();
      // An event stream (the file watch, the agent panel's) ends with its session, like a terminal.
      if (!response.headers.get("Content-Type")?.startsWith("text/event-stream")) return response;
      return endsWithSession(response, deps.sockets, session, caller, route.connection ?? "file-events");
    } finally {
      admitted?.();
    }
  } catch (error) {
    // Read what the client still sends: a body left unread breaks the next request on its connection.
    if (tap) await tap.drain();
    else await drainBody(request);
    return error instanceof AppError ? errorResponse(error) : answerError(error, request, "workspace");
  }
}

/** The route for a method and a full path, and its params (still unchecked). */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  pathname: string,
): { route: Route; params: Record<string, string> } | undefined {
  const match = WORKSPACE_PATH.exec(pathname);
  if (!match) return undefined;
  const socket = match[1] === "ws";
  const segments = segmentsOf(match[2] ?? "/");
  for (const route of routes) {
    if (route.method !== method || (route.socket === true) !== socket) continue;
    const params = matchPath(segmentsOf(route.path), segments);
    if (params) return { route, params };
  }
  return undefined;
}

function segmentsOf(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "");
}

function matchPath(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    const segment = segments[index] as string;
    if (part.startsWith(":")) params[part.slice(1)] = decode(segment);
    else if (part !== segment) return undefined;
  }
  return params;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A body over the route's limit is refused by its Content-Length before a
 * byte of it is read (413); a streamed body must declare its length (411):
 * it goes straight into the container, and a stream cut at the limit could
 * leave a truncated file. A JSON body without one is counted as it is read.
 */
function checkLength(request: Request, route: Route): void {
  if (!request.body) return;
  const body = route.input.body;
  const limit = body && "stream" in body ? body.stream : MAX_JSON_BODY_BYTES;
  const declared = request.headers.get("Content-Length");
  if (declared === null) {
    if (body && "stream" in body) {
      throw new AppError(
        ErrorCode.LENGTH_REQUIRED,
        "Send the file with a Content-Length header (a body of known size), so its limit can be checked first.",
      );
    }
  } else if (!/^\d+$/.test(declared) || Number(declared) > limit) {
    throw tooLarge(limit);
  }
}

interface TappedBody {
  request: Request;
  drain(): Promise<void>;
}

/**
 * A streamed body handed to its route through a tap, so that what the route
 * leaves unread (a save refused half-way: the disk full, the container gone)
 * is read and discarded before the answer: a body left unread breaks the
 * next request on the connection (vite dev: "fetch failed", issue 45's full
 * disk). Its length was checked against the route's limit, and the caller may
 * use the route, so all of it is read.
 */
function tappedBody(request: Request): TappedBody | undefined {
  if (!request.body) return undefined;
  const reader = request.body.getReader();
  let finished = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await reader.read();
      if (next.done) {
        finished = true;
        controller.close();
      } else controller.enqueue(next.value);
    },
    // A consumer that gave up: the rest is drained after the route answered.
    cancel() {},
  });
  return {
    request: new Request(request, { body }),
    async drain() {
      if (finished) return;
      finished = true;
      await discardRest(reader);
    },
  };
}

import type { Context } from "hono";
import { ErrorCode } from "../protocol/errors";
import { isWorkspaceId } from "../protocol/ids";
import type { User } from "./auth/identify";
import { AppError, type RpcResult, unwrap } from "./errors";
import type { Workspace } from "./workspace";

export type AppEnv = { Bindings: Env; Variables: { user: User } };

/**
 * Header that carries the caller's user id on requests the Worker forwards to a
 * Workspace's fetch(). The Worker always overwrites it; the Durable Object
 * trusts it because only the Worker can reach the Durable Object.
 */
export const CALLER_HEADER = "X-Cloud-IDE-Caller";
/** The caller's session id, set beside {@link CALLER_HEADER}, so sockets can end with their session. */
export const SESSION_HEADER = "X-Cloud-IDE-Session";

/**
 * An RPC method of the Workspace: the caller's user id first, and its outcome
 * as an {@link RpcResult} (a method of any other shape is not reachable here).
 */
type CallerMethod = (caller: string, ...args: never[]) => Promise<RpcResult<unknown>>;

/**
 * A Workspace stub bound to the signed-in caller: every RPC method gets the
 * caller's user id as its first argument, and fetch() gets it in
 * {@link CALLER_HEADER}. The Durable Object checks it against the owner it
 * recorded, so a routing mistake here still cannot reach another user's
 * workspace. A failure comes back as data and is thrown here again as the
 * same AppError (code and message), so it answers its own status.
 */
export type WorkspaceHandle = {
  [K in keyof Workspace as Workspace[K] extends CallerMethod ? K : never]: Workspace[K] extends (
    caller: string,
    ...args: infer A
  ) => Promise<RpcResult<infer R>>
    ? (...args: A) => Promise<R>
    : never;
} & { fetch(request: Request): Promise<Response> };

/**
 * The workspace a route names in `:id` (checked here, once) and its stub,
 * acting as the signed-in user. Every route that touches an existing
 * workspace goes through here.
 */
export function requestedWorkspace(c: Context<AppEnv>): { id: string; stub: WorkspaceHandle } {
  const id = checkWorkspaceId(c.req.param("id") ?? "");
  return { id, stub: workspaceStub(c, id) };
}

/** The Workspace with a known-good id (one just made), acting as the signed-in user. */
export function workspaceStub(c: Context<AppEnv>, id: string): WorkspaceHandle {
  const user = c.get("user");
  return bindCaller(c.env.Workspace.getByName(id), user.id, user.sessionId);
}

export function bindCaller(stub: DurableObjectStub<Workspace>, caller: string, session = ""): WorkspaceHandle {
  const target = stub as unknown as Record<string | symbol, (...args: unknown[]) => unknown>;
  return new Proxy(target, {
    get(object, property) {
      if (property === "fetch") {
        return (request: Request) => {
          const forwarded = new Request(request);
          forwarded.headers.set(CALLER_HEADER, caller);
          forwarded.headers.set(SESSION_HEADER, session);
          return stub.fetch(forwarded);
        };
      }
      if (property === "then") return undefined;
      return async (...args: unknown[]) => unwrap((await object[property]?.(caller, ...args)) as RpcResult<unknown>);
    },
  }) as unknown as WorkspaceHandle;
}

export function checkWorkspaceId(value: string): string {
  if (!isWorkspaceId(value)) {
    throw new AppError(
      ErrorCode.INVALID_WORKSPACE_ID,
      `"${value.slice(0, 80)}" is not a workspace id: use 1-63 lowercase letters and digits.`,
    );
  }
  return value;
}

import type { Context } from "hono";
import { ErrorCode } from "../protocol/errors";
import { isWorkspaceId } from "../protocol/ids";
import type { User } from "./auth/identify";
import { ApiError } from "./http";
import type { Workspace } from "./workspace";

export type AppEnv = { Bindings: Env; Variables: { user: User } };

/**
 * Header that carries the caller's user id on requests the Worker forwards to a
 * Workspace's fetch(). The Worker always overwrites it; the Durable Object
 * trusts it because only the Worker can reach the Durable Object.
 */
export const CALLER_HEADER = "X-Cloud-IDE-Caller";

/** An RPC method of the Workspace whose first parameter is the caller's user id. */
type CallerMethod = (caller: string, ...args: never[]) => unknown;

/**
 * A Workspace stub bound to the signed-in caller: every RPC method gets the
 * caller's user id as its first argument, and fetch() gets it in
 * {@link CALLER_HEADER}. The Durable Object checks it against the owner it
 * recorded, so a routing mistake here still cannot reach another user's workspace.
 */
export type WorkspaceHandle = {
  [K in keyof Workspace as Workspace[K] extends CallerMethod ? K : never]: Workspace[K] extends (
    caller: string,
    ...args: infer A
  ) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
} & { fetch(request: Request): Promise<Response> };

/**
 * The Workspace a request may use, acting as the signed-in user. Every route
 * that touches a workspace goes through here.
 */
export function workspaceStub(c: Context<AppEnv>, id: string): WorkspaceHandle {
  const stub = c.env.Workspace.getByName(checkWorkspaceId(id));
  return bindCaller(stub, c.get("user").id);
}

export function bindCaller(stub: DurableObjectStub<Workspace>, caller: string): WorkspaceHandle {
  const target = stub as unknown as Record<string | symbol, (...args: unknown[]) => unknown>;
  return new Proxy(target, {
    get(object, property) {
      if (property === "fetch") {
        return (request: Request) => {
          const forwarded = new Request(request);
          forwarded.headers.set(CALLER_HEADER, caller);
          return stub.fetch(forwarded);
        };
      }
      if (property === "then") return undefined;
      return (...args: unknown[]) => object[property]?.(caller, ...args);
    },
  }) as unknown as WorkspaceHandle;
}

export function checkWorkspaceId(value: string): string {
  if (!isWorkspaceId(value)) {
    throw new ApiError(
      400,
      ErrorCode.INVALID_WORKSPACE_ID,
      `"${value.slice(0, 80)}" is not a workspace id: use 1-63 lowercase letters and digits.`,
    );
  }
  return value;
}

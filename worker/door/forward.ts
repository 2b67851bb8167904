import type { Context } from "hono";
import { ErrorCode } from "../../protocol/errors";
import { isWorkspaceId } from "../../protocol/ids";
import type { AppEnv } from "../app-env";
import { AppError } from "../errors";
import { enter } from "./entrances";

/**
 * The Worker's half of the door: `/api/workspaces/{id}/...` and
 * `/ws/workspaces/{id}/...`, once the session and the origin are checked,
 * go to that Workspace as they came (method, path, query, headers, streamed
 * body), with the signed-in caller and their session in headers the Worker
 * alone sets (entrances.ts). The Worker knows no feature: the Workspace's dispatcher
 * (dispatch.ts) checks the role, the inputs and the rest.
 */
export async function forwardToWorkspace(c: Context<AppEnv>): Promise<Response> {
  const id = checkWorkspaceId(c.req.param("id") ?? "");
  const user = c.get("user");
  const request = enter(c.req.raw, { kind: "member", caller: user.id, session: user.sessionId });
  // A personal access token was checked here (worker/auth/access-token.ts): it goes no further.
  request.headers.delete("Authorization");
  // A refused upgrade is logged by worker/index.ts, as every refused upgrade is.
  return c.env.Workspace.getByName(id).fetch(request);
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

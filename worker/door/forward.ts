import type { Context } from "hono";
import { ErrorCode } from "../../protocol/errors";
import { isWorkspaceId } from "../../protocol/ids";
import { AGENT_HEADER } from "../agents/agent-header";
import type { AppEnv } from "../app-env";
import { AppError } from "../errors";
import { CALLER_HEADER, SESSION_HEADER } from "./dispatch";

/**
 * The Worker's half of the door: `/api/workspaces/{id}/...` and
 * `/ws/workspaces/{id}/...`, once the session and the origin are checked,
 * go to that Workspace as they came (method, path, query, headers, streamed
 * body), with the signed-in caller and their session in headers the Worker
 * alone sets. The Worker knows no feature: the Workspace's dispatcher
 * (dispatch.ts) checks the role, the inputs and the rest.
 */
export async function forwardToWorkspace(c: Context<AppEnv>): Promise<Response> {
  const id = checkWorkspaceId(c.req.param("id") ?? "");
  const user = c.get("user");
  const request = new Request(c.req.raw);
  request.headers.set(CALLER_HEADER, user.id);
  request.headers.set(SESSION_HEADER, user.sessionId);
  // Only the MCP route may mark a request as an agent's (worker/routes/mcp.ts).
  request.headers.delete(AGENT_HEADER);
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

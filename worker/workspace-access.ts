import type { Context } from "hono";
import { ErrorCode } from "../protocol/errors";
import { isWorkspaceId } from "../protocol/ids";
import { ApiError } from "./http";

export type AppEnv = { Bindings: Env };

/**
 * The Workspace Durable Object a request may use. Every route that touches a
 * workspace goes through here, so access rules live in one place.
 */
export function workspaceStub(c: Context<AppEnv>, id: string) {
  return c.env.Workspace.getByName(checkWorkspaceId(id));
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

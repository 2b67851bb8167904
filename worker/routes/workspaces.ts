import { type Context, Hono } from "hono";
import { ErrorCode } from "../../protocol/errors";
import { checkBranchName, checkGitUrl } from "../../protocol/git";
import { newWorkspaceId } from "../../protocol/ids";
import {
  checkWorkspaceName,
  DEFAULT_TEMPLATE,
  isWorkspaceTemplate,
  WORKSPACE_TEMPLATES,
} from "../../protocol/workspaces";
import type { AppEnv } from "../app-env";
import { AppError, type RpcResult, unwrap } from "../errors";
import type { RepositorySource } from "../git/clone";
import { readJsonObject } from "../http";

/**
 * `/api/workspaces`: the caller's list of workspaces (their Directory) and
 * making a new one. Everything about one workspace, `/api/workspaces/{id}...`,
 * is that Workspace's own (worker/door/).
 */
export const workspaceRoutes = new Hono<AppEnv>();

const directory = (c: Context<AppEnv>) => c.env.Directory.getByName(`user:${c.get("user").id}`);

function checkedName(body: Record<string, unknown>): string {
  const checked = checkWorkspaceName(body.name);
  if ("error" in checked) throw new AppError(ErrorCode.INVALID_WORKSPACE_NAME, checked.error);
  return checked.name;
}

workspaceRoutes.get("/", async (c) => c.json(await directory(c).list()));

workspaceRoutes.post("/", async (c) => {
  if (c.get("user").via === "guest") {
    throw new AppError(
      ErrorCode.FORBIDDEN,
      "A guest may use only the workspace they were invited to, and cannot make workspaces.",
    );
  }
  const body = await readJsonObject(c.req.raw);
  const name = checkedName(body);
  const template = body.template ?? DEFAULT_TEMPLATE;
  if (!isWorkspaceTemplate(template)) {
    throw new AppError(ErrorCode.INVALID_TEMPLATE, `template must be one of: ${WORKSPACE_TEMPLATES.join(", ")}.`);
  }
  const repository = repositoryFrom(body.repository);
  const id = newWorkspaceId();
  // The Workspace records its owner first: an id in the list always has one.
  const created = await c.env.Workspace.getByName(id).create(c.get("user").id, name, template, repository);
  unwrap(created as RpcResult<void>);
  return c.json(await directory(c).add(id, name), 201);
});

/** `repository: {url, branch?}` of a new workspace: cloned on its first start. */
function repositoryFrom(value: unknown): RepositorySource | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new AppError(ErrorCode.INVALID_GIT_URL, 'repository must be {"url": "https://...", "branch"?: "main"}.');
  }
  const { url, branch } = value as Record<string, unknown>;
  const checkedUrl = checkGitUrl(url);
  if ("error" in checkedUrl) throw new AppError(ErrorCode.INVALID_GIT_URL, checkedUrl.error);
  if (branch === undefined || branch === null || branch === "") return { url: checkedUrl.url };
  const checkedBranch = checkBranchName(branch);
  if ("error" in checkedBranch) throw new AppError(ErrorCode.INVALID_BRANCH_NAME, checkedBranch.error);
  return { url: checkedUrl.url, branch: checkedBranch.name };
}

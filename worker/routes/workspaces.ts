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
import { AppError, notFound } from "../errors";
import type { RepositorySource } from "../git/clone";
import { readJsonObject } from "../http";
import { type AppEnv, requestedWorkspace, workspaceStub } from "../workspace-access";

/** `/api/workspaces`: the caller's workspaces. */
export const workspaceRoutes = new Hono<AppEnv>();

const directory = (c: Context<AppEnv>) => c.env.Directory.getByName(`user:${c.get("user").id}`);

async function nameFromBody(request: Request): Promise<string> {
  return checkedName(await readJsonObject(request));
}

function checkedName(body: Record<string, unknown>): string {
  const checked = checkWorkspaceName(body.name);
  if ("error" in checked) throw new AppError(ErrorCode.INVALID_WORKSPACE_NAME, checked.error);
  return checked.name;
}

workspaceRoutes.get("/", async (c) => c.json(await directory(c).list()));

workspaceRoutes.post("/", async (c) => {
  const body = await readJsonObject(c.req.raw);
  const name = checkedName(body);
  const template = body.template ?? DEFAULT_TEMPLATE;
  if (!isWorkspaceTemplate(template)) {
    throw new AppError(ErrorCode.INVALID_TEMPLATE, `template must be one of: ${WORKSPACE_TEMPLATES.join(", ")}.`);
  }
  const repository = repositoryFrom(body.repository);
  const id = newWorkspaceId();
  // The Workspace records its owner first: an id in the list always has one.
  await workspaceStub(c, id).create(name, template, repository);
  return c.json(await directory(c).add(id, name), 201);
});

workspaceRoutes.patch("/:id", async (c) => {
  const { id, stub } = requestedWorkspace(c);
  const name = await nameFromBody(c.req.raw);
  await stub.rename(name);
  const renamed = await directory(c).rename(id, name);
  if (!renamed) throw notFound("No such workspace.");
  return c.json(renamed);
});

workspaceRoutes.delete("/:id", async (c) => {
  const { id, stub } = requestedWorkspace(c);
  await stub.destroy();
  await directory(c).remove(id);
  return c.body(null, 204);
});

/** The state, read-only: never starts anything and does not count as use (`?wake=0` is accepted and changes nothing). */
workspaceRoutes.get("/:id/status", async (c) => {
  const { id, stub } = requestedWorkspace(c);
  return c.json(await stub.peek(id));
});

/** Starts or wakes the workspace (from its latest snapshot) and reports its state once it answers. */
workspaceRoutes.post("/:id/wake", async (c) => {
  const { id, stub } = requestedWorkspace(c);
  return c.json(await stub.status(id));
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

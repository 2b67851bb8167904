import { type Context, Hono } from "hono";
import { ErrorCode } from "../../protocol/errors";
import { checkBranchName, checkGitUrl } from "../../protocol/git";
import { isWorkspaceId, newWorkspaceId } from "../../protocol/ids";
import {
  checkWorkspaceName,
  DEFAULT_TEMPLATE,
  isWorkspaceTemplate,
  type SpareWorkspace,
  WORKSPACE_TEMPLATES,
} from "../../protocol/workspaces";
import type { AppEnv } from "../app-env";
import { AppError, type RpcResult, unwrap } from "../errors";
import type { RepositorySource } from "../git/clone";
import { readJsonObject } from "../http";
import { spareLifetimeMs } from "../lifecycle/spare";

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

/** `GET /api/workspaces`: a session's, or a personal access token's (worker/index.ts). */
export const listWorkspaces = async (c: Context<AppEnv>) => c.json(await directory(c).list());

workspaceRoutes.get("/", listWorkspaces);

function refuseGuests(c: Context<AppEnv>): void {
  if (c.get("user").via === "guest") {
    throw new AppError(
      ErrorCode.FORBIDDEN,
      "A guest may use only the workspace they were invited to, and cannot make workspaces.",
    );
  }
}

workspaceRoutes.post("/", async (c) => {
  refuseGuests(c);
  const body = await readJsonObject(c.req.raw);
  const name = checkedName(body);
  const template = body.template ?? DEFAULT_TEMPLATE;
  if (!isWorkspaceTemplate(template)) {
    throw new AppError(ErrorCode.INVALID_TEMPLATE, `template must be one of: ${WORKSPACE_TEMPLATES.join(", ")}.`);
  }
  const repository = repositoryFrom(body.repository);
  const requestedSpare = spareFrom(body.spare);
  const user = c.get("user").id;
  const create = async (id: string) =>
    (await c.env.Workspace.getByName(id).create(user, name, template, repository)) as RpcResult<void>;
  // The spare the page asked for while its user typed the name (theirs only: their Directory's); else a new one.
  const spare = requestedSpare ? await directory(c).takeSpare(requestedSpare) : undefined;
  let id = spare ?? newWorkspaceId();
  // The Workspace records its owner first: an id in the list always has one.
  let created = await create(id);
  if (spare && !created.ok) {
    // The spare went meanwhile (discarded as it was taken): a new workspace, as without one.
    id = newWorkspaceId();
    created = await create(id);
  }
  unwrap(created);
  return c.json(await directory(c).add(id, name), 201);
});

/** `spare` of a new workspace: the id `POST /api/workspaces/spare` answered. */
function spareFrom(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !isWorkspaceId(value)) {
    throw new AppError(ErrorCode.INVALID_WORKSPACE_ID, "spare must be the id POST /api/workspaces/spare answered.");
  }
  return value;
}

/**
 * `POST /api/workspaces/spare`: the page calls it when someone starts to
 * name a new workspace. The container of their next new workspace starts
 * now, so the workspace they create with `spare: id` opens at once; its
 * status (`GET /api/workspaces/{id}/status`) says when it runs. 204 when
 * spares are off (`SPARE_WORKSPACE_SECONDS` 0).
 */
export async function prepareSpare(c: Context<AppEnv>): Promise<Response> {
  refuseGuests(c);
  const lifetime = spareLifetimeMs(c.env.SPARE_WORKSPACE_SECONDS);
  if (lifetime === 0) return c.body(null, 204);
  const spare = await directory(c).reserveSpare({ id: newWorkspaceId(), expiresAt: Date.now() + lifetime });
  unwrap(
    (await c.env.Workspace.getByName(spare.id).prepareSpare(c.get("user").id, spare.expiresAt)) as RpcResult<void>,
  );
  return c.json({ id: spare.id, expiresAt: new Date(spare.expiresAt).toISOString() } satisfies SpareWorkspace);
}

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

import { type Context, Hono } from "hono";
import { type AppEnv, requestedWorkspace } from "../workspace-access";

/**
 * `/api/workspaces/{id}/git/...`: source control of /workspace. The workspace
 * (worker/git/git-routes.ts) checks every input; this only names the routes
 * and forwards them, with their streamed bodies, as the signed-in owner.
 *
 *   GET  /git/status                    GitStatus (protocol/git.ts); GETs never wake a workspace (409 WORKSPACE_ASLEEP)
 *   POST /git/init                      git init; GitStatus
 *   GET  /git/diff?path=P&staged=0|1    GitDiff: both sides' text
 *   POST /git/stage|unstage|discard     {paths}; GitStatus
 *   POST /git/commit                    {message, amend?}; 201 {oid, summary}
 *   GET  /git/branches                  {branches}
 *   POST /git/branches                  {name, from?, checkout?}; 201 {branches}
 *   POST /git/checkout                  {branch}; GitStatus
 *   GET  /git/log?limit=N               {commits}
 *   POST /git/pull|push|fetch           {remote?}; newline-delimited JSON GitSyncEvents
 */
export const gitRoutes = new Hono<AppEnv>();

function forward(c: Context<AppEnv>) {
  const { id, stub } = requestedWorkspace(c);
  const { pathname, search } = new URL(c.req.url);
  const path = pathname.slice(`/api/workspaces/${id}`.length);
  return stub.fetch(new Request(`https://workspace${path}${search}`, c.req.raw));
}

gitRoutes.get("/:id/git/status", forward);
gitRoutes.post("/:id/git/init", forward);
gitRoutes.get("/:id/git/diff", forward);
gitRoutes.post("/:id/git/stage", forward);
gitRoutes.post("/:id/git/unstage", forward);
gitRoutes.post("/:id/git/discard", forward);
gitRoutes.post("/:id/git/commit", forward);
gitRoutes.get("/:id/git/branches", forward);
gitRoutes.post("/:id/git/branches", forward);
gitRoutes.post("/:id/git/checkout", forward);
gitRoutes.get("/:id/git/log", forward);
gitRoutes.post("/:id/git/pull", forward);
gitRoutes.post("/:id/git/push", forward);
gitRoutes.post("/:id/git/fetch", forward);

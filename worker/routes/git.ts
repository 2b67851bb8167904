import { type Context, Hono } from "hono";
import { notFound } from "../errors";
import { checkGitHost, checkToken } from "../git/git-credentials";
import { readJsonObject } from "../http";
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
 *
 * Credentials: a token per git host, kept as the workspace's network secret
 * `git-HOST` (never in the container), by RPC:
 *   GET    /git/credentials             {hosts: [{host, updatedAt}], githubSignIn}
 *   PUT    /git/credentials             {host, token}; the same answer
 *   DELETE /git/credentials?host=H      204, or 404
 *   POST   /git/credentials/github      GitHub device sign-in: {userCode, verificationUri, expiresAt, interval}
 *   POST   /git/credentials/github/poll {state: pending|done|expired|denied}
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

gitRoutes.get("/:id/git/credentials", async (c) => c.json(await requestedWorkspace(c).stub.gitCredentials()));

gitRoutes.put("/:id/git/credentials", async (c) => {
  const { stub } = requestedWorkspace(c);
  const body = await readJsonObject(c.req.raw);
  return c.json(await stub.setGitToken(checkGitHost(body.host), checkToken(body.token)));
});

gitRoutes.delete("/:id/git/credentials", async (c) => {
  const { stub } = requestedWorkspace(c);
  if (!(await stub.removeGitToken(checkGitHost(c.req.query("host"))))) throw notFound("No token for this host.");
  return c.body(null, 204);
});

gitRoutes.post("/:id/git/credentials/github", async (c) =>
  c.json(await requestedWorkspace(c).stub.startGitHubSignIn()),
);

gitRoutes.post("/:id/git/credentials/github/poll", async (c) =>
  c.json(await requestedWorkspace(c).stub.pollGitHubSignIn()),
);

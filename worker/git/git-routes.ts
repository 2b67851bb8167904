import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import type {
  GitBranches,
  GitCheckoutRequest,
  GitCommitRequest,
  GitCreateBranchRequest,
  GitCredentials,
  GitLog,
  GitPathsRequest,
  GitSyncRequest,
  GitTokenRequest,
} from "../../protocol/git";
import { MAX_SECRETS } from "../../protocol/network";
import type { Body } from "../door/route";
import { check, none } from "../door/schema";
import { AppError, notFound } from "../errors";
import type { WorkspaceParts } from "../workspace-parts";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";
import { checkGitHost, checkToken, gitSecret, gitSecretName } from "./git-credentials";
import { checkBranch, checkLimit, checkMessage, checkPath, checkPaths, checkRemote, checkRevision } from "./git-inputs";
import { type SyncKind, streamGit, syncArgs } from "./git-sync";

/**
 * Source control of /workspace, `/api/workspaces/{id}/git/...`. Every input
 * is checked by the schemas here before git runs; git's refusals answer 409
 * GIT_REFUSED with git's own message. A change (a POST) wakes the workspace,
 * a read (a GET) never does (409 WORKSPACE_ASLEEP).
 *
 *   GET  /git/status                    GitStatus (protocol/git.ts)
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
 * `git-HOST` (never in the container); the owner's to manage:
 *   GET    /git/credentials             {hosts: [{host, updatedAt}], githubSignIn}
 *   PUT    /git/credentials             {host, token}; the same answer
 *   DELETE /git/credentials?host=H      204, or 404
 *   POST   /git/credentials/github      GitHub device sign-in: {userCode, verificationUri, expiresAt, interval}
 *   POST   /git/credentials/github/poll {state: pending|done|expired|denied}
 */

/** Runs a git operation beside file operations, never beside a save (see DiskLock); a change wakes the workspace first. */
async function gitOperation(
  workspace: WorkspaceParts,
  change: boolean,
  operation: () => Promise<Response>,
): Promise<Response> {
  if (change) await workspace.sandbox.wake();
  return workspace.lifecycle.shared(operation);
}

const paths = {
  json: z
    .record(z.string(), z.unknown())
    .transform((body, ctx) => ({ paths: checkedWith(ctx, () => checkPaths(body)) })) satisfies Body<GitPathsRequest>,
};
const optionalBoolean = (name: string) => z.boolean({ error: `${name} must be true or false.` }).optional();

/** A check that throws an AppError, inside a transform: its code and message. */
function checkedWith<T>(ctx: z.RefinementCtx, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    ctx.addIssue({ code: "custom", message: error.message, params: { code: error.code } });
    return z.NEVER;
  }
}

function stagingRoute(
  path: "/git/stage" | "/git/unstage" | "/git/discard",
  op: "stage" | "unstage" | "discard",
): WorkspaceRoute {
  return defineRoute({
    method: "POST",
    path,
    role: "editor",
    wake: "wake",
    input: { body: paths },
    handle: ({ body, workspace }) =>
      gitOperation(workspace, true, async () => {
        await workspace.scm[op](body.paths);
        return Response.json(await workspace.scm.status());
      }),
  });
}

function syncRoute(kind: SyncKind): WorkspaceRoute {
  return defineRoute({
    method: "POST",
    path: `/git/${kind}`,
    role: "editor",
    wake: "wake",
    // The body is optional: none, or JSON {remote?}.
    input: { body: { json: z.object({ remote: check(checkRemote) }) satisfies Body<GitSyncRequest>, optional: true } },
    handle: async ({ body, workspace }) => {
      await workspace.sandbox.wake();
      const shared = workspace.lifecycle.shared.bind(workspace.lifecycle);
      const args = await shared(() => syncArgs(kind, body.remote, workspace.scm));
      return streamGit(workspace.git, args, shared);
    },
  });
}

async function credentials(workspace: WorkspaceParts): Promise<Response> {
  return Response.json((await workspace.gitCredentials()) satisfies GitCredentials);
}

export const GIT_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/git/status",
    role: "viewer",
    wake: "read",
    input: { query: none },
    handle: ({ workspace }) => gitOperation(workspace, false, async () => Response.json(await workspace.scm.status())),
  }),
  defineRoute({
    method: "POST",
    path: "/git/init",
    role: "editor",
    wake: "wake",
    input: { query: none },
    handle: ({ workspace }) =>
      gitOperation(workspace, true, async () => {
        const status = await workspace.scm.init();
        const { name, email } = workspace.identity();
        await workspace.scm.ensureIdentity(name, email);
        return Response.json(status);
      }),
  }),
  defineRoute({
    method: "GET",
    path: "/git/diff",
    role: "viewer",
    wake: "read",
    input: {
      query: z.object({
        path: check((value) => {
          const path = checkPath(value);
          if (path === ".") throw new AppError(ErrorCode.INVALID_PATH, "path names /workspace itself: name a file.");
          return path;
        }),
        staged: z
          .string()
          .optional()
          .transform((value) => value === "1" || value === "true"),
      }),
    },
    handle: ({ query, workspace }) =>
      gitOperation(workspace, false, async () => Response.json(await workspace.scm.diff(query.path, query.staged))),
  }),
  stagingRoute("/git/stage", "stage"),
  stagingRoute("/git/unstage", "unstage"),
  stagingRoute("/git/discard", "discard"),
  defineRoute({
    method: "POST",
    path: "/git/commit",
    role: "editor",
    wake: "wake",
    input: {
      body: {
        json: z.object({
          message: check(checkMessage),
          amend: optionalBoolean("amend"),
        }) satisfies Body<GitCommitRequest>,
      },
    },
    handle: ({ body, workspace }) =>
      gitOperation(workspace, true, async () => {
        const { name, email } = workspace.identity();
        await workspace.scm.ensureIdentity(name, email);
        return Response.json(await workspace.scm.commit(body.message, body.amend === true), { status: 201 });
      }),
  }),
  defineRoute({
    method: "GET",
    path: "/git/branches",
    role: "viewer",
    wake: "read",
    input: { query: none },
    handle: ({ workspace }) =>
      gitOperation(workspace, false, async () =>
        Response.json({ branches: await workspace.scm.branches() } satisfies GitBranches),
      ),
  }),
  defineRoute({
    method: "POST",
    path: "/git/branches",
    role: "editor",
    wake: "wake",
    input: {
      body: {
        json: z.object({
          name: check((value) => checkBranch(value)),
          from: check(checkRevision),
          checkout: optionalBoolean("checkout"),
        }) satisfies Body<GitCreateBranchRequest>,
      },
    },
    handle: ({ body, workspace }) =>
      gitOperation(workspace, true, async () => {
        await workspace.scm.createBranch(body.name, body.from, body.checkout !== false);
        return Response.json({ branches: await workspace.scm.branches() } satisfies GitBranches, { status: 201 });
      }),
  }),
  defineRoute({
    method: "POST",
    path: "/git/checkout",
    role: "editor",
    wake: "wake",
    input: {
      body: {
        json: z.object({ branch: check((value) => checkBranch(value, "branch")) }) satisfies Body<GitCheckoutRequest>,
      },
    },
    handle: ({ body, workspace }) =>
      gitOperation(workspace, true, async () => {
        await workspace.scm.checkout(body.branch);
        return Response.json(await workspace.scm.status());
      }),
  }),
  defineRoute({
    method: "GET",
    path: "/git/log",
    role: "viewer",
    wake: "read",
    input: { query: z.object({ limit: check((value) => checkLimit(typeof value === "string" ? value : null)) }) },
    handle: ({ query, workspace }) =>
      gitOperation(workspace, false, async () =>
        Response.json({ commits: await workspace.scm.log(query.limit) } satisfies GitLog),
      ),
  }),
  syncRoute("pull"),
  syncRoute("push"),
  syncRoute("fetch"),

  defineRoute({
    method: "GET",
    path: "/git/credentials",
    role: "owner",
    wake: "never",
    input: { query: none },
    handle: ({ workspace }) => credentials(workspace),
  }),
  defineRoute({
    method: "PUT",
    path: "/git/credentials",
    role: "owner",
    wake: "never",
    input: {
      body: { json: z.object({ host: check(checkGitHost), token: check(checkToken) }) satisfies Body<GitTokenRequest> },
    },
    handle: async ({ body, workspace }) => {
      await workspace.network.putSecret(gitSecretName(body.host), gitSecret(body.host, body.token), MAX_SECRETS);
      return credentials(workspace);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/git/credentials",
    role: "owner",
    wake: "never",
    input: { query: z.object({ host: check(checkGitHost) }) },
    handle: async ({ query, workspace }) => {
      if (!(await workspace.network.deleteSecret(gitSecretName(query.host)))) throw notFound("No token for this host.");
      return new Response(null, { status: 204 });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/git/credentials/github",
    role: "owner",
    wake: "never",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.github.start()),
  }),
  defineRoute({
    method: "POST",
    path: "/git/credentials/github/poll",
    role: "owner",
    wake: "never",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.github.poll()),
  }),
];

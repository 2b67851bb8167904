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
 * Credentials: a token per git host, kept as the workspace's network secret
 * `git-HOST` (never in the container); the owner's to manage. The routes
 * and their inputs: docs/api.md.
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
  doc: string,
): WorkspaceRoute {
  return defineRoute({
    method: "POST",
    path,
    role: "editor",
    wake: "wake",
    doc,
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
    doc: `\`{remote?}\` (or no body): runs \`git ${kind}\`: answers application/x-ndjson as it runs, one GitSyncEvent a line (protocol/git.ts): \`progress\`, \`output\`, then \`done\` or \`error\` (\`{code, message}\`, git's words).`,
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
    doc: "`{repository: false}`, or GitStatus `{repository, branch, staged, changed, untracked, conflicted, truncated, total}` (protocol/git.ts).",
    input: { query: none },
    handle: ({ workspace }) => gitOperation(workspace, false, async () => Response.json(await workspace.scm.status())),
  }),
  defineRoute({
    method: "POST",
    path: "/git/init",
    role: "editor",
    wake: "wake",
    doc: "`git init` in /workspace (with the owner's name and email when git has none); answers GitStatus.",
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
    doc: "GitDiff of the file `path`, `{path, staged, original, modified}`: each side's `label` and `text` (or `missing`, `binary`, `tooLarge`); `staged=1` for its staged change.",
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
  stagingRoute("/git/stage", "stage", "`{paths}` (1 to 20,000): stages their changes; answers GitStatus."),
  stagingRoute("/git/unstage", "unstage", "`{paths}` (1 to 20,000): unstages them; answers GitStatus."),
  stagingRoute(
    "/git/discard",
    "discard",
    "`{paths}` (1 to 20,000): throws away their working tree changes (tracked files go back to the index, untracked ones are deleted); answers GitStatus.",
  ),
  defineRoute({
    method: "POST",
    path: "/git/commit",
    role: "editor",
    wake: "wake",
    doc: "`{message, amend?}`: commits what is staged (as the owner when git has no identity); 201 `{oid, summary}`. An empty message answers 400 INVALID_COMMIT_MESSAGE.",
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
    doc: "GitBranches `{branches: [{name, remote, current, oid, upstream?, subject}]}`.",
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
    doc: "`{name, from?, checkout?}`: a new branch from `from` (HEAD by default), checked out unless `checkout` is false; 201 `{branches}`. A bad name answers 400 INVALID_BRANCH_NAME.",
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
    doc: "`{branch}`: checks it out; answers GitStatus, or 409 GIT_REFUSED with git's reason.",
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
    doc: "`{commits: [{oid, shortOid, author, email, date, subject}]}`: the latest `limit` (1 to 500, 20 by default).",
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
    doc: "`{hosts: [{host, updatedAt}], githubSignIn}`: the hosts with a token (never their values), and whether GitHub's sign-in is offered.",
    input: { query: none },
    handle: ({ workspace }) => credentials(workspace),
  }),
  defineRoute({
    method: "PUT",
    path: "/git/credentials",
    role: "owner",
    wake: "never",
    doc: "`{host, token}`: the token of one host name (no `*` or pattern), kept as the workspace's network secret `git-HOST` (never in the container); answers as GET does.",
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
    doc: "Forgets the token of `host`: 204, or 404 when there is none.",
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
    doc: "Starts GitHub's device sign-in: `{userCode, verificationUri, expiresAt, interval}`.",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.github.start()),
  }),
  defineRoute({
    method: "POST",
    path: "/git/credentials/github/poll",
    role: "owner",
    wake: "never",
    doc: '`{state: "pending", interval}`, or `done` (the token is now github.com\'s), `expired` or `denied`.',
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.github.poll()),
  }),
];

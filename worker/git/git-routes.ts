import { ErrorCode } from "../../protocol/errors";
import type { GitBranches, GitLog } from "../../protocol/git";
import { AppError } from "../errors";
import { answerError, drainBody, readJsonObject } from "../http";
import type { WorkspaceRoutes } from "../workspace-router";
import type { GitCli } from "./git-cli";
import { checkBranch, checkLimit, checkMessage, checkPath, checkPaths, checkRemote, checkRevision } from "./git-inputs";
import { type SyncKind, streamGit, syncArgs } from "./git-sync";
import type { SourceControl } from "./source-control";

export interface GitDeps {
  scm: SourceControl;
  git: GitCli;
  /** Starts or wakes the container: a change (a POST) does, a read (a GET) never does. */
  wake: () => Promise<void>;
  /** Runs a git operation beside file operations, never beside a save (see DiskLock). */
  shared: <T>(operation: () => Promise<T>) => Promise<T>;
  /** The owner's name and email, for commits when git has none configured. */
  identity: () => { name: string; email: string };
}

type Handler = (request: Request, query: URLSearchParams, deps: GitDeps) => Promise<Response>;

/**
 * The Durable Object's source control routes, `/api/workspaces/{id}/git/...`
 * as the Worker forwards them (worker/routes/git.ts). Every input is checked
 * here before git runs; git's refusals answer 409 GIT_REFUSED with git's
 * own message.
 */
export function gitRoutes(deps: GitDeps): WorkspaceRoutes {
  const routes: WorkspaceRoutes = {};
  for (const [key, handler] of Object.entries(HANDLERS)) {
    routes[key as keyof WorkspaceRoutes] = async (request, url) => {
      try {
        // GETs reach here only while the container runs (Workspace.wouldWake refuses them otherwise).
        if (request.method !== "GET") await deps.wake();
        return await deps.shared(() => handler(request, url.searchParams, deps));
      } catch (error) {
        await drainBody(request);
        return answerError(error, request, key);
      }
    };
  }
  for (const kind of ["pull", "push", "fetch"] as const) {
    routes[`POST /git/${kind}`] = (request) => sync(kind, request, deps);
  }
  return routes;
}

const HANDLERS: Record<string, Handler> = {
  "GET /git/status": async (_request, _query, deps) => {
    return Response.json(await deps.scm.status());
  },

  "POST /git/init": async (_request, _query, deps) => {
    const status = await deps.scm.init();
    const { name, email } = deps.identity();
    await deps.scm.ensureIdentity(name, email);
    return Response.json(status);
  },

  "GET /git/diff": async (_request, query, deps) => {
    const path = checkPath(query.get("path"));
    if (path === ".") throw new AppError(ErrorCode.INVALID_PATH, "path names /workspace itself: name a file.");
    return Response.json(await deps.scm.diff(path, query.get("staged") === "1" || query.get("staged") === "true"));
  },

  "POST /git/stage": async (request, _query, deps) => {
    await deps.scm.stage(checkPaths(await readJsonObject(request)));
    return Response.json(await deps.scm.status());
  },

  "POST /git/unstage": async (request, _query, deps) => {
    await deps.scm.unstage(checkPaths(await readJsonObject(request)));
    return Response.json(await deps.scm.status());
  },

  "POST /git/discard": async (request, _query, deps) => {
    await deps.scm.discard(checkPaths(await readJsonObject(request)));
    return Response.json(await deps.scm.status());
  },

  "POST /git/commit": async (request, _query, deps) => {
    const body = await readJsonObject(request);
    const message = checkMessage(body.message);
    if (body.amend !== undefined && typeof body.amend !== "boolean") {
      throw new AppError(ErrorCode.BAD_REQUEST, "amend must be true or false.");
    }
    const { name, email } = deps.identity();
    await deps.scm.ensureIdentity(name, email);
    return Response.json(await deps.scm.commit(message, body.amend === true), { status: 201 });
  },

  "GET /git/branches": async (_request, _query, deps) => {
    return Response.json({ branches: await deps.scm.branches() } satisfies GitBranches);
  },

  "POST /git/branches": async (request, _query, deps) => {
    const body = await readJsonObject(request);
    const name = checkBranch(body.name);
    const from = checkRevision(body.from);
    if (body.checkout !== undefined && typeof body.checkout !== "boolean") {
      throw new AppError(ErrorCode.BAD_REQUEST, "checkout must be true or false.");
    }
    await deps.scm.createBranch(name, from, body.checkout !== false);
    return Response.json({ branches: await deps.scm.branches() } satisfies GitBranches, { status: 201 });
  },

  "POST /git/checkout": async (request, _query, deps) => {
    const body = await readJsonObject(request);
    await deps.scm.checkout(checkBranch(body.branch, "branch"));
    return Response.json(await deps.scm.status());
  },

  "GET /git/log": async (_request, query, deps) => {
    const limit = checkLimit(query.get("limit"));
    return Response.json({ commits: await deps.scm.log(limit) } satisfies GitLog);
  },
};

/** `POST /git/{pull,push,fetch}`: checked and prepared like the others, then streamed while git runs. */
async function sync(kind: SyncKind, request: Request, deps: GitDeps): Promise<Response> {
  try {
    // The body is optional: none, or JSON {remote?}.
    const json = /^application\/json/i.test(request.headers.get("Content-Type") ?? "");
    if (!json) await drainBody(request);
    const body = json ? await readJsonObject(request) : {};
    const remote = checkRemote(body.remote);
    await deps.wake();
    const args = await deps.shared(() => syncArgs(kind, remote, deps.scm));
    return streamGit(deps.git, args, deps.shared);
  } catch (error) {
    await drainBody(request);
    return answerError(error, request, `POST /git/${kind}`);
  }
}

import { ErrorCode } from "../../protocol/errors";
import type { DirectoryListing, FileInfo, FileType, MoveRequest } from "../../protocol/files";
import { MAX_JSON_BODY_BYTES } from "../body-limits";
import { AppError } from "../errors";
import { answerError, drainBody, errorResponse, readText } from "../http";
import type { Sandbox } from "../sandbox/sandbox";
import type { WorkspaceRoutes } from "../workspace-router";
import { fileError } from "./file-errors";
import type { FileWatcher } from "./file-watcher";
import type { Files, SandboxFileStat } from "./sandbox-files";
import { baseName, checkWorkspacePath, containerPath, parentPath } from "./workspace-path";

export interface FilesDeps {
  files: Files;
  watcher: FileWatcher;
  /** The container; `sandbox.wake()` is called only after the request is known to be valid. */
  sandbox: Sandbox;
  /** For reads, which never wake it: waits out a start or stop, then fails WORKSPACE_ASLEEP unless it runs. */
  awake: () => Promise<void>;
  /** True while the workspace sleeps by choice (stopping or stopped); a vanished container is not asleep. */
  asleep: () => boolean;
}

/**
 * The Durable Object's file routes: `/api/workspaces/{id}/files...` as the
 * Worker forwards them (worker/routes/files.ts), so streamed bodies pass
 * straight through to `exec()` stdin/stdout. `shared` runs each one beside
 * other file operations but never beside a save (see DiskLock).
 */
export function fileRoutes(deps: FilesDeps, shared: <T>(operation: () => Promise<T>) => Promise<T>): WorkspaceRoutes {
  const routes: WorkspaceRoutes = {};
  for (const [key, handler] of Object.entries(HANDLERS)) {
    routes[key as keyof WorkspaceRoutes] = (request, url) =>
      shared(async () => {
        try {
          return await handler(request, url.searchParams, deps);
        } catch (error) {
          // Read what the client still sends: answering mid-upload breaks the connection on some proxies.
          await drainBody(request);
          const createOnly = key === "PUT /files/content" && request.headers.get("If-None-Match") === "*";
          if (createOnly && error instanceof AppError && error.code === ErrorCode.FILE_EXISTS) {
            // An HTTP precondition that failed: If-None-Match: * on a file that exists.
            return errorResponse(error, { status: 412 });
          }
          return answerError(error, request, key);
        }
      });
  }
  return routes;
}

type Handler = (request: Request, query: URLSearchParams, deps: FilesDeps) => Promise<Response>;

const HANDLERS: Record<string, Handler> = {
  "GET /files": async (_request, query, deps) => {
    const path = pathParam(query, "path", { allowRoot: true });
    // A re-read after the watcher went away (`wake=0`) must not wake a sleeping workspace.
    if (query.get("wake") === "0" && deps.asleep()) {
      throw new AppError(ErrorCode.WORKSPACE_ASLEEP, "The workspace is asleep; open a file or a terminal to wake it.");
    }
    await deps.awake();
    const listing = await attempt(() => deps.files.listDirectory(containerPath(path)), path);
    const entries = listing.entries.map((e) => ({ ...e, type: fileType(e.type) }));
    return Response.json({ entries } satisfies DirectoryListing);
  },

  "GET /files/stat": async (_request, query, deps) => {
    const path = pathParam(query, "path", { allowRoot: true });
    await deps.awake();
    const stat = await attempt(() => deps.files.stat(containerPath(path)), path);
    return Response.json(info(path, stat), { headers: { ETag: stat.etag } });
  },

  "GET /files/content": async (request, query, deps) => {
    const path = pathParam(query, "path");
    await deps.awake();
    // A tab checking its buffer against the disk (after its own save, most often) sends the version it holds:
    // when the file still is that version, a stat answers and the bytes stay in the container.
    const held = request.headers.get("If-None-Match");
    if (held) {
      const stat = await attempt(() => deps.files.stat(containerPath(path)), path);
      if (held === stat.etag) return new Response(null, { status: 304, headers: { ETag: stat.etag } });
    }
    // One process opens the file and reports the stat of what it opened, so the
    // ETag describes exactly these bytes.
    const { response: file, stat } = await attempt(() => deps.files.readFileWithStat(containerPath(path)), path);
    return new Response(file.body, { headers: contentHeaders(stat, path, false) });
  },

  "PUT /files/content": async (request, query, deps) => {
    const path = pathParam(query, "path");
    const ifMatch = request.headers.get("If-Match");
    const createOnly = request.headers.get("If-None-Match") === "*";
    await deps.sandbox.wake();
    if (query.get("parents") === "1") {
      await attempt(() => deps.files.mkdir(containerPath(parentPath(path)), { recursive: true }), parentPath(path));
    }
    // Atomic save: write a temporary file beside it, then rename it into place.
    const temp = temporaryPath(path, "save");
    try {
      const expected = createOnly ? "-" : (ifMatch ?? "");
      const stat = await attempt(
        () => deps.files.saveAtomically(containerPath(temp), containerPath(path), expected, request.body ?? ""),
        path,
      );
      return Response.json(info(path, stat), { status: 200, headers: { ETag: stat.etag } });
    } catch (error) {
      await deps.files.remove(containerPath(temp), { force: true }).catch(() => {});
      throw error;
    }
  },

  "DELETE /files": async (_request, query, deps) => {
    const path = pathParam(query, "path");
    await deps.sandbox.wake();
    const recursive = query.get("recursive") === "1";
    await attempt(() => deps.files.remove(containerPath(path), { recursive }), path);
    return new Response(null, { status: 204 });
  },

  "POST /files/mkdir": async (_request, query, deps) => {
    const path = pathParam(query, "path");
    await deps.sandbox.wake();
    await attempt(() => deps.files.mkdir(containerPath(path), { recursive: query.get("parents") === "1" }), path);
    const stat = await attempt(() => deps.files.stat(containerPath(path)), path);
    return Response.json(info(path, stat), { status: 201 });
  },

  "POST /files/move": async (request, _query, deps) => {
    const text = await readText(request, MAX_JSON_BODY_BYTES);
    const body = (() => {
      try {
        return JSON.parse(text) as Partial<MoveRequest> | undefined;
      } catch {
        return undefined;
      }
    })();
    if (!body || typeof body !== "object") {
      throw new AppError(ErrorCode.BAD_REQUEST, 'Send JSON {"from": "a.txt", "to": "b/a.txt"}.');
    }
    const from = checked(body.from, "from");
    const to = checked(body.to, "to");
    await deps.sandbox.wake();
    const move =
      body.overwrite === true ? deps.files.rename.bind(deps.files) : deps.files.renameNoReplace.bind(deps.files);
    await attempt(() => move(containerPath(from), containerPath(to)), from, to);
    const stat = await attempt(() => deps.files.lstat(containerPath(to)), to);
    return Response.json(info(to, stat));
  },

  "PUT /files/upload": async (request, query, deps) => {
    const path = pathParam(query, "path");
    const token = uploadToken(query);
    const offset = Number(query.get("offset") ?? "0");
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new AppError(ErrorCode.BAD_REQUEST, "offset must be a byte count (0 or more).");
    }
    await deps.sandbox.wake();
    if (offset === 0) {
      await attempt(() => deps.files.mkdir(containerPath(parentPath(path)), { recursive: true }), parentPath(path));
    }
    const staging = temporaryPath(path, "upload", token);
    const written = await attempt(
      () => deps.files.writeFileAt(containerPath(staging), offset, request.body ?? ""),
      path,
    ).catch((error: unknown) => {
      if (offset > 0 && error instanceof AppError && error.code === ErrorCode.FILE_NOT_FOUND) {
        throw new AppError(
          ErrorCode.UPLOAD_NOT_FOUND,
          `No upload of "${path}" is in progress under this token (it finished, was cancelled, or never sent offset 0): upload the file again.`,
        );
      }
      throw error;
    });
    if (query.get("final") !== "1") {
      return Response.json({ path, received: Number(written.size) });
    }
    const stat = await attempt(() => deps.files.commit(containerPath(staging), containerPath(path), ""), path);
    return Response.json(info(path, stat), { status: 201, headers: { ETag: stat.etag } });
  },

  "DELETE /files/upload": async (_request, query, deps) => {
    const path = pathParam(query, "path");
    const token = uploadToken(query);
    await deps.sandbox.wake();
    await attempt(() => deps.files.remove(containerPath(temporaryPath(path, "upload", token)), { force: true }), path);
    return new Response(null, { status: 204 });
  },

  "GET /files/download": async (_request, query, deps) => {
    const path = pathParam(query, "path", { allowRoot: true });
    await deps.awake();
    const stat = await attempt(() => deps.files.stat(containerPath(path)), path);
    if (stat.type !== "directory") {
      const file = await attempt(() => deps.files.readFile(containerPath(path)), path);
      return new Response(file.body, { headers: contentHeaders(stat, path, true) });
    }
    const archive = await attempt(() => deps.files.archiveDirectory(containerPath(path)), path);
    return new Response(archive.body, {
      headers: {
        "Content-Type": "application/gzip",
        "Content-Disposition": attachment(`${baseName(path)}.tar.gz`),
        "Cache-Control": "no-store",
      },
    });
  },

  // Never wakes: the page's stream reconnects by itself (after a Save and sleep,
  // an idle stop), and an open tab alone must let a workspace sleep. The
  // watcher starts once something else starts the container.
  "GET /files/watch": async (_request, _query, deps) => deps.watcher.subscribe(),
};

function contentHeaders(stat: SandboxFileStat, path: string, download: boolean): HeadersInit {
  return {
    // Never let the browser interpret workspace bytes as a page of the IDE's origin.
    "Content-Type": "application/octet-stream",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox",
    "Cache-Control": "no-store",
    ETag: stat.etag,
    "X-File-Size": String(stat.size),
    "Last-Modified": stat.modifiedAt.toUTCString(),
    ...(download ? { "Content-Disposition": attachment(baseName(path)) } : {}),
  };
}

function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

function info(path: string, stat: SandboxFileStat): FileInfo {
  return {
    path,
    type: fileType(stat.type),
    size: Number(stat.size),
    modifiedAt: stat.modifiedAt.getTime(),
    etag: stat.etag,
  };
}

function fileType(type: string): FileType {
  return type === "directory" || type === "symlink" ? type : "file";
}

function pathParam(query: URLSearchParams, name: string, { allowRoot = false } = {}): string {
  const path = checked(query.get(name), name);
  if (path === "." && !allowRoot) {
    throw new AppError(ErrorCode.INVALID_PATH, `${name} names /workspace itself, which this operation cannot take.`);
  }
  return path;
}

function checked(value: unknown, name: string): string {
  const result = checkWorkspacePath(typeof value === "string" ? value : undefined);
  if (!result.ok) throw new AppError(ErrorCode.INVALID_PATH, `${name}: ${result.reason}`);
  return result.path;
}

function uploadToken(query: URLSearchParams): string {
  const token = query.get("upload") ?? "";
  if (!/^[a-z0-9]{8,32}$/.test(token)) {
    throw new AppError(ErrorCode.BAD_REQUEST, "upload must be a token of 8-32 lowercase letters and digits.");
  }
  return token;
}

/** `.NAME.KIND-TOKEN` beside the target: same filesystem, so the final rename is atomic. */
function temporaryPath(path: string, kind: "save" | "upload", token = randomToken()): string {
  const parent = parentPath(path);
  const name = `.${baseName(path)}.${kind}-${token}`;
  return parent === "." ? name : `${parent}/${name}`;
}

function randomToken(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 16);
}

/** Runs a file operation, turning Linux errors into HTTP errors about `path`. */
async function attempt<T>(operation: () => Promise<T>, path: string, destination?: string): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw fileError(error, path, destination);
  }
}

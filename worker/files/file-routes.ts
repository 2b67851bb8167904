import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import {
  type FileInfo,
  type FileType,
  MAX_FILE_BODY_BYTES,
  type MoveRequest,
  UPLOAD_CHUNK_BYTES,
} from "../../protocol/files";
import type { Body } from "../door/route";
import { check, flag, none, refusal } from "../door/schema";
import { AppError } from "../errors";
import type { WorkspaceParts } from "../workspace-parts";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";
import { fileError } from "./file-errors";
import type { SandboxFileStat } from "./sandbox-files";
import { temporaryPath } from "./temporary-path";
import { saveFile } from "./workspace-files";
import { baseName, checkWorkspacePath, containerPath, parentPath } from "./workspace-path";

/**
 * The files API, `/api/workspaces/{id}/files...`. Every `path` is relative
 * to /workspace ("." is /workspace itself), checked by the schemas below
 * (workspace-path.ts); symlinks leading outside /workspace are refused with
 * 403 PATH_OUTSIDE_WORKSPACE. Errors are `{code, message}`: ENOENT 404
 * FILE_NOT_FOUND, EEXIST 409 FILE_EXISTS, ENOTEMPTY 409 DIRECTORY_NOT_EMPTY,
 * EISDIR 400 IS_A_DIRECTORY, ENOTDIR 400 NOT_A_DIRECTORY, ENOSPC 507
 * NO_SPACE, bad paths 400 INVALID_PATH.
 *
 * The routes and their inputs: docs/api.md (generated from FILE_ROUTES).
 *
 * Streamed bodies pass straight through to `exec()` stdin/stdout. Each route
 * runs beside other file operations but never beside a save (see DiskLock).
 */

/** A workspace path in a query or body: "." (/workspace itself) only where `allowRoot`. */
function workspacePath(name: string, { allowRoot = false } = {}) {
  return check((value) => {
    const path = checked(value, name);
    if (path === "." && !allowRoot) {
      throw new AppError(ErrorCode.INVALID_PATH, `${name} names /workspace itself, which this operation cannot take.`);
    }
    return path;
  });
}

const pathQuery = z.object({ path: workspacePath("path") });
const anyPathQuery = z.object({ path: workspacePath("path", { allowRoot: true }) });
const uploadToken = z
  .string()
  .optional()
  .refine(
    (token) => token !== undefined && /^[a-z0-9]{8,32}$/.test(token),
    refusal(ErrorCode.BAD_REQUEST, "upload must be a token of 8-32 lowercase letters and digits."),
  )
  .transform((token) => token as string);

/** Runs a file route beside other file operations, never beside a save. */
function fileOperation<T>(call: { workspace: WorkspaceParts }, operation: () => Promise<T>): Promise<T> {
  return call.workspace.lifecycle.shared(operation);
}

export const FILE_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/files",
    role: "viewer",
    wake: "read",
    doc: 'Lists the folder `path` (`.` is /workspace): `{"entries":[{name, type, size, modifiedAt}]}`. `wake=0` (a re-read after the watcher went away) answers 409 WORKSPACE_ASLEEP rather than wait for a sleeping workspace.',
    input: { query: z.object({ path: workspacePath("path", { allowRoot: true }), wake: z.string().optional() }) },
    handle: (call) =>
      fileOperation(call, async () => {
        const { files, lifecycle } = call.workspace;
        const { path } = call.query;
        // A re-read after the watcher went away (`wake=0`) must not wake a sleeping workspace.
        if (call.query.wake === "0" && lifecycle.isAsleep()) {
          throw new AppError(
            ErrorCode.WORKSPACE_ASLEEP,
            "The workspace is asleep; open a file or a terminal to wake it.",
          );
        }
        await lifecycle.whenAwake();
        // The container's JSON as it came: a DirectoryListing (the type of listDirectory's answer).
        const listing = await attempt(() => files.listDirectoryJson(containerPath(path)), path);
        return new Response(listing, { headers: { "Content-Type": "application/json" } });
      }),
  }),

  defineRoute({
    method: "GET",
    path: "/files/stat",
    role: "viewer",
    wake: "read",
    doc: "`{path, type, size, modifiedAt, etag}` of `path`, with its ETag header.",
    input: { query: anyPathQuery },
    handle: (call) =>
      fileOperation(call, async () => {
        const { path } = call.query;
        await call.workspace.lifecycle.whenAwake();
        const stat = await attempt(() => call.workspace.files.stat(containerPath(path)), path);
        return Response.json(info(path, stat), { headers: { ETag: stat.etag } });
      }),
  }),

  defineRoute({
    method: "GET",
    path: "/files/content",
    role: "viewer",
    wake: "read",
    doc: "The file's bytes as application/octet-stream (never interpreted as a page), with ETag, X-File-Size and Last-Modified. `If-None-Match: ETAG` answers 304 while the file is still that version.",
    input: { query: pathQuery },
    handle: (call) =>
      fileOperation(call, async () => {
        const { path } = call.query;
        await call.workspace.lifecycle.whenAwake();
        // A tab checking its buffer against the disk (after its own save, most often) sends the version it holds:
        // when the file still is that version, a stat answers and the bytes stay in the container.
        const held = call.request.headers.get("If-None-Match");
        if (held) {
          const stat = await attempt(() => call.workspace.files.stat(containerPath(path)), path);
          if (held === stat.etag) return new Response(null, { status: 304, headers: { ETag: stat.etag } });
        }
        // One process opens the file and reports the stat of what it opened, so the
        // ETag describes exactly these bytes.
        const { response: file, stat } = await attempt(
          () => call.workspace.files.readFileWithStat(containerPath(path)),
          path,
        );
        return new Response(file.body, { headers: contentHeaders(stat, path, false) });
      }),
  }),

  defineRoute({
    method: "PUT",
    path: "/files/content",
    role: "editor",
    wake: "wake",
    doc: "Writes the body as the file's bytes (to a temporary file renamed into place; `parents=1` makes its folders). `If-Match: ETAG` answers 412 FILE_CHANGED when the file changed since; `If-None-Match: *` answers 412 FILE_EXISTS when it exists. Answers FileInfo with the new ETag.",
    input: { query: z.object({ path: workspacePath("path"), parents: flag }), body: { stream: MAX_FILE_BODY_BYTES } },
    handle: (call) =>
      fileOperation(call, async () => {
        const { files, sandbox } = call.workspace;
        const { path, parents } = call.query;
        const ifMatch = call.request.headers.get("If-Match");
        const createOnly = call.request.headers.get("If-None-Match") === "*";
        await sandbox.wake();
        if (parents) {
          await attempt(() => files.mkdir(containerPath(parentPath(path)), { recursive: true }), parentPath(path));
        }
        try {
          const stat = await saveFile(
            files,
            path,
            call.request.body ?? "",
            createOnly ? "-" : (ifMatch ?? ""),
            // Checked present for a body (worker/door/dispatch.ts): the journal's R2 PUT needs it.
            Number(call.request.headers.get("Content-Length") ?? "0"),
          );
          return Response.json(info(path, stat), { status: 200, headers: { ETag: stat.etag } });
        } catch (error) {
          if (createOnly && error instanceof AppError && error.code === ErrorCode.FILE_EXISTS) {
            // An HTTP precondition that failed: If-None-Match: * on a file that exists.
            throw new AppError(ErrorCode.FILE_EXISTS, error.message, undefined, true);
          }
          throw error;
        }
      }),
  }),

  defineRoute({
    method: "DELETE",
    path: "/files",
    role: "editor",
    wake: "wake",
    doc: "Deletes `path`; a folder needs `recursive=1` (409 DIRECTORY_NOT_EMPTY otherwise). 204.",
    input: { query: z.object({ path: workspacePath("path"), recursive: flag }) },
    handle: (call) =>
      fileOperation(call, async () => {
        const { path, recursive } = call.query;
        await call.workspace.sandbox.wake();
        await attempt(() => call.workspace.files.remove(containerPath(path), { recursive }), path);
        return new Response(null, { status: 204 });
      }),
  }),

  defineRoute({
    method: "POST",
    path: "/files/mkdir",
    role: "editor",
    wake: "wake",
    doc: "Makes the folder `path` (`parents=1`: with its parents); 201 FileInfo, 409 FILE_EXISTS when it exists.",
    input: { query: z.object({ path: workspacePath("path"), parents: flag }) },
    handle: (call) =>
      fileOperation(call, async () => {
        const { files, sandbox } = call.workspace;
        const { path, parents } = call.query;
        await sandbox.wake();
        await attempt(() => files.mkdir(containerPath(path), { recursive: parents }), path);
        const stat = await attempt(() => files.stat(containerPath(path)), path);
        return Response.json(info(path, stat), { status: 201 });
      }),
  }),

  defineRoute({
    method: "POST",
    path: "/files/move",
    role: "editor",
    wake: "wake",
    doc: "Renames or moves `from` to `to`; an existing destination is refused with 409 FILE_EXISTS unless `overwrite` is true. Answers the destination's FileInfo.",
    input: {
      body: {
        json: z.object({
          from: check((value) => checked(value, "from")),
          to: check((value) => checked(value, "to")),
          overwrite: z
            .unknown()
            .optional()
            .transform((value) => value === true),
        }) satisfies Body<Required<MoveRequest>>,
      },
    },
    handle: (call) =>
      fileOperation(call, async () => {
        const { files, sandbox } = call.workspace;
        const { from, to, overwrite } = call.body;
        await sandbox.wake();
        const move = overwrite ? files.rename.bind(files) : files.renameNoReplace.bind(files);
        await attempt(() => move(containerPath(from), containerPath(to)), from, to);
        const stat = await attempt(() => files.lstat(containerPath(to)), to);
        return Response.json(info(to, stat));
      }),
  }),

  defineRoute({
    method: "PUT",
    path: "/files/upload",
    role: "editor",
    wake: "wake",
    doc: "One chunk (at most 32 MiB) of an upload, written at byte `offset` of `.NAME.upload-TOKEN` beside `path`: answers `{path, received}`. The chunk with `final=1` renames it into place (its folders are made) and answers 201 FileInfo with its ETag. Chunks keep every request under the Workers body limit; a chunk is written at its offset, so one is sent again after a dropped connection. A chunk past the end of what arrived answers 400, one of an upload that finished or was abandoned 404 UPLOAD_NOT_FOUND.",
    input: {
      query: z.object({
        path: workspacePath("path"),
        upload: uploadToken,
        offset: z
          .string()
          .optional()
          .transform((value) => Number(value ?? "0"))
          .refine(
            (offset) => Number.isSafeInteger(offset) && offset >= 0,
            refusal(ErrorCode.BAD_REQUEST, "offset must be a byte count (0 or more)."),
          ),
        final: flag,
      }),
      body: { stream: UPLOAD_CHUNK_BYTES },
    },
    handle: (call) =>
      fileOperation(call, async () => {
        const { files, sandbox } = call.workspace;
        const { path, upload: token, offset, final } = call.query;
        await sandbox.wake();
        if (offset === 0) {
          await attempt(() => files.mkdir(containerPath(parentPath(path)), { recursive: true }), parentPath(path));
        }
        const staging = temporaryPath(path, "upload", token);
        const written = await attempt(
          () => files.writeFileAt(containerPath(staging), offset, call.request.body ?? ""),
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
        if (!final) return Response.json({ path, received: Number(written.size) });
        const stat = await attempt(() => files.commit(containerPath(staging), containerPath(path), ""), path);
        return Response.json(info(path, stat), { status: 201, headers: { ETag: stat.etag } });
      }),
  }),

  defineRoute({
    method: "DELETE",
    path: "/files/upload",
    role: "editor",
    wake: "wake",
    doc: "Abandons the upload `upload` of `path`: what it wrote so far is removed. 204.",
    input: { query: z.object({ path: workspacePath("path"), upload: uploadToken }) },
    handle: (call) =>
      fileOperation(call, async () => {
        const { path, upload: token } = call.query;
        await call.workspace.sandbox.wake();
        const staging = containerPath(temporaryPath(path, "upload", token));
        await attempt(() => call.workspace.files.remove(staging, { force: true }), path);
        return new Response(null, { status: 204 });
      }),
  }),

  defineRoute({
    method: "GET",
    path: "/files/download",
    role: "viewer",
    wake: "read",
    doc: "A file as an attachment; a folder as NAME.tar.gz, streamed from `tar -cz` in the container.",
    input: { query: anyPathQuery },
    handle: (call) =>
      fileOperation(call, async () => {
        const { files, lifecycle } = call.workspace;
        const { path } = call.query;
        await lifecycle.whenAwake();
        const stat = await attempt(() => files.stat(containerPath(path)), path);
        if (stat.type !== "directory") {
          const file = await attempt(() => files.readFile(containerPath(path)), path);
          return new Response(file.body, { headers: contentHeaders(stat, path, true) });
        }
        const archive = await attempt(() => files.archiveDirectory(containerPath(path)), path);
        return new Response(archive.body, {
          headers: {
            "Content-Type": "application/gzip",
            "Content-Disposition": attachment(`${baseName(path)}.tar.gz`),
            "Cache-Control": "no-store",
          },
        });
      }),
  }),

  // Never wakes: the page's stream reconnects by itself (after a Save and sleep,
  // an idle stop), and an open tab alone must let a workspace sleep. The
  // watcher starts once something else starts the container.
  defineRoute({
    method: "GET",
    path: "/files/watch",
    connection: "file-events",
    role: "viewer",
    wake: "never",
    doc: "Server-sent events of the changes in /workspace (protocol/files.ts): `ready`, `changes` `{changes:[{type, path, from?}]}`, `resync`, and `git` when /workspace/.git changed. Never wakes (an open tab lets a workspace sleep): the watcher starts once something else starts the container. It ends with the caller's session.",
    input: { query: none },
    handle: (call) => fileOperation(call, async () => call.workspace.watcher.subscribe()),
  }),
];

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

function checked(value: unknown, name: string): string {
  const result = checkWorkspacePath(typeof value === "string" ? value : undefined);
  if (!result.ok) throw new AppError(ErrorCode.INVALID_PATH, `${name}: ${result.reason}`);
  return result.path;
}

/** Runs a file operation, turning Linux errors into HTTP errors about `path`. */
async function attempt<T>(operation: () => Promise<T>, path: string, destination?: string): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw fileError(error, path, destination);
  }
}

import { type Context, Hono } from "hono";
import { type AppEnv, requestedWorkspace } from "../workspace-access";

/**
 * `/api/workspaces/{id}/files...`: the workspace's files. Every `path` is
 * relative to /workspace ("." is /workspace itself) and is checked in the
 * Durable Object (worker/files/workspace-path.ts); symlinks leading outside
 * /workspace are refused with 403 PATH_OUTSIDE_WORKSPACE. Errors are
 * `{code, message}`: ENOENT 404 FILE_NOT_FOUND, EEXIST 409 FILE_EXISTS,
 * ENOTEMPTY 409 DIRECTORY_NOT_EMPTY, EISDIR 400 IS_A_DIRECTORY, ENOTDIR 400
 * NOT_A_DIRECTORY, ENOSPC 507 NO_SPACE, bad paths 400 INVALID_PATH.
 *
 *   GET    /files?path=DIR                 {"entries":[{name,type,size,modifiedAt}]}
 *   DELETE /files?path=P[&recursive=1]     204; a folder needs recursive=1
 *   GET    /files/stat?path=P              {path,type,size,modifiedAt,etag}
 *   GET    /files/content?path=FILE        the bytes (application/octet-stream), ETag
 *   PUT    /files/content?path=FILE        body = new bytes, written to a temporary file and
 *          [&parents=1]                    renamed into place. If-Match: ETAG -> 412 FILE_CHANGED
 *                                          when the file changed; If-None-Match: * -> 412
 *                                          FILE_EXISTS when it exists. Answers FileInfo + ETag.
 *   POST   /files/mkdir?path=DIR[&parents=1]  201 FileInfo
 *   POST   /files/move  {"from","to","overwrite"?}  rename/move; refuses an existing
 *                                          destination with 409 unless overwrite.
 *   PUT    /files/upload?path=FILE&upload=TOKEN&offset=N[&final=1]
 *                                          one chunk (<= 32 MiB, UPLOAD_CHUNK_BYTES) of an
 *                                          upload, streamed into `.NAME.upload-TOKEN` beside the
 *                                          target at byte N; the chunk with final=1 renames it
 *                                          into place (parent folders are created). Chunks keep
 *                                          every request under the Workers body limit, so 1 GB
 *                                          uploads work, and a failed chunk is retried alone.
 *   DELETE /files/upload?path=FILE&upload=TOKEN   abandons an upload.
 *   GET    /files/download?path=P          a file as an attachment; a folder as NAME.tar.gz,
 *                                          streamed from `tar -cz` in the container.
 *   GET    /files/watch                    server-sent events (protocol/files.ts): ready,
 *                                          changes {changes:[{type,path,from?}]}, resync.
 */
export const fileRoutes = new Hono<AppEnv>();

/** Hands the request (method, query, headers, streamed body) to the workspace's own route of the same path. */
export function forward(c: Context<AppEnv>) {
  const { id, stub } = requestedWorkspace(c);
  const { pathname, search } = new URL(c.req.url);
  const path = pathname.slice(`/api/workspaces/${id}`.length);
  return stub.fetch(new Request(`https://workspace${path}${search}`, c.req.raw));
}

fileRoutes.get("/:id/files", forward);
fileRoutes.delete("/:id/files", forward);
fileRoutes.get("/:id/files/stat", forward);
fileRoutes.get("/:id/files/content", forward);
fileRoutes.put("/:id/files/content", forward);
fileRoutes.post("/:id/files/mkdir", forward);
fileRoutes.post("/:id/files/move", forward);
fileRoutes.put("/:id/files/upload", forward);
fileRoutes.delete("/:id/files/upload", forward);
fileRoutes.get("/:id/files/download", forward);
fileRoutes.get("/:id/files/watch", forward);

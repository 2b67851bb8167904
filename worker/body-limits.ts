import type { MiddlewareHandler } from "hono";
import { MAX_FILE_BODY_BYTES, UPLOAD_CHUNK_BYTES } from "../protocol/files";
import type { AppEnv } from "./app-env";
import { AppError } from "./errors";

/** Every JSON body (a workspace route that streams a file declares its own limit, worker/door/route.ts). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * The Worker's own routes (sessions, the list of workspaces) take JSON only:
 * a body over MAX_JSON_BODY_BYTES is refused by its Content-Length before a
 * byte of it is read (413 PAYLOAD_TOO_LARGE); one without a length is
 * counted as it is read (readJsonObject). Runs after the session check, so
 * nobody's body is read before they are known.
 */
export const limitBodies: MiddlewareHandler<AppEnv> = async (c, next) => {
  const declared = c.req.header("Content-Length");
  if (c.req.raw.body && declared !== undefined && (!/^\d+$/.test(declared) || Number(declared) > MAX_JSON_BODY_BYTES)) {
    throw tooLarge(MAX_JSON_BODY_BYTES);
  }
  return next();
};

export function tooLarge(limit: number): AppError {
  const what =
    limit === UPLOAD_CHUNK_BYTES
      ? "An upload chunk"
      : limit === MAX_JSON_BODY_BYTES
        ? "A JSON body"
        : "A file sent in one request";
  return new AppError(
    "PAYLOAD_TOO_LARGE",
    `${what} may have at most ${describeBytes(limit)}; nothing of this one was used.${limit === MAX_FILE_BODY_BYTES ? " Upload larger files in chunks (PUT /files/upload)." : ""}`,
  );
}

/** A byte limit as people read it: `32 MiB`, `100 MB`. */
export function describeBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1_000_000} MB`;
}

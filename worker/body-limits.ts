import type { MiddlewareHandler } from "hono";
import { ErrorCode } from "../protocol/errors";
import { MAX_FILE_BODY_BYTES, UPLOAD_CHUNK_BYTES } from "../protocol/files";
import { AppError } from "./errors";
import type { AppEnv } from "./workspace-access";

/** Every JSON body (and any body of a route not listed below). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/** Routes whose body is a file, streamed on to the container: their limit, and Content-Length is required. */
const FILE_BODIES: [method: string, path: RegExp, limit: number][] = [
  ["PUT", /^\/api\/workspaces\/[^/]+\/files\/upload$/, UPLOAD_CHUNK_BYTES],
  ["PUT", /^\/api\/workspaces\/[^/]+\/files\/content$/, MAX_FILE_BODY_BYTES],
  ["POST", /^\/api\/workspaces\/[^/]+\/import$/, MAX_FILE_BODY_BYTES],
];

/** The body limit of a route, and whether its body must declare its length. */
export function bodyLimit(method: string, pathname: string): { limit: number; file: boolean } {
  const file = FILE_BODIES.find(([m, path]) => m === method && path.test(pathname));
  return file ? { limit: file[2], file: true } : { limit: MAX_JSON_BODY_BYTES, file: false };
}

/**
 * Refuses a body over its route's limit before a byte of it is read (413
 * PAYLOAD_TOO_LARGE), by its Content-Length. A file body without one is
 * refused (411): it is streamed straight into the container, and a stream cut
 * at the limit could leave a truncated file. JSON bodies without one are
 * counted as they are read (readJsonObject). Runs after the session check,
 * so nobody's body is read before they are known.
 */
export const limitBodies: MiddlewareHandler<AppEnv> = async (c, next) => {
  const request = c.req.raw;
  if (!request.body) return next();
  const { limit, file } = bodyLimit(request.method, new URL(request.url).pathname);
  const declared = request.headers.get("Content-Length");
  if (declared === null) {
    if (file) {
      throw new AppError(
        ErrorCode.LENGTH_REQUIRED,
        "Send the file with a Content-Length header (a body of known size), so its limit can be checked first.",
      );
    }
  } else if (!/^\d+$/.test(declared) || Number(declared) > limit) {
    throw tooLarge(limit);
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
    ErrorCode.PAYLOAD_TOO_LARGE,
    `${what} may have at most ${describeBytes(limit)}; nothing of this one was used.${limit === MAX_FILE_BODY_BYTES ? " Upload larger files in chunks (PUT /files/upload)." : ""}`,
  );
}

function describeBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1_000_000} MB`;
}

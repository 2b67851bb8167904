/**
 * Error vocabulary shared by the Worker and the app. Every JSON error body is
 * `{ "code": ErrorCode, "message": string }`; the message is meant for people.
 */
export const ErrorCode = {
  // 400
  BAD_REQUEST: "BAD_REQUEST",
  INVALID_JSON: "INVALID_JSON",
  INVALID_WORKSPACE_ID: "INVALID_WORKSPACE_ID",
  INVALID_TERMINAL_NAME: "INVALID_TERMINAL_NAME",
  INVALID_PORT: "INVALID_PORT",
  INVALID_TTL: "INVALID_TTL",
  /** An import archive that is not a gzip-compressed tar, or that tar refused. */
  INVALID_ARCHIVE: "INVALID_ARCHIVE",
  INVALID_WORKSPACE_NAME: "INVALID_WORKSPACE_NAME",
  INVALID_TEMPLATE: "INVALID_TEMPLATE",
  // 401: no valid session (sign in again)
  UNAUTHENTICATED: "UNAUTHENTICATED",
  WRONG_PASSWORD: "WRONG_PASSWORD",
  // 403: a state-changing request or WebSocket upgrade from another origin
  FORBIDDEN_ORIGIN: "FORBIDDEN_ORIGIN",
  INVALID_PATH: "INVALID_PATH",
  IS_A_DIRECTORY: "IS_A_DIRECTORY",
  NOT_A_DIRECTORY: "NOT_A_DIRECTORY",
  // 403
  PATH_OUTSIDE_WORKSPACE: "PATH_OUTSIDE_WORKSPACE",
  PERMISSION_DENIED: "PERMISSION_DENIED",
  // 404
  NOT_FOUND: "NOT_FOUND",
  FILE_NOT_FOUND: "FILE_NOT_FOUND",
  UPLOAD_NOT_FOUND: "UPLOAD_NOT_FOUND",
  // 409
  FILE_EXISTS: "FILE_EXISTS",
  DIRECTORY_NOT_EMPTY: "DIRECTORY_NOT_EMPTY",
  CROSS_DEVICE: "CROSS_DEVICE",
  // 412: the file changed since the client read it (If-Match)
  FILE_CHANGED: "FILE_CHANGED",
  // 405
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  // 409
  /** The workspace is not in a state where this operation makes sense (the message says why). */
  INVALID_STATE: "INVALID_STATE",
  /** Import goes only into an empty /workspace, so it never overwrites work. */
  WORKSPACE_NOT_EMPTY: "WORKSPACE_NOT_EMPTY",
  // 415: a JSON body was expected
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  // 426: a WebSocket route asked without `Upgrade: websocket`
  UPGRADE_REQUIRED: "UPGRADE_REQUIRED",
  // 409: the workspace sleeps and the request asked not to wake it
  WORKSPACE_ASLEEP: "WORKSPACE_ASLEEP",
  // 429: too many failed sign-ins from this address; see Retry-After
  TOO_MANY_ATTEMPTS: "TOO_MANY_ATTEMPTS",
  // 500
  INTERNAL: "INTERNAL",
  // 500: the Worker lacks IDE_PASSWORD / SESSION_SECRET
  MISCONFIGURED: "MISCONFIGURED",
  FILE_ERROR: "FILE_ERROR",
  // 503: the container could not be started or reached; retrying may help
  CONTAINER_UNAVAILABLE: "CONTAINER_UNAVAILABLE",
  // 507
  NO_SPACE: "NO_SPACE",
  // 503: the latest snapshot could not be restored; start fresh or import an archive
  SNAPSHOT_RESTORE_FAILED: "SNAPSHOT_RESTORE_FAILED",
  // 503: taking a snapshot failed; the container keeps running and nothing was stopped
  SAVE_FAILED: "SAVE_FAILED",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The body of every error response from `/api/`. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
}

/** Checks the shape of a value that claims to be an {@link ErrorBody}. */
export function isErrorBody(value: unknown): value is ErrorBody {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ErrorBody).code === "string" &&
    typeof (value as ErrorBody).message === "string"
  );
}

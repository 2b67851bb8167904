/**
 * Error vocabulary shared by the Worker and the app. Every JSON error body is
 * `{ "code": ErrorCode, "message": string }`; the message is meant for people.
 */
export const ErrorCode = {
  // 400
  BAD_REQUEST: "BAD_REQUEST",
  INVALID_WORKSPACE_ID: "INVALID_WORKSPACE_ID",
  /** An import archive that is not a gzip-compressed tar, or that tar refused. */
  INVALID_ARCHIVE: "INVALID_ARCHIVE",
  // 404
  NOT_FOUND: "NOT_FOUND",
  // 405
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  // 409
  /** The workspace is not in a state where this operation makes sense (the message says why). */
  INVALID_STATE: "INVALID_STATE",
  /** Import goes only into an empty /workspace, so it never overwrites work. */
  WORKSPACE_NOT_EMPTY: "WORKSPACE_NOT_EMPTY",
  // 500
  INTERNAL: "INTERNAL",
  // 503: the container could not be started or reached; retrying may help
  CONTAINER_UNAVAILABLE: "CONTAINER_UNAVAILABLE",
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

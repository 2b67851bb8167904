/**
 * Error vocabulary shared by the Worker and the app. Every JSON error body is
 * `{ "code": ErrorCode, "message": string }`; the message is meant for people.
 */
export const ErrorCode = {
  // 400
  BAD_REQUEST: "BAD_REQUEST",
  INVALID_WORKSPACE_ID: "INVALID_WORKSPACE_ID",
  INVALID_PORT: "INVALID_PORT",
  INVALID_TTL: "INVALID_TTL",
  // 404
  NOT_FOUND: "NOT_FOUND",
  // 405
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  // 415
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  // 500
  INTERNAL: "INTERNAL",
  // 503: the container could not be started or reached; retrying may help
  CONTAINER_UNAVAILABLE: "CONTAINER_UNAVAILABLE",
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

import { type ErrorBody, ErrorCode } from "../protocol/errors";

/** An error that becomes a JSON response `{ code, message }` with `status`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }

  toResponse(headers?: HeadersInit): Response {
    return jsonError(this.status, this.code, this.message, headers);
  }
}

export function jsonError(status: number, code: ErrorCode, message: string, headers?: HeadersInit): Response {
  const body: ErrorBody = { code, message };
  return Response.json(body, { status, headers });
}

/** Formats anything thrown for a log line or an error message. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const notFound = (message = "Nothing is here.") => new ApiError(404, ErrorCode.NOT_FOUND, message);

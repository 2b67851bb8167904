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

  private headers: Record<string, string> = {};

  /** Adds response headers, such as Retry-After. */
  withHeaders(headers: Record<string, string>): this {
    Object.assign(this.headers, headers);
    return this;
  }

  toResponse(): Response {
    return jsonError(this.status, this.code, this.message, this.headers);
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

/**
 * Reads and discards a body the Worker refuses. Under `vite dev`, a request
 * body left unread can make the next request on the same connection fail
 * ("fetch failed" in Miniflare). Streams, so a refused upload is not held.
 */
export async function drainBody(request: Request): Promise<void> {
  if (!request.body || request.bodyUsed || request.body.locked) return;
  const reader = request.body.getReader();
  try {
    while (!(await reader.read()).done) {
      // discard
    }
  } catch {
    // A body that fails to arrive is as good as drained.
  }
}

/** Reads a JSON object body: 415 unless it is `application/json`, 400 unless it parses to an object. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    await drainBody(request);
    throw new ApiError(
      415,
      ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      "Send the body as JSON with Content-Type: application/json.",
    );
  }
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    throw new ApiError(400, ErrorCode.INVALID_JSON, "The body is not valid JSON.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError(400, ErrorCode.INVALID_JSON, "The body must be a JSON object.");
  }
  return body as Record<string, unknown>;
}

/**
 * Message prefix of the error a Workspace throws for a caller who does not own
 * it. Errors cross Durable Object RPC as plain messages; the Worker turns this
 * one into 404 (never 403, so the answer does not reveal that it exists).
 */
export const WORKSPACE_NOT_FOUND = "WORKSPACE_NOT_FOUND";

export function isWorkspaceNotFound(error: unknown): boolean {
  return error instanceof Error && error.message.includes(WORKSPACE_NOT_FOUND);
}

/**
 * Message prefix that carries an {@link ApiError} across Durable Object RPC,
 * which keeps only the message of a thrown error.
 */
const API_ERROR = "API_ERROR:";

/** Runs a Durable Object method body so that an ApiError it throws survives RPC. */
export async function toRpcError<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ApiError) {
      throw new Error(
        `${API_ERROR}${JSON.stringify({ status: error.status, code: error.code, message: error.message })}`,
      );
    }
    throw error;
  }
}

/** The ApiError a Durable Object threw through {@link toRpcError}, if this is one. */
export function fromRpcError(error: unknown): ApiError | undefined {
  if (!(error instanceof Error)) return undefined;
  const at = error.message.indexOf(API_ERROR);
  if (at < 0) return undefined;
  try {
    const { status, code, message } = JSON.parse(error.message.slice(at + API_ERROR.length));
    return new ApiError(status, code, message);
  } catch {
    return undefined;
  }
}

/**
 * exec() on a container that is not up (yet): "exec() cannot be called on a
 * container that is not running", "exec() requires a running container".
 */
export function isNotRunningError(error: unknown): boolean {
  // "is paused": a snapshot freezes the container while it is taken.
  return /not running|requires a running container|is paused/i.test(describe(error));
}

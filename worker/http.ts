import { type ErrorBody, ErrorCode, errorStatus } from "../protocol/errors";
import { MAX_JSON_BODY_BYTES, tooLarge } from "./body-limits";
import { AppError, describe } from "./errors";

/** The JSON answer `{ code, message }` to an expected failure, with the status of its code. */
export function errorResponse(error: AppError): Response {
  const status = errorStatus(error.code, error.precondition);
  const body: ErrorBody = { code: error.code, message: error.message };
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers["Retry-After"] = String(error.retryAfterSeconds);
  return Response.json(body, { status, headers });
}

/**
 * The answer to anything thrown: an AppError answers its own code; anything
 * else is a bug, logged with its details under a request id, and answered
 * 500 with a fixed message naming that id (never the internal text).
 */
export function answerError(error: unknown, request: Request, where = "worker"): Response {
  if (error instanceof AppError) return errorResponse(error);
  const id = requestId(request);
  console.error(`${where}: request ${id} (${request.method} ${new URL(request.url).pathname}) failed:`, error);
  return errorResponse(
    new AppError(
      ErrorCode.INTERNAL,
      `Something went wrong on the server (request id ${id}). Try again; if it keeps happening, report that id.`,
    ),
  );
}

/** Cloudflare's ray id when there is one (it names the request in the logs), else a fresh one. */
export function requestId(request: Request): string {
  return request.headers.get("cf-ray") ?? crypto.randomUUID().slice(0, 8);
}

export { describe };

/**
 * Refused bodies up to this size are read and discarded; larger ones are not
 * read at all. Four times the JSON limit, so the common refusal (a body just
 * over 1 MiB, 413) is still answered on a healthy connection.
 */
export const DRAIN_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * Reads and discards a small body the Worker refuses. Under `vite dev`, a
 * request body left unread can make the next request on the same connection
 * fail ("fetch failed" in Miniflare). A body larger than DRAIN_LIMIT_BYTES, or
 * of unknown size, is cancelled instead: a refusal must not cost reading
 * 100 MB from someone who is not even signed in.
 */
export async function drainBody(request: Request): Promise<void> {
  if (!request.body || request.bodyUsed || request.body.locked) return;
  const declared = Number(request.headers.get("Content-Length") ?? Number.NaN);
  if (!(declared <= DRAIN_LIMIT_BYTES)) {
    await request.body.cancel().catch(() => {});
    return;
  }
  await discardRest(request.body.getReader());
}

/** Reads a body to its end, keeping nothing: a body that fails to arrive is as good as drained. */
export async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    while (!(await reader.read()).done) {
      // discard
    }
  } catch {
    // Nothing more will come.
  }
}

/** Reads a JSON object body: 415 unless it is `application/json`, 400 unless it parses to an object. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    await drainBody(request);
    throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Send the body as JSON with Content-Type: application/json.");
  }
  let body: unknown;
  const text = await readText(request, MAX_JSON_BODY_BYTES);
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError(ErrorCode.INVALID_JSON, "The body is not valid JSON.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AppError(ErrorCode.INVALID_JSON, "The body must be a JSON object.");
  }
  return body as Record<string, unknown>;
}

/** The body as text, refused with 413 once it passes `limit` bytes (whatever its Content-Length said). */
export async function readText(request: Request, limit: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Discard a little more so a body just over the limit is answered cleanly
      // (a proxy in front may still be sending it); a huge one is cut off.
      while (size <= 2 * limit) {
        const more = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (more.done) break;
        size += more.value.byteLength;
      }
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

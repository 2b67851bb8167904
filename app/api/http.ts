import { type ErrorBody, isErrorBody } from "../../protocol/errors";

/**
 * The one place the app talks HTTP to the Worker: every request of the app
 * goes through {@link apiFetch} (uploads, which need progress events, go
 * through XHR in files.ts and fail with the same error type).
 */

/** An `/api/` call that failed; `code` comes from the server when it sent one. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiRequestError";
  }
}

/** What a person should read about a failure, whatever threw it. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

const NETWORK_RETRIES = 2;

/**
 * `fetch`, trying a read again when the network drops it (a laptop switching
 * networks fails every request in flight). Writes are not repeated: the
 * server may have carried one out.
 */
async function fetchWithRetry(path: string, init: RequestInit): Promise<Response> {
  const method = (init.method ?? "GET").toUpperCase();
  const retries = method === "GET" || method === "HEAD" ? NETWORK_RETRIES : 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetch(path, init);
    } catch (error) {
      if (attempt >= retries || init.signal?.aborted) {
        throw new ApiRequestError(0, "NETWORK", `The IDE server cannot be reached (${String(error)}).`);
      }
      await new Promise((resolve) => setTimeout(resolve, 300 * (attempt + 1)));
    }
  }
}

/** The error an answer that is not ok stands for, from its JSON error body when it has one. */
export function errorFromBody(status: number, body: unknown, fallback: string): ApiRequestError {
  const error: ErrorBody | undefined = isErrorBody(body) ? body : undefined;
  return new ApiRequestError(status, error?.code ?? `HTTP_${status}`, error?.message ?? fallback);
}

/**
 * Calls the Worker's API; a response that is not ok becomes an
 * {@link ApiRequestError} with the server's code and message when it sent them.
 */
export async function apiFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetchWithRetry(path, init);
  if (response.ok) return response;
  const body: unknown = await response.json().catch(() => undefined);
  throw errorFromBody(response.status, body, `The server answered ${response.status} ${response.statusText}.`);
}

/** {@link apiFetch} for JSON answers. */
export async function apiJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await apiFetch(path, { ...init, headers: { Accept: "application/json", ...init?.headers } });
  return (response.status === 204 ? undefined : await response.json().catch(() => undefined)) as T;
}

/** A JSON request body. */
export function jsonBody(method: string, body: unknown): RequestInit {
  return { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
}

/**
 * A read the user asked for: reads never wake a workspace (a GET is
 * read-only), so one that finds it asleep wakes it (`POST .../wake`) and
 * reads again.
 */
export async function readAwake<T>(workspaceId: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof ApiRequestError) || error.code !== "WORKSPACE_ASLEEP") throw error;
    await apiJson(workspacePath(workspaceId, "/wake"), { method: "POST" });
    return read();
  }
}

/** `/api/workspaces/{id}` and below. */
export function workspacePath(workspaceId: string, suffix = ""): string {
  return `/api/workspaces/${encodeURIComponent(workspaceId)}${suffix}`;
}

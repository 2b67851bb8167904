import { type ErrorBody, ErrorCode, isErrorBody } from "../../protocol/errors";

/**
 * The one place the app talks HTTP to the Worker: every request of the app
 * goes through {@link apiFetch} (uploads, which need progress events, go
 * through XHR in files.ts and fail with the same error type).
 */

/**
 * Failures the app meets before or without a server's error body: the
 * network dropped the request, or an answer came without a JSON error (a
 * proxy's 502, say). The server's own codes are {@link ErrorCode}'s.
 */
export const ClientErrorCode = {
  /** The request or its answer was lost on the way (offline, a dropped connection). */
  NETWORK: "NETWORK",
  /** An answer that is not ok and carries no error body; the status says the rest. */
  NO_ERROR_BODY: "NO_ERROR_BODY",
} as const;
export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

/** What an {@link ApiRequestError} can say: the server's code, or one of the app's own. */
export type ApiErrorCode = ErrorCode | ClientErrorCode;

/** An `/api/` call that failed; `code` comes from the server when it sent one. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
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

/**
 * Waits before each new try. A container start on a Linux host changes the
 * network several times over a few seconds (the container's and its
 * sidecar's interfaces, and again on a retried start), so the tries span ~8 s.
 */
const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000];

/**
 * A request's options; `idempotent` marks a write that does the same whether
 * it runs once or twice (wake, start the dev server), so it may be repeated.
 */
export type ApiInit = RequestInit & { idempotent?: boolean };

/**
 * `fetch`, trying a read (or an idempotent write) again when the network
 * drops it: a laptop switching networks fails every request in flight, and so
 * does Chromium on a Linux host whenever Docker starts a container (a new
 * veth interface counts as a network change). Other writes are not repeated:
 * the server may have carried one out.
 */
async function fetchWithRetry(path: string, { idempotent, ...init }: ApiInit): Promise<Response> {
  const method = (init.method ?? "GET").toUpperCase();
  const retries = method === "GET" || method === "HEAD" || idempotent ? RETRY_DELAYS_MS.length : 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetch(path, init);
    } catch (error) {
      if (attempt >= retries || init.signal?.aborted) {
        throw new ApiRequestError(0, ClientErrorCode.NETWORK, `The IDE server cannot be reached (${String(error)}).`);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]));
    }
  }
}

/** The error an answer that is not ok stands for, from its JSON error body when it has one. */
export function errorFromBody(status: number, body: unknown, fallback: string): ApiRequestError {
  const error: ErrorBody | undefined = isErrorBody(body) ? body : undefined;
  return new ApiRequestError(status, error?.code ?? ClientErrorCode.NO_ERROR_BODY, error?.message ?? fallback);
}

/**
 * Calls the Worker's API; a response that is not ok becomes an
 * {@link ApiRequestError} with the server's code and message when it sent them.
 */
export async function apiFetch(path: string, init: ApiInit = {}): Promise<Response> {
  const response = await fetchWithRetry(path, init);
  // 304 answers only a conditional request (If-None-Match), whose caller reads it as "unchanged".
  if (response.ok || response.status === 304) return response;
  const body: unknown = await response.json().catch(() => undefined);
  throw errorFromBody(response.status, body, `The server answered ${response.status} ${response.statusText}.`);
}

/** {@link apiFetch} for JSON answers. */
export async function apiJson<T>(path: string, init?: ApiInit): Promise<T> {
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
    if (!(error instanceof ApiRequestError) || error.code !== ErrorCode.WORKSPACE_ASLEEP) throw error;
    await apiJson(workspacePath(workspaceId, "/wake"), { method: "POST", idempotent: true });
    return read();
  }
}

/** `/api/workspaces/{id}` and below. */
export function workspacePath(workspaceId: string, suffix = ""): string {
  return `/api/workspaces/${encodeURIComponent(workspaceId)}${suffix}`;
}

/** A path of this origin as a WebSocket URL (`wss:` on an HTTPS page), the one way every socket's URL is made. */
export function socketUrl(path: string): URL {
  const url = new URL(path, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url;
}

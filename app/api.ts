import { type ErrorBody, isErrorBody } from "../protocol/errors";

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

/** Fetches JSON from the Worker's API, turning error bodies into {@link ApiRequestError}. */
export async function apiJson<T>(path: string, init?: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers: { Accept: "application/json", ...init?.headers } });
  } catch (error) {
    throw new ApiRequestError(0, "NETWORK", `The IDE server cannot be reached (${String(error)}).`);
  }
  const body: unknown = response.status === 204 ? undefined : await response.json().catch(() => undefined);
  if (!response.ok) {
    const error: ErrorBody | undefined = isErrorBody(body) ? body : undefined;
    throw new ApiRequestError(
      response.status,
      error?.code ?? `HTTP_${response.status}`,
      error?.message ?? `The server answered ${response.status} ${response.statusText}.`,
    );
  }
  return body as T;
}
